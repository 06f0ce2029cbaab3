import { describe, expect, test } from 'vitest';
import { base64urlToBytes, bytesToBase64url } from '../../lambdas/core/custody/base64url.ts';
import { canonicalJson } from '../../lambdas/core/custody/canonical.ts';
import type { SignedCertificate } from '../../lambdas/core/custody/document.ts';
import { ed25519PublicJwk, jwkThumbprint } from '../../lambdas/core/custody/thumbprint.ts';
import { signingInput } from '../../lambdas/core/custody/signing-input.ts';
import { ed25519Verify, parseJwks, sha256Hex, verifyAgreement, verifyCertificate, verifyCertificateText } from '../../lambdas/core/custody/verify.ts';
import { loadStandaloneVerifier } from '../support/standalone-verifier.ts';
import { entryOf, jwksOf, makeCertificate, makeChain, makeKey, rewriteEntry, signCertificate } from '../support/custody-fixtures.ts';

const hex = (text: string) => new Uint8Array(Buffer.from(text, 'hex'));

describe('Ed25519 primitive (RFC 8032 section 7.1, TEST 1)', () => {
  // The secret key 9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60 signs the empty message.
  const publicKey = hex('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a');
  const signature = hex(
    'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
  );

  test('the published signature verifies with the public key imported as a JWK', async () => {
    expect(await ed25519Verify(ed25519PublicJwk(publicKey), new Uint8Array(0), signature)).toBe(true);
  });

  test('one flipped bit in the signature, the message or the key fails', async () => {
    const jwk = ed25519PublicJwk(publicKey);
    const flipped = signature.slice();
    flipped[10] ^= 0x01;
    expect(await ed25519Verify(jwk, new Uint8Array(0), flipped)).toBe(false);
    expect(await ed25519Verify(jwk, new Uint8Array([0x01]), signature)).toBe(false);
    const otherKey = publicKey.slice();
    otherKey[0] ^= 0x80;
    // Some flipped keys are not curve points at all; either way they must not verify.
    expect(await ed25519Verify(ed25519PublicJwk(otherKey), new Uint8Array(0), signature).catch(() => false)).toBe(false);
  });
});

describe('RFC 8785 canonical JSON', () => {
  test('section 3.2.2 input gives the section 3.2.3 output', () => {
    // Parsed from JSON text, as the RFC's example is: the number literals go through a real parser.
    const input = JSON.parse(String.raw`{
      "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
      "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
      "literals": [null, true, false]
    }`);
    expect(canonicalJson(input)).toBe(
      String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`,
    );
  });

  test('section 3.2.3 sorting example: properties in UTF-16 code unit order', () => {
    const input = JSON.parse(String.raw`{
      "\u20ac": "Euro Sign",
      "\r": "Carriage Return",
      "\ufb33": "Hebrew Letter Dalet With Dagesh",
      "1": "One",
      "\ud83d\ude00": "Emoji: Grinning Face",
      "\u0080": "Control",
      "\u00f6": "Latin Small Letter O With Diaeresis"
    }`);
    const output = canonicalJson(input);
    expect(JSON.parse(output)).toEqual(input);
    expect([...output.matchAll(/:"([^"]+)"/g)].map((match) => match[1])).toEqual([
      'Carriage Return',
      'One',
      'Control',
      'Latin Small Letter O With Diaeresis',
      'Euro Sign',
      'Emoji: Grinning Face',
      'Hebrew Letter Dalet With Dagesh',
    ]);
    expect(output).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",' +
        '"\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  test('a value with no JSON form throws instead of hashing nothing', () => {
    expect(() => canonicalJson(undefined)).toThrow();
  });
});

describe('RFC 7638 thumbprints of Ed25519 keys', () => {
  test('RFC 8037 appendix A.3', async () => {
    const jwk = { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' } as const;
    expect(await jwkThumbprint(jwk)).toBe('kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k');
  });

  test('the JWK of the RFC 8032 raw public key is the RFC 8037 one', () => {
    expect(ed25519PublicJwk(hex('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a')).x).toBe(
      '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
    );
  });
});

describe('base64url', () => {
  test('round-trips every length and agrees with Buffer', () => {
    for (let length = 0; length < 70; length++) {
      const bytes = new Uint8Array(Array.from({ length }, (_, i) => (i * 37 + length) & 0xff));
      const text = bytesToBase64url(bytes);
      expect(text).toBe(Buffer.from(bytes).toString('base64url'));
      expect(base64urlToBytes(text)).toEqual(bytes);
    }
  });

  test('only one spelling decodes: no padding, no foreign characters, no stray low bits', () => {
    expect(base64urlToBytes('AQ==')).toBeNull();
    expect(base64urlToBytes('A+8')).toBeNull();
    expect(base64urlToBytes('AR')).toBeNull(); // 'AQ' is the spelling of [0x01]
    expect(base64urlToBytes('A')).toBeNull();
  });
});

const setup = async () => {
  const key = await makeKey();
  const chain = makeChain(6);
  // Non-consecutive: 1, 2, 4, 6 (the head).
  const certificate = signCertificate(makeCertificate(chain, { seqs: [1, 2, 4, 6] }), key);
  return { key, chain, certificate, jwks: jwksOf(key) };
};

describe('verifyCertificate', () => {
  test('a request certificate and a share certificate verify, with a one-line summary', async () => {
    const { key, chain, certificate, jwks } = await setup();
    const outcome = await verifyCertificate(JSON.parse(JSON.stringify(certificate)), jwks);
    expect(outcome).toMatchObject({ ok: true, key: { kid: key.jwk.kid } });
    expect(outcome.ok && outcome.summary).toBe(
      `valid: request req_01JTESTREQUEST of organisation "Acme Support" (final), 4 chain entries up to seq 6, signed by ${key.jwk.kid} (Ed25519)`,
    );
    const share = signCertificate(makeCertificate(chain, { kind: 'share', seqs: [5] }), key);
    const shareOutcome = await verifyCertificate(share, jwks);
    expect(shareOutcome.ok && shareOutcome.summary).toMatch(/^valid: share shr_01JTESTSHARE of organisation "Acme Support" \(not final\), 1 chain entry up to seq 6,/);
  });

  test('every changed byte of the serialized certificate fails to parse or fails verification', async () => {
    const key = await makeKey();
    const certificate = signCertificate(makeCertificate(makeChain(2), { seqs: [2] }), key);
    const jwks = jwksOf(key);
    const bytes = Buffer.from(JSON.stringify(certificate), 'utf8');
    expect((await verifyCertificate(JSON.parse(bytes.toString('utf8')), jwks)).ok).toBe(true);
    let verifiedAfterChange = 0;
    let parsedAfterChange = 0;
    for (let at = 0; at < bytes.length; at++) {
      // Two replacements per byte: a neighbour (keeps digits digits, letters letters) and a fixed letter.
      for (const replacement of new Set([bytes[at] ^ 0x01, bytes[at] === 0x78 ? 0x79 : 0x78])) {
        const changed = Buffer.from(bytes);
        changed[at] = replacement;
        let document: unknown;
        try {
          document = JSON.parse(changed.toString('utf8'));
        } catch {
          continue;
        }
        parsedAfterChange += 1;
        const outcome = await verifyCertificate(document, jwks);
        if (outcome.ok) verifiedAfterChange += 1;
        expect(outcome.ok, `byte ${at} -> ${String.fromCharCode(replacement)}`).toBe(false);
      }
    }
    expect(verifiedAfterChange).toBe(0);
    // Most changes still parse: the loop tested verification, not just the JSON parser.
    expect(parsedAfterChange).toBeGreaterThan(bytes.length);
  });

  test('the served text: its canonical JSON verifies (a final line break allowed); any other spelling of the same document is refused', async () => {
    const key = await makeKey();
    const certificate = signCertificate(makeCertificate(makeChain(3), { seqs: [1, 3] }), key);
    const jwks = jwksOf(key);
    const text = canonicalJson(certificate);
    expect(await verifyCertificateText(text, jwks)).toMatchObject({ ok: true });
    expect(await verifyCertificateText(`${text}\n`, jwks)).toMatchObject({ ok: true });
    // Each of these parses to a document that verifies, but is not the text the service issued.
    const respelled = [
      JSON.stringify(certificate, null, 2),
      text.replace('{"certificate_id"', '{"final":false,"certificate_id"'), // a duplicate member a first-wins reader would see
      text.replace('"seq":1,', '"seq":1.0,'),
      text.replace('"format":"service-custody/v1"', '"format":"service-custody\\/v1"'),
    ];
    for (const variant of respelled) {
      expect(variant).not.toBe(text);
      // Parsed, each is the signed document (JSON.parse keeps the last of duplicate members)...
      expect((await verifyCertificate(JSON.parse(variant), jwks)).ok, variant.slice(0, 60)).toBe(true);
      // ...but the text a person or another parser reads is not what was signed.
      const outcome = await verifyCertificateText(variant, jwks);
      expect(outcome).toMatchObject({ ok: false, reason: expect.stringMatching(/not the canonical JSON/) });
    }
    expect(await verifyCertificateText('{"format":', jwks)).toMatchObject({ ok: false, reason: expect.stringMatching(/^not JSON/) });
  });

  test('the signature covers a short statement of the document digest, so KMS can sign a certificate of any size', async () => {
    const key = await makeKey();
    const certificate = signCertificate(makeCertificate(makeChain(60), { seqs: Array.from({ length: 60 }, (_, i) => i + 1) }), key);
    expect(canonicalJson(certificate).length).toBeGreaterThan(4096);
    const { signature, ...body } = certificate;
    const input = signingInput(await sha256Hex(canonicalJson(body)));
    expect(input).toMatch(/^\{"document_sha256":"[0-9a-f]{64}","format":"service-custody\/v1"\}$/);
    expect(await ed25519Verify(key.jwk, new TextEncoder().encode(input), base64urlToBytes(signature.value)!)).toBe(true);
    expect(await verifyCertificate(certificate, jwksOf(key))).toMatchObject({ ok: true });
  });

  test('a swapped kid fails: the kid of another published key, or a key set listing a key under another kid', async () => {
    const { certificate, key } = await setup();
    const other = await makeKey();
    const swapped = { ...certificate, signature: { ...certificate.signature, kid: other.jwk.kid } };
    const outcome = await verifyCertificate(swapped, jwksOf(key, other));
    expect(outcome).toEqual({ ok: false, reason: `signature does not verify with key ${other.jwk.kid}` });

    // The key set lists the other key's material under the signing key's kid.
    const lying = { keys: [{ ...other.jwk, kid: key.jwk.kid }] };
    const lied = await verifyCertificate(certificate, lying);
    expect(lied.ok).toBe(false);
    expect(!lied.ok && lied.reason).toBe(`key ${key.jwk.kid} has thumbprint ${other.jwk.kid}: the kid does not name this key`);
  });

  test('a retired key still verifies, and the summary says it is retired', async () => {
    const retired = await makeKey({ retired_at: '2026-03-01T00:00:00.000Z' });
    const current = await makeKey();
    const certificate = signCertificate(makeCertificate(makeChain(3)), retired);
    const outcome = await verifyCertificate(certificate, jwksOf(current, retired));
    expect(outcome.ok).toBe(true);
    expect(outcome.ok && outcome.summary).toContain(`signed by ${retired.jwk.kid} (Ed25519, a key retired at 2026-03-01T00:00:00.000Z)`);
  });

  test('a retired key verifies what it signed up to five minutes after it retired, and nothing issued later; the standalone file agrees', async () => {
    const standalone = await loadStandaloneVerifier();
    const current = await makeKey();
    const certificate = makeCertificate(makeChain(3)); // issued 2026-01-05T10:00:00.000Z
    const outcomes = async (retiredAt: string, issuedAt: unknown = certificate.issued_at) => {
      const retired = await makeKey({ retired_at: retiredAt });
      const signed = signCertificate({ ...certificate, issued_at: issuedAt } as typeof certificate, retired);
      const jwks = jwksOf(current, retired);
      const library = await verifyCertificate(signed, jwks);
      const file = standalone.verifyCertificate(signed, jwks);
      expect(file.ok ? 'ok' : file.reason).toBe(library.ok ? 'ok' : library.reason);
      return { kid: retired.jwk.kid, outcome: library.ok ? 'ok' : library.reason };
    };
    expect((await outcomes('2026-01-05T09:55:00.000Z')).outcome).toBe('ok');
    const late = await outcomes('2026-01-05T09:54:59.999Z');
    expect(late.outcome).toBe(
      `key ${late.kid} retired at 2026-01-05T09:54:59.999Z, more than 5 minutes before this certificate's issued_at 2026-01-05T10:00:00.000Z: a retired key signs no new certificates`,
    );
    const undated = await outcomes('2026-01-05T09:55:00.000Z', 'yesterday');
    expect(undated.outcome).toBe(`issued_at "yesterday" is not a date, so whether key ${undated.kid} signed it before it retired cannot be told`);
  });

  test('an unknown kid fails', async () => {
    const { certificate } = await setup();
    const outcome = await verifyCertificate(certificate, jwksOf(await makeKey()));
    expect(outcome).toEqual({ ok: false, reason: `no published key has kid ${certificate.signature.kid}` });
  });

  test('alg EdDSA is accepted, anything else is not', async () => {
    const key = await makeKey({ alg: 'EdDSA' });
    const unsigned = makeCertificate(makeChain(3));
    const outcome = await verifyCertificate(signCertificate(unsigned, key, 'EdDSA'), jwksOf(key));
    expect(outcome.ok && outcome.summary).toMatch(/\(EdDSA\)$/);
    const rs256 = await verifyCertificate(signCertificate(unsigned, key, 'RS256'), jwksOf(key));
    expect(rs256).toEqual({ ok: false, reason: 'signature algorithm "RS256" is not accepted (Ed25519 or EdDSA)' });
  });

  test('not a certificate, or unsigned', async () => {
    const { certificate, jwks } = await setup();
    expect(await verifyCertificate([], jwks)).toMatchObject({ ok: false, reason: 'not a custody certificate: not a JSON object' });
    expect(await verifyCertificate({ ...certificate, format: 'other/v1' }, jwks)).toMatchObject({ ok: false, reason: expect.stringContaining('format is "other/v1"') });
    const { signature: _s, ...unsigned } = certificate;
    expect(await verifyCertificate(unsigned, jwks)).toEqual({ ok: false, reason: 'the certificate has no signature' });
  });

  test('an entry whose content was rewritten (hash kept, re-signed) fails on its hash', async () => {
    const { key, chain, jwks } = await setup();
    const forged = signCertificate(makeCertificate(rewriteEntry(chain, 4, { note: 'nothing happened' }, false), { seqs: [1, 2, 4, 6] }), key);
    expect(await verifyCertificate(forged, jwks)).toEqual({ ok: false, reason: 'entry 4: hash does not match its content' });
  });

  test('an entry rewritten with its hash recomputed (re-signed) fails on the next entry\'s link', async () => {
    const { key, chain, jwks } = await setup();
    const forged = signCertificate(makeCertificate(rewriteEntry(chain, 3, { note: 'nothing happened' }, true), { seqs: [2, 3, 4, 6] }), key);
    expect(await verifyCertificate(forged, jwks)).toEqual({
      ok: false,
      reason: "entry 4: prev_hash does not match entry 3's hash (the chain does not link)",
    });
  });

  test('chain and fact checks, each re-signed so only the check under test can fail', async () => {
    const { key, chain, jwks } = await setup();
    const check = async (change: (body: any) => void) => {
      const body: any = structuredClone(makeCertificate(chain, { seqs: [1, 2, 4, 6] }));
      change(body);
      const outcome = await verifyCertificate(signCertificate(body, key), jwks);
      return outcome.ok ? 'ok' : outcome.reason;
    };
    expect(await check(() => {})).toBe('ok');
    expect(await check((b) => b.chain.entries.reverse())).toBe('entry 4: listed after entry 6 (entries must ascend by seq)');
    expect(await check((b) => (b.chain.entries[1].type = 'request.revealed'))).toMatch(/^entry 2: content.type "request.opened" differs from the entry's type/);
    expect(await check((b) => (b.chain.head = { seq: 5, hash: chain[4].hash }))).toBe('entry 6: beyond the chain head (seq 5)');
    expect(await check((b) => (b.chain.head.hash = chain[4].hash))).toBe("entry 6: hash is not the chain head's hash");
    expect(await check((b) => (b.chain.organisation_id = 'org_other'))).toMatch(/^chain.organisation_id "org_other" is not the organisation's id/);
    expect(await check((b) => (b.organisation.id = 'org_other'))).toMatch(/^chain.organisation_id .* is not the organisation's id "org_other"/);
    expect(await check((b) => (b.timeline[2].seq = 3))).toBe('timeline fact 3 ("revealed"): names seq 3, which the certificate does not carry');
    expect(await check((b) => (b.timeline[0].type = 'request.revealed'))).toBe('timeline fact 1 ("created"): type "request.revealed", but entry 1 is "request.created"');
    expect(await check((b) => (b.timeline[0].at = '2020-01-01T00:00:00.000Z'))).toMatch(/^timeline fact 1 \("created"\): at "2020-01-01T00:00:00.000Z", but entry 1 occurred at/);
    expect(await check((b) => (b.destruction.seq = 5))).toBe('destruction: names seq 5, which the certificate does not carry');
    expect(await check((b) => (b.destruction.at = 'yesterday'))).toMatch(/^destruction: at "yesterday", but entry 6 occurred at/);
  });

  test("the destruction's backups: the restorable-until date follows from the destruction and the recovery days; certificates issued before they were stated still verify", async () => {
    const { key, chain, jwks } = await setup();
    const check = async (change: (body: any) => void, backupDays: number | undefined = 7) => {
      const body: any = structuredClone(makeCertificate(chain, { seqs: [1, 2, 4, 6], backupDays }));
      change(body);
      const outcome = await verifyCertificate(signCertificate(body, key), jwks);
      return outcome.ok ? 'ok' : outcome.reason;
    };
    const destroyedAt = chain[5].occurred_at;
    expect(await check((b) => expect(b.destruction.backups).toEqual({ point_in_time_recovery_days: 7, ciphertext_restorable_until: new Date(Date.parse(destroyedAt) + 7 * 86_400_000).toISOString() }))).toBe('ok');
    expect(await check(() => {}, 0)).toBe('ok');
    // Certificates issued before the destruction stated its scope and backups.
    expect(await check(() => {}, undefined)).toBe('ok');

    expect(await check((b) => (b.destruction.backups.ciphertext_restorable_until = destroyedAt))).toBe(
      `destruction: backups.ciphertext_restorable_until ${JSON.stringify(destroyedAt)} is not ${JSON.stringify(new Date(Date.parse(destroyedAt) + 7 * 86_400_000).toISOString())} (the destruction plus 7 days of point-in-time recovery)`,
    );
    expect(await check((b) => (b.destruction.backups.point_in_time_recovery_days = 36))).toBe('destruction: backups.point_in_time_recovery_days 36 is not a whole number of days from 0 to 35');
    expect(await check((b) => (b.destruction.backups.point_in_time_recovery_days = '7'))).toMatch(/^destruction: backups.point_in_time_recovery_days "7" is not a whole number/);
    expect(await check((b) => (b.destruction.backups.ciphertext_restorable_until = null), 7)).toMatch(/^destruction: backups.ciphertext_restorable_until null is not "/);
    // Nothing stored, or no recovery: no backup holds a ciphertext, so no date.
    expect(await check((b) => (b.destruction.ciphertext_stored = false))).toMatch(/^destruction: backups.ciphertext_restorable_until ".*" is not null \(no ciphertext was stored\)$/);
    expect(await check((b) => (b.destruction.backups.point_in_time_recovery_days = 0))).toMatch(/^destruction: backups.ciphertext_restorable_until ".*" is not null \(no point-in-time recovery\)$/);
    expect(await check((b) => (b.destruction.ciphertext_stored = 'yes'))).toBe('destruction: ciphertext_stored "yes" is not true or false');
    expect(await check((b) => (b.destruction.backups = null))).toBe('destruction: backups is not an object');
    // "Never stored" while the certificate carries the entry that stored it.
    const stored: any = structuredClone(makeCertificate(chain, { seqs: [1, 2, 3, 4, 6], backupDays: 7 }));
    stored.destruction.ciphertext_stored = false;
    stored.destruction.backups.ciphertext_restorable_until = null;
    expect(await verifyCertificate(signCertificate(stored, key), jwks)).toEqual({
      ok: false,
      reason: 'destruction: ciphertext_stored is false, but entry 3 ("request.submitted") stored the ciphertext',
    });
  });

  test('seq 1 must link to the genesis hash', async () => {
    const key = await makeKey();
    const chain = makeChain(2);
    const first = entryOf({ ...chain[0].content, prevHash: 'f'.repeat(64) });
    const certificate = signCertificate(makeCertificate([first], { seqs: [1] }), key);
    expect(await verifyCertificate(certificate, jwksOf(key))).toEqual({
      ok: false,
      reason: "entry 1: the organisation's first entry must link to the genesis hash (64 zeros)",
    });
  });
});

describe('verifyAgreement', () => {
  test('certificates over one chain agree on shared entries, heads and links', async () => {
    const key = await makeKey();
    const chain = makeChain(6);
    const first = signCertificate(makeCertificate(chain.slice(0, 4), { seqs: [1, 2, 4], certificateId: 'cert_a' }), key);
    const second = signCertificate(makeCertificate(chain, { kind: 'share', seqs: [2, 3, 5, 6], certificateId: 'cert_b' }), key);
    // Shared: entry 2. Links between them: b's 2 on a's 1, a's 4 on b's 3, b's 5 on a's 4 (entry and head).
    const outcome = verifyAgreement([first, second]);
    expect(outcome).toMatchObject({ ok: true, shared: 1 });
    expect(outcome.ok && outcome.summary).toBe(
      'agreement: 2 certificates of organisation "Acme Support" agree on 1 shared chain entry and 3 links between them',
    );
  });

  test('a certificate built over a rewritten shared entry (hash recomputed, re-signed) disagrees', async () => {
    const key = await makeKey();
    const chain = makeChain(6);
    const honest = signCertificate(makeCertificate(chain, { seqs: [1, 2, 3, 6], certificateId: 'cert_a' }), key);
    // A chain rewritten from entry 3 on, every later hash recomputed: each certificate alone is consistent.
    const rewritten = rewriteEntry(chain, 3, { note: 'nothing happened' }, true);
    const relinked = rewritten.slice(0, 3);
    for (const entry of chain.slice(3)) relinked.push(entryOf({ ...entry.content, prevHash: relinked[relinked.length - 1].hash }));
    const forged = signCertificate(makeCertificate(relinked, { seqs: [3, 4], certificateId: 'cert_b' }), key);
    expect((await verifyCertificate(forged, jwksOf(key))).ok).toBe(true);
    const outcome = verifyAgreement([honest, forged]);
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.reason).toMatch(/^certificates disagree on seq 3: certificate 1 \(cert_a\) entry 3 has hash [0-9a-f]{64}, certificate 2 \(cert_b\) entry 3 has [0-9a-f]{64}$/);
  });

  test('a link across certificates and a head are checked', async () => {
    const key = await makeKey();
    const chain = makeChain(6);
    // An entry 4 from another history: it links to an entry 3 that is not the one certificate 1 carries.
    const stray = entryOf({ ...chain[3].content, prevHash: 'a'.repeat(64) });
    const before = signCertificate(makeCertificate(chain.slice(0, 3), { seqs: [3], certificateId: 'cert_a' }), key);
    const after = { ...before, certificate_id: 'cert_b', chain: { ...before.chain, head: { seq: 4, hash: stray.hash }, entries: [stray] } } as SignedCertificate;
    const outcome = verifyAgreement([before, after]);
    expect(!outcome.ok && outcome.reason).toMatch(/^certificates do not link: certificate 2 \(cert_b\) entry 4 has prev_hash a{64}, but certificate 1 \(cert_a\) entry 3 has hash/);

    const otherHead = { ...before, certificate_id: 'cert_c', chain: { ...before.chain, head: { seq: 3, hash: 'b'.repeat(64) }, entries: [] } } as SignedCertificate;
    const heads = verifyAgreement([before, otherHead]);
    expect(!heads.ok && heads.reason).toMatch(/^certificates disagree on seq 3: .* has hash [0-9a-f]{64}, certificate 2 \(cert_c\) chain head \(seq 3\) has b{64}$/);
  });

  test('certificates of different organisations share nothing: ok, shared 0', async () => {
    const key = await makeKey();
    const ours = signCertificate(makeCertificate(makeChain(3)), key);
    const theirs = { ...ours, organisation: { id: 'org_other', name: 'Other' }, chain: { ...ours.chain, organisation_id: 'org_other' } } as SignedCertificate;
    expect(verifyAgreement([ours, theirs])).toEqual({
      ok: true,
      shared: 0,
      summary: 'agreement: nothing shared to compare (2 certificates of 2 different organisations, whose chains are separate)',
    });
    // Two of one organisation are compared; the third is only mentioned.
    const mixed = verifyAgreement([ours, theirs, { ...ours, certificate_id: 'cert_again' }]);
    expect(mixed).toEqual({
      ok: true,
      shared: 3,
      summary: 'agreement: 2 certificates of organisation "Acme Support" agree on 3 shared chain entries and 0 links between them; 1 of another organisation shares nothing with them',
    });
  });
});

describe('parseJwks', () => {
  test('keeps the members the document defines', async () => {
    const key = await makeKey({ retired_at: '2026-03-01T00:00:00.000Z' });
    expect(parseJwks({ keys: [{ ...key.jwk, extra: 1 }] })).toEqual({ keys: [key.jwk] });
    // A null retired_at is read as absent (not retired), not as a broken key set.
    const { retired_at: _retired, ...current } = key.jwk;
    expect(parseJwks({ keys: [{ ...key.jwk, retired_at: null }] })).toEqual({ keys: [current] });
  });

  test('throws with a reason', async () => {
    const key = await makeKey();
    expect(() => parseJwks([])).toThrow('not a JWKS');
    expect(() => parseJwks({ keys: [{ ...key.jwk, kty: 'RSA' }] })).toThrow('JWKS key 1: not an Ed25519 key (kty "RSA", crv "Ed25519")');
    expect(() => parseJwks({ keys: [key.jwk, { ...key.jwk, x: 'AAAA' }] })).toThrow('JWKS key 2: x is not a base64url 32-byte public key');
    expect(() => parseJwks({ keys: [{ ...key.jwk, kid: undefined }] })).toThrow('JWKS key 1: no kid');
    expect(() => parseJwks({ keys: [{ ...key.jwk, use: 'enc' }] })).toThrow('JWKS key 1: use "enc" is not "sig"');
  });
});

/**
 * tools/verify-custody-certificate.mjs, the single file auditors run, against the service's own
 * verifier (lambdas/core/custody/verify.ts) and canonicaliser (the `canonicalize` package): on
 * generated certificates, tampered in every way the checks name, both must give the same answer
 * with the same reason. And the file must load nothing but Node's built-in modules.
 */
import { builtinModules } from 'node:module';
import { readFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import PDFDocument from 'pdfkit';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';
import { canonicalJson } from '../../lambdas/core/custody/canonical.ts';
import type { CertificateChainEntry, ChainEntryContent, Jwks, SignedCertificate } from '../../lambdas/core/custody/document.ts';
import { extractEmbeddedCertificate } from '../support/pdf-attachment-oracle.ts';
import { parseJwks, verifyAgreement, verifyCertificateText } from '../../lambdas/core/custody/verify.ts';
import { jwkThumbprint } from '../../lambdas/core/custody/thumbprint.ts';
import { renderCertificatePdf } from '../../lambdas/http/certificates/render-pdf.ts';
import { GENESIS_HASH } from '../../lambdas/core/custody/document.ts';
import { entryOf, makeCertificate, makeKey, ORG_ID, rewriteEntry, signCertificate } from '../support/custody-fixtures.ts';
import { loadStandaloneVerifier, VERIFIER } from '../support/standalone-verifier.ts';

const standalone = await loadStandaloneVerifier();
const current = await makeKey();
const retired = await makeKey({ retired_at: '2026-02-01T00:00:00.000Z' });
const stranger = await makeKey();
const JWKS: Jwks = { keys: [current.jwk, retired.jwk] };
/** 32 bytes that are no Ed25519 public key, published under their own thumbprint. */
const NOT_A_POINT = { kty: 'OKP' as const, crv: 'Ed25519' as const, x: Buffer.alloc(32, 0xff).toString('base64url'), kid: '' };
NOT_A_POINT.kid = await jwkThumbprint(NOT_A_POINT);

/** An outcome as one comparable line: the summary when valid, the reason when not. */
const said = (outcome: { ok: true; summary: string } | { ok: false; reason: string }) => (outcome.ok ? outcome.summary : `invalid: ${outcome.reason}`);
const thrown = (run: () => unknown) => {
  try {
    return { value: run() };
  } catch (error) {
    return { error: (error as Error).message };
  }
};

describe('what the file loads', () => {
  test('imports nothing but node: built-ins, and has no other way to load code', () => {
    const source = readFileSync(VERIFIER, 'utf8');
    const { importedFiles, referencedFiles, typeReferenceDirectives } = ts.preProcessFile(source, true, true);
    const specifiers = importedFiles.map((file) => file.fileName);
    expect(specifiers.length).toBeGreaterThan(0);
    for (const specifier of specifiers) {
      expect(specifier).toMatch(/^node:/);
      expect(builtinModules).toContain(specifier.slice('node:'.length));
    }
    expect([...referencedFiles, ...typeReferenceDirectives]).toEqual([]);
    // No dynamic import, require, eval or native binding: what is imported above is all it runs.
    expect(source).not.toMatch(/\bimport\s*\(|\brequire\s*\(|createRequire|\beval\b|new Function|process\.binding|process\.dlopen|WebAssembly/);
  });
});

// ---- Generated JSON, for the canonical form ----

/** Characters RFC 8785 treats specially (escapes, controls, sort order across planes) and arbitrary ones. */
const character = fc.oneof(
  fc.constantFrom('"', '\\', '/', '\b', '\f', '\n', '\r', '\t', '\u0000', '\u001f', '\u007f', '\u0080', '\u2028', '\u2029', '€', 'ö', '\ufb33', '😀', '\uffff', 'a', 'Z', '1'),
  fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 1 }),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  fc.integer({ min: 0x80, max: 0xd7ff }).map((code) => String.fromCharCode(code)),
  fc.integer({ min: 0xe000, max: 0xffff }).map((code) => String.fromCharCode(code)),
);
const text = fc.string({ unit: character, maxLength: 10 });
const number = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, 1e21, 1e-7, 1e-6, 5e-324, Number.MAX_VALUE, Number.MAX_SAFE_INTEGER + 2, 333333333.33333329, 4.5, 0.002, 1e30, 123e-20, -1.5e-9),
);
const { json } = fc.letrec((tie) => ({
  json: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    number,
    text,
    fc.array(tie('json'), { maxLength: 5 }),
    fc.dictionary(text, tie('json'), { maxKeys: 6 }),
  ),
}));

describe('RFC 8785 canonical JSON, reimplemented in the file', () => {
  test('the RFC\'s own examples (sections 3.2.2 and 3.2.3)', () => {
    const input = JSON.parse(String.raw`{
      "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
      "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
      "literals": [null, true, false]
    }`);
    expect(standalone.canonicalJson(input)).toBe(
      String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`,
    );
    const sorting = JSON.parse(String.raw`{"\u20ac":1,"\r":2,"\ufb33":3,"1":4,"\ud83d\ude00":5,"\u0080":6,"\u00f6":7}`);
    expect(standalone.canonicalJson(sorting)).toBe('{"\\r":2,"1":4,"\u0080":6,"ö":7,"€":1,"😀":5,"\ufb33":3}');
  });

  test('equals the canonicalize package on generated values, and on the same values read back from JSON text', () => {
    fc.assert(
      fc.property(json, (value) => {
        expect(standalone.canonicalJson(value)).toBe(canonicalize(value));
        const parsed = JSON.parse(JSON.stringify(value));
        expect(standalone.canonicalJson(parsed)).toBe(canonicalize(parsed));
      }),
      { numRuns: 2000 },
    );
  });

  test('a member named __proto__, as JSON.parse makes it, is a member like any other', () => {
    const parsed = JSON.parse('{"b":1,"__proto__":{"x":[1,2]},"a":null}');
    expect(standalone.canonicalJson(parsed)).toBe(canonicalize(parsed));
    expect(standalone.canonicalJson(parsed)).toBe('{"__proto__":{"x":[1,2]},"a":null,"b":1}');
  });

  test('refuses a lone surrogate, in a value or a name, with the package\'s reason', () => {
    for (const value of [JSON.parse('"\\ud800"'), { ['\udc00']: 1 }, ['ok', 'x\ud83d'], { a: { b: '\ude00y' } }]) {
      expect(thrown(() => standalone.canonicalJson(value))).toEqual(thrown(() => canonicalJson(value)));
      expect(thrown(() => standalone.canonicalJson(value)).error).toBe('Lone surrogate is not allowed');
    }
  });
});

// ---- Generated certificates ----

const TYPES = ['request.created', 'request.opened', 'request.submitted', 'request.revealed', 'ticket.status_received', 'share.created', 'request.completed', 'share.purged', 'request.relinked'];

/** Entry data: arbitrary JSON, sometimes a helpdesk read that makes the fact `verified_by`. */
const entryData = fc.oneof(
  fc.dictionary(text, json, { maxKeys: 4 }),
  fc.record({ details: fc.record({ verified: fc.constant(true), helpdesk: fc.constantFrom('zendesk', 'jsm', ''), read_at: fc.constantFrom('2026-01-05T09:00:00.000Z', '') }) }),
);

/** A linked chain of `data.length` entries, seq 1 on the genesis hash (or starting later). */
const chainOf = (data: Array<Record<string, unknown>>, types: number[], firstSeq: number): CertificateChainEntry[] => {
  const entries: CertificateChainEntry[] = [];
  data.forEach((payload, index) => {
    const seq = firstSeq + index;
    const type = TYPES[types[index] % TYPES.length];
    const content: ChainEntryContent = {
      orgId: ORG_ID,
      seq,
      type,
      occurredAt: new Date(Date.UTC(2026, 0, 5, 9, seq)).toISOString(),
      prevHash: index === 0 ? (seq === 1 ? GENESIS_HASH : 'ab'.repeat(32)) : entries[index - 1].hash,
      actor: { type: 'member', label: 'Ada Lovelace', id: 'mem_ada' },
      clientId: 'cli_01',
      requestId: 'req_01JTESTREQUEST',
      data: payload,
    };
    entries.push(entryOf(content));
  });
  return entries;
};

const certificateSpec = fc.record({
  data: fc.array(entryData, { minLength: 1, maxLength: 10 }),
  types: fc.array(fc.nat(), { minLength: 10, maxLength: 10 }),
  firstSeq: fc.constantFrom(1, 1, 40),
  carried: fc.array(fc.boolean(), { minLength: 10, maxLength: 10 }),
  kind: fc.constantFrom('request' as const, 'share' as const),
  backupDays: fc.option(fc.integer({ min: 0, max: 35 }), { nil: undefined }),
  signer: fc.constantFrom('current', 'current', 'retired'),
  alg: fc.constantFrom('Ed25519', 'Ed25519', 'EdDSA'),
});

type Spec = typeof certificateSpec extends fc.Arbitrary<infer T> ? T : never;

/** An unsigned certificate from the spec: facts carry `verified_by` where their entry records a read. */
const unsignedOf = (spec: Spec, chain = chainOf(spec.data, spec.types, spec.firstSeq), carryAll = false) => {
  const seqs = chain.filter((_, index) => carryAll || spec.carried[index] || index === 0).map((entry) => entry.seq);
  const certificate = makeCertificate(chain, { kind: spec.kind, seqs, backupDays: spec.backupDays }) as any;
  for (const fact of certificate.timeline) {
    const details = (chain.find((entry) => entry.seq === fact.seq)!.content.data as any).details;
    if (details?.verified === true && details.helpdesk && details.read_at) fact.verified_by = { helpdesk: details.helpdesk, read_at: details.read_at };
  }
  return certificate as SignedCertificate;
};

const signed = (spec: Spec, document: unknown = unsignedOf(spec)) =>
  signCertificate(document as SignedCertificate, spec.signer === 'retired' ? retired : current, spec.alg);

/** Every path into a JSON value: objects' members and arrays' items, the value itself first. */
const pathsOf = (value: unknown, path: Array<string | number> = []): Array<Array<string | number>> => [
  path,
  ...(Array.isArray(value)
    ? value.flatMap((item, index) => pathsOf(item, [...path, index]))
    : value !== null && typeof value === 'object'
      ? Object.keys(value).flatMap((name) => pathsOf((value as Record<string, unknown>)[name], [...path, name]))
      : []),
];

/** A copy of `document` with the value at `path` replaced by `value` (or removed, for undefined). */
const edited = (document: unknown, path: Array<string | number>, value: unknown): unknown => {
  if (path.length === 0) return value ?? null;
  const copy = structuredClone(document) as any;
  let parent = copy;
  for (const step of path.slice(0, -1)) parent = parent[step];
  const last = path[path.length - 1];
  if (value === undefined && !Array.isArray(parent)) delete parent[last];
  else parent[last] = value === undefined ? null : value;
  return copy;
};

/** How a certificate, its text or the key set is changed before both verifiers see it. */
const tampering = fc.oneof(
  fc.constant({ kind: 'none' as const }),
  // A changed member, signed again or not: re-signed, it tests every check after the signature's.
  fc.record({
    kind: fc.constant('edit' as const),
    // Where: under a member (a path prefix), at most `depth` steps below it, so shallow members are picked as often as deep ones.
    within: fc.constantFrom('', 'chain', 'chain/head', 'chain/entries', 'timeline', 'destruction', 'destruction/backups', 'signature', 'request', 'share', 'organisation', 'format'),
    depth: fc.constantFrom(0, 1, 2, 3, 99),
    at: fc.nat(),
    // What: any JSON, nothing (the member removed), the value at another path (a plausible wrong hash, seq or date), or a nudge (+1, a letter more, negated).
    value: fc.oneof(json, fc.constant(undefined), fc.record({ copyFrom: fc.nat() }), fc.constant({ nudge: true })),
    resign: fc.boolean(),
  }),
  // A forger's certificate: consistent, validly signed, and wrong in what only the later checks see.
  fc.record({
    kind: fc.constant('forge' as const),
    how: fc.constantFrom(
      'relinked entry',
      'entry of another organisation',
      'first entry off the genesis hash',
      'head before an entry',
      'head with another hash',
      'entries out of order',
      'entry unlike its content',
      'stored denied',
      'backup days out of range',
      'restorable until shifted',
      'destruction moved',
      'destruction of an entry not carried',
      'helpdesk read claimed',
      'final as 1',
    ),
    at: fc.nat(),
  }),
  fc.record({
    kind: fc.constant('signature' as const),
    change: fc.oneof(
      fc.record({ alg: fc.constantFrom('EdDSA', 'HS256', 'RS256', 'ed25519', '', null, 5, 'A'.repeat(77), 'A'.repeat(78), 'A'.repeat(79), 'é'.repeat(80)) }),
      fc.record({ kid: fc.constantFrom(stranger.jwk.kid, retired.jwk.kid, '', null, 'kid with spaces\n', 'x'.repeat(120)) }),
      fc.record({ flip: fc.nat() }),
      fc.record({ value: fc.constantFrom('', 'AAAA', '!!!!', null, 'A'.repeat(86), `${'A'.repeat(85)}B`, 'A'.repeat(87)) }),
      fc.constant({ remove: true }),
      fc.constant({ replace: 'not an object' }),
    ),
  }),
  fc.record({
    kind: fc.constant('text' as const),
    change: fc.constantFrom('newline', 'crlf', 'two newlines', 'leading space', 'inner space', 'duplicate member', 'escaped letter', 'bom', 'lone surrogate', 'truncated', 'number spelling'),
  }),
  fc.record({
    kind: fc.constant('keys' as const),
    change: fc.constantFrom('missing', 'rsa alg', 'use enc', 'kid of another key', 'x of another key', 'short x', 'kty EC', 'no keys list', 'listed twice', 'only a stranger', 'not a curve point'),
  }),
);

const changeText = (text: string, change: string) => {
  switch (change) {
    case 'newline':
      return `${text}\n`;
    case 'crlf':
      return `${text}\r\n`;
    case 'two newlines':
      return `${text}\n\n`;
    case 'leading space':
      return ` ${text}`;
    case 'inner space':
      return text.replace('":', '": ');
    case 'duplicate member':
      return `{"final":false,${text.slice(1)}`;
    case 'escaped letter':
      return text.replace('"format":"service', '"format":"\\u0073ervice');
    case 'bom':
      return `\ufeff${text}`;
    case 'lone surrogate':
      return text.replace('"certificate_id":"', '"certificate_id":"\\ud800');
    case 'truncated':
      return text.slice(0, Math.floor(text.length / 2));
    default:
      return text.replace('"views":1', '"views":1.0').replace('"seq":1,', '"seq":1.0,');
  }
};

const changeKeys = (change: string): unknown => {
  const [a, b] = [current.jwk, retired.jwk];
  switch (change) {
    case 'missing':
      return { keys: [b] };
    case 'rsa alg':
      return { keys: [{ ...a, alg: 'RS256' }, b] };
    case 'use enc':
      return { keys: [{ ...a, use: 'enc' }, b] };
    case 'kid of another key':
      return { keys: [{ ...a, kid: b.kid }, { ...b, kid: a.kid }] };
    case 'x of another key':
      return { keys: [{ ...a, x: stranger.jwk.x }, b] };
    case 'short x':
      return { keys: [{ ...a, x: a.x.slice(0, 20) }, { ...b, x: `${b.x.slice(0, -1)}A` }] };
    case 'kty EC':
      return { keys: [{ ...a, kty: 'EC' }, { ...b, crv: 'P-256' }] };
    case 'no keys list':
      return { keys: 'none' };
    case 'listed twice':
      return { keys: [a, a, b] };
    case 'not a curve point':
      return { keys: [NOT_A_POINT, a] };
    default:
      return { keys: [stranger.jwk] };
  }
};

/** The text and key set both verifiers get, after `change`. */
type Tampering = typeof tampering extends fc.Arbitrary<infer T> ? T : never;

/** The unsigned certificate of a forgery (see `tampering`); `at` picks the entry, fact or value it is about. */
const forged = (spec: Spec, how: string, at: number): any => {
  const chain = chainOf(spec.data, spec.types, spec.firstSeq);
  const pick = <T>(items: T[]) => items[at % items.length];
  const rebuilt = (index: number, change: Partial<ChainEntryContent>) => chain.map((entry, i) => (i === index ? entryOf({ ...entry.content, ...change }) : entry));
  switch (how) {
    case 'relinked entry':
      return unsignedOf(spec, rewriteEntry(chain, pick(chain).seq, { note: 'rewritten' }, true), true);
    case 'entry of another organisation':
      return unsignedOf(spec, rebuilt(at % chain.length, { orgId: 'org_other' }), true);
    case 'first entry off the genesis hash':
      return unsignedOf(spec, chainOf(spec.data, spec.types, 1).map((entry, i) => (i === 0 ? entryOf({ ...entry.content, prevHash: 'cd'.repeat(32) }) : entry)), true);
  }
  const certificate = unsignedOf(spec, chain, true) as any;
  const entries = certificate.chain.entries as CertificateChainEntry[];
  const last = entries[entries.length - 1];
  const destruction = certificate.destruction;
  switch (how) {
    case 'head before an entry':
      certificate.chain.head = { seq: last.seq - 1, hash: entries.length > 1 ? entries[entries.length - 2].hash : 'ef'.repeat(32) };
      break;
    case 'head with another hash':
      certificate.chain.head = { seq: last.seq, hash: entries.length > 1 ? entries[0].hash : 'ef'.repeat(32) };
      break;
    case 'entries out of order':
      if (entries.length > 1) [entries[0], entries[1]] = [entries[1], entries[0]];
      break;
    case 'entry unlike its content': {
      const entry = pick(entries);
      const member = pick(['seq', 'type', 'occurred_at', 'prev_hash'] as const);
      (entry as any)[member] = { seq: entry.seq + 100, type: 'request.revoked', occurred_at: '2027-01-01T00:00:00.000Z', prev_hash: 'ef'.repeat(32) }[member];
      break;
    }
    case 'stored denied':
      if (destruction.backups) destruction.ciphertext_stored = false;
      break;
    case 'backup days out of range':
      if (destruction.backups) destruction.backups.point_in_time_recovery_days = pick([36, -1, 1.5, '7', null]);
      break;
    case 'restorable until shifted':
      if (destruction.backups) destruction.backups.ciphertext_restorable_until = pick([null, '2026-01-12T09:00:00.000Z', destruction.at]);
      break;
    case 'destruction moved':
      Object.assign(destruction, { destroyed: true, seq: destruction.seq ?? pick(entries).seq, at: '2027-01-01T00:00:00.000Z' });
      break;
    case 'destruction of an entry not carried':
      Object.assign(destruction, { destroyed: true, seq: last.seq + 1, at: last.occurred_at });
      break;
    case 'helpdesk read claimed':
      pick(certificate.timeline as any[]).verified_by = pick([{ helpdesk: 'zendesk', read_at: '2026-01-05T09:00:00.000Z' }, { read_at: 'x', helpdesk: 'y' }, null]);
      break;
    default:
      certificate.final = pick([1, 'true', null]);
  }
  return certificate;
};

const tampered = (spec: Spec, change: Tampering) => {
  const certificate = signed(spec);
  let document: unknown = certificate;
  let jwks: unknown = JWKS;
  if (change.kind === 'edit') {
    const all = pathsOf(certificate);
    const prefix = change.within === '' ? [] : change.within.split('/');
    const paths = all.filter((path) => prefix.every((step, i) => path[i] === step) && path.length <= prefix.length + change.depth);
    const path = paths.length > 0 ? paths[change.at % paths.length] : [];
    const valueAt = (at: Array<string | number>) => at.reduce((value: any, step) => value[step], certificate);
    const replacement = (value: unknown) => {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
      if ('copyFrom' in value) return structuredClone(valueAt(all[(value.copyFrom as number) % all.length]));
      if (!('nudge' in value)) return value;
      const old = valueAt(path);
      return typeof old === 'number' ? old + 1 : typeof old === 'string' ? `${old}x` : typeof old === 'boolean' ? !old : null;
    };
    document = edited(certificate, path, replacement(change.value));
    // Re-signing needs an object; without the signature it would sign a document the edit removed it from.
    if (change.resign && document !== null && typeof document === 'object' && !Array.isArray(document)) document = signed(spec, document);
  } else if (change.kind === 'forge') {
    document = signed(spec, forged(spec, change.how, change.at));
  } else if (change.kind === 'signature') {
    const signature = { ...certificate.signature } as Record<string, unknown>;
    const c = change.change as Record<string, unknown>;
    if ('alg' in c) signature.alg = c.alg;
    if ('kid' in c) signature.kid = c.kid;
    if ('value' in c) signature.value = c.value;
    if ('flip' in c) {
      const value = certificate.signature.value;
      const at = (c.flip as number) % value.length;
      signature.value = `${value.slice(0, at)}${value[at] === 'A' ? 'B' : 'A'}${value.slice(at + 1)}`;
    }
    document = 'remove' in c ? edited(certificate, ['signature'], undefined) : { ...certificate, signature: 'replace' in c ? c.replace : signature };
  } else if (change.kind === 'keys') {
    jwks = changeKeys(change.change);
    if (change.change === 'not a curve point') document = { ...certificate, signature: { ...certificate.signature, kid: NOT_A_POINT.kid } };
  }
  let text = canonicalJson(document);
  if (change.kind === 'text') text = changeText(text, change.change);
  return { text, jwks };
};

describe('the same verdict as the service\'s verifier', () => {
  test('on generated certificates, genuine and tampered with: the same summary or the same reason', async () => {
    const verdicts = new Set<string>();
    await fc.assert(
      fc.asyncProperty(certificateSpec, tampering, async (spec, change) => {
        const { text, jwks } = tampered(spec, change);
        const library = said(await verifyCertificateText(text, jwks as Jwks));
        expect(said(standalone.verifyCertificateText(text, jwks))).toBe(library);
        verdicts.add(library);
      }),
      { numRuns: 4000 },
    );
    // The run reached every check: valid certificates (current and retired key) and failures of each kind.
    const seen = [...verdicts].join('\n');
    for (const expected of [
      /^valid: request .*\(Ed25519\)$/m,
      /^valid: share .*\(EdDSA\)$/m,
      /^valid: .*, a key retired at /m,
      /^invalid: not JSON/m,
      /^invalid: the file is not the canonical JSON/m,
      /^invalid: the certificate has no canonical JSON form/m,
      /^invalid: signature does not verify/m,
      /^invalid: signature algorithm/m,
      /^invalid: no published key has kid/m,
      /^invalid: the signature value is not a base64url/m,
      /^invalid: key .* has thumbprint/m,
      /^invalid: key .* is published for/m,
      /^invalid: entry \d+: hash does not match/m,
      /^invalid: timeline fact/m,
      /^invalid: destruction/m,
      /^invalid: entry \d+: prev_hash does not match/m,
      /^invalid: entry \d+: content\.orgId/m,
      /^invalid: entry 1: the organisation's first entry must link to the genesis hash/m,
      /^invalid: entry \d+: beyond the chain head/m,
      /^invalid: entry \d+: hash is not the chain head's hash/m,
      /^invalid: entry \d+: listed after entry/m,
      /^invalid: entry \d+: content\.prevHash/m,
      /^invalid: destruction: ciphertext_stored is false, but entry/m,
      /^invalid: destruction: at .*, but entry \d+ occurred at/m,
      /^invalid: destruction: names seq \d+, which the certificate does not carry/m,
      /^invalid: destruction: entry \d+ \("request\.relinked"\) follows the destruction it names/m,
      /^invalid: destruction: backups\.point_in_time_recovery_days/m,
      /^invalid: destruction: backups\.ciphertext_restorable_until/m,
      /^invalid: timeline fact \d+ .*: says the helpdesk verified it/m,
      /^valid: .*\(not final\)/m,
    ]) {
      expect(seen).toMatch(expected);
    }
  }, 120_000);

  test('a retired key still verifies, and the summary says so in both', async () => {
    const spec = fc.sample(certificateSpec, { numRuns: 1, seed: 7 })[0];
    const text = canonicalJson(signed({ ...spec, signer: 'retired' }));
    const library = said(await verifyCertificateText(text, JWKS));
    expect(library).toContain(', a key retired at 2026-02-01T00:00:00.000Z)');
    expect(said(standalone.verifyCertificateText(text, JWKS))).toBe(library);
  });

  test('key sets: the same keys kept, or the same reason refused', () => {
    const sets = [
      JWKS,
      { keys: [{ ...current.jwk, extra: 'dropped', retired_at: null }] },
      { keys: [{ kty: 'RSA', n: 'x', e: 'AQAB', kid: 'r1' }] },
      { keys: [{ ...current.jwk, x: 'AAAA' }] },
      { keys: [{ ...current.jwk, kid: '' }] },
      { keys: [{ ...current.jwk, alg: 5 }] },
      { keys: [{ ...current.jwk, created_at: 5 }] },
      { keys: [{ ...current.jwk, use: 'enc' }] },
      { keys: [null] },
      { keys: {} },
      [],
      null,
    ];
    for (const set of sets) expect(thrown(() => standalone.parseJwks(set))).toEqual(thrown(() => parseJwks(set)));
  });

  test('agreement between certificates: the same summary or the same reason', () => {
    const spec = fc.record({
      length: fc.integer({ min: 3, max: 12 }),
      picks: fc.array(fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }), { minLength: 2, maxLength: 4 }),
      heads: fc.array(fc.nat(), { minLength: 4, maxLength: 4 }),
      rewrite: fc.option(fc.record({ at: fc.nat(), rehash: fc.boolean(), which: fc.nat() }), { nil: undefined }),
      otherOrganisation: fc.option(fc.nat(), { nil: undefined }),
    });
    fc.assert(
      fc.property(spec, ({ length, picks, heads, rewrite, otherOrganisation }) => {
        const chain = chainOf(Array.from({ length }, (_, i) => ({ step: i })), Array.from({ length }, (_, i) => i), 1);
        const rewritten = rewrite ? rewriteEntry(chain, (rewrite.at % length) + 1, { note: 'rewritten' }, rewrite.rehash) : chain;
        const certificates = picks.map((pick, index) => {
          const source = rewrite && rewrite.which % picks.length === index ? rewritten : chain;
          const seqs = source.filter((_, i) => pick[i]).map((entry) => entry.seq);
          const last = source[Math.max(...seqs, 1) - 1 + (heads[index] % (length - Math.max(...seqs, 1) + 1))];
          const certificate = makeCertificate(source, { seqs, head: { seq: last.seq, hash: last.hash }, certificateId: `cert_${index}` }) as any;
          if (otherOrganisation !== undefined && otherOrganisation % picks.length === index) {
            certificate.chain.organisation_id = 'org_other';
            certificate.organisation = { id: 'org_other', name: 'Other' };
          }
          return certificate as SignedCertificate;
        });
        expect(said(standalone.verifyAgreement(certificates))).toBe(said(verifyAgreement(certificates)));
      }),
      { numRuns: 500 },
    );
  });
});

describe('the certificate a PDF embeds', () => {
  /** A PDF made by pdfkit's Node build (no certificate renderer involved). */
  const pdfWith = (attach: Array<{ name: string; body: string }>, compress = true) =>
    new Promise<Buffer>((resolve) => {
      const doc = new PDFDocument({ compress, info: { CreationDate: new Date('2026-01-01T00:00:00Z') } });
      const chunks: Buffer[] = [];
      doc.on('data', (chunk: Buffer) => chunks.push(chunk));
      doc.on('end', () => resolve(Buffer.concat(chunks)));
      for (const file of attach) doc.file(Buffer.from(file.body, 'utf8'), { name: file.name, type: 'application/json' });
      doc.text('Not a certificate');
      doc.end();
    });

  /** A hand-written PDF whose file specification sits in a compressed object stream, as re-saving viewers write. */
  const objectStreamPdf = (body: string, encrypted = false) => {
    const packed = Buffer.from('2 0 << /Type /Filespec /F (packed.json) /EF << /F 3 0 R >> >>', 'latin1');
    const deflated = deflateSync(packed);
    return Buffer.concat([
      Buffer.from(`%PDF-1.7\n1 0 obj\n<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length ${deflated.length} >>\nstream\n`, 'latin1'),
      deflated,
      Buffer.from(`\nendstream\nendobj\n3 0 obj\n<< /Type /EmbeddedFile /Length ${Buffer.byteLength(body)} >>\nstream\n`, 'latin1'),
      Buffer.from(body, 'utf8'),
      Buffer.from(`\nendstream\nendobj\ntrailer\n<< /Size 4 ${encrypted ? '/Encrypt 9 0 R ' : ''}>>\n%%EOF\n`, 'latin1'),
    ]);
  };

  test('the service\'s PDF: the same embedded text, which verifies', async () => {
    const spec = fc.sample(certificateSpec, { numRuns: 1, seed: 11 })[0];
    const certificate = signed({ ...spec, signer: 'current', kind: 'request' });
    const text = canonicalJson(certificate);
    const pdf = await renderCertificatePdf(certificate, text);
    expect(standalone.extractEmbeddedCertificate(pdf)).toBe(extractEmbeddedCertificate(pdf));
    expect(standalone.extractEmbeddedCertificate(pdf)).toBe(text);
    expect(said(standalone.verifyCertificateText(standalone.extractEmbeddedCertificate(pdf), JWKS))).toMatch(/^valid: request /);
  });

  test('other PDFs: the same text or the same reason', async () => {
    const uncompressed = await pdfWith([{ name: 'c.json', body: '{"name":"Grüße"}' }], false);
    const damaged = Buffer.from(uncompressed);
    damaged.write('"nome"', damaged.indexOf('"name"'), 'latin1');
    const pdfs = [
      await pdfWith([]),
      await pdfWith([{ name: 'notes.txt', body: 'hello' }]),
      await pdfWith([{ name: 'a.json', body: '{"a":1}' }, { name: 'b.json', body: '{"b":2}' }]),
      await pdfWith([{ name: 'only.JSON', body: '{"c":3}' }]),
      uncompressed,
      damaged,
      objectStreamPdf('{"packed":true}'),
      objectStreamPdf('{"packed":true}', true),
      Buffer.from('{"format":"service-custody/v1"}'),
      new Uint8Array(),
    ];
    const outcomes = pdfs.map((pdf) => thrown(() => standalone.extractEmbeddedCertificate(pdf)));
    expect(outcomes).toEqual(pdfs.map((pdf) => thrown(() => extractEmbeddedCertificate(pdf))));
    // Each case says something of its own: the comparison above is not of ten identical failures.
    expect(outcomes.map((outcome) => outcome.value ?? outcome.error)).toEqual([
      expect.stringMatching(/no embedded certificate: no \.json file is attached$/),
      expect.stringMatching(/no embedded certificate.*notes\.txt/),
      expect.stringMatching(/2 embedded \.json files/),
      '{"c":3}',
      '{"name":"Grüße"}',
      expect.stringMatching(/damaged/),
      '{"packed":true}',
      expect.stringMatching(/encrypted/),
      expect.stringMatching(/^Not a PDF/),
      expect.stringMatching(/^Not a PDF/),
    ]);
  });
});

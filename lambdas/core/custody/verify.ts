/**
 * Offline verification of custody certificates (`service-custody/v1`, document.ts).
 *
 * This is the library entry: the browser's Verify page and programs call it. It must stay
 * browser-safe: WebCrypto only, no Node imports, no Buffer. The `verify-custody-certificate`
 * command is tools/verify-custody-certificate.mjs, a dependency-free single file auditors read and
 * run with `node`; it makes these same checks with the same reasons, which its tests hold it to
 * (test/unit/standalone-verifier-verdicts.test.ts): a change here must be made there too.
 *
 * A certificate is trusted only as far as its checks reach, so each check stops at the first
 * failure with a reason that names where it failed. Values from the document are quoted with
 * JSON.stringify in reasons, so a crafted document cannot put control characters on a terminal.
 */
import { base64urlToBytes } from './base64url.ts';
import { canonicalJson } from './canonical.ts';
import { signedBody, signingInput } from './signing-input.ts';
import {
  ACCEPTED_ALGORITHMS,
  CERTIFICATE_FORMAT,
  GENESIS_HASH,
  type CertificateChainEntry,
  type Jwks,
  type PublicJwk,
  type SignedCertificate,
} from './document.ts';
import { jwkThumbprint, type Ed25519PublicJwk } from './thumbprint.ts';
import { DESTRUCTION_SCOPE, isStatedRecoveryDays, MAX_RECOVERY_DAYS, restorableUntil } from './backups.ts';
import { RELINKED, STORING_TYPES, verifiedBy } from './custody-facts.ts';

export type VerifyOutcome =
  | { ok: true; certificate: SignedCertificate; key: PublicJwk; summary: string }
  | { ok: false; reason: string };

export type AgreementOutcome = { ok: true; shared: number; summary: string } | { ok: false; reason: string };

type Json = Record<string, any>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const isSeq = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 1;
const HEX_SHA256 = /^[0-9a-f]{64}$/;
const fail = (reason: string) => ({ ok: false as const, reason });

/**
 * A running function signs with the key it read for up to a minute after a rotation; the rest
 * allows for the clocks of the machine that rotated and the functions that sign.
 */
export const RETIRED_KEY_GRACE_MINUTES = 5;

/**
 * Why a retired key cannot have signed this certificate, or null: a key signs no certificate issued
 * after it retired (beyond the grace), so a retired key that leaks cannot vouch for new ones dated
 * as they are.
 */
const signedAfterRetirement = (key: PublicJwk, kid: string, issuedAt: unknown): string | null => {
  if (typeof key.retired_at !== 'string') return null;
  const retired = Date.parse(key.retired_at);
  const issued = typeof issuedAt === 'string' ? Date.parse(issuedAt) : Number.NaN;
  if (Number.isNaN(issued)) return `issued_at ${quote(issuedAt)} is not a date, so whether key ${plain(kid)} signed it before it retired cannot be told`;
  if (issued > retired + RETIRED_KEY_GRACE_MINUTES * 60_000) {
    return `key ${plain(kid)} retired at ${plain(key.retired_at)}, more than ${RETIRED_KEY_GRACE_MINUTES} minutes before this certificate's issued_at ${plain(issuedAt)}: a retired key signs no new certificates`;
  }
  return null;
};

/** A value from the document, quoted and cut short for a one-line reason. */
const quote = (value: unknown) => {
  const text = value === undefined ? 'nothing' : JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
};

/** Identifiers print bare when they are plain, quoted otherwise (so a summary stays one line). */
const plain = (value: unknown) => (typeof value === 'string' && /^[\w.:@-]{1,100}$/.test(value) ? value : quote(value));

const utf8 = (text: string) => new TextEncoder().encode(text);

/** Lower-case hex SHA-256 of a string's UTF-8, as the audit chain hashes entries. */
export const sha256Hex = async (text: string): Promise<string> => {
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', utf8(text)));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
};

/**
 * The one signature primitive: WebCrypto Ed25519 with the key imported as a JWK. Only the key
 * material is passed to importKey: a published `alg` of `EdDSA` or `Ed25519` is checked by the
 * caller, not left for each WebCrypto implementation to accept or refuse.
 */
export const ed25519Verify = async (jwk: Ed25519PublicJwk, message: Uint8Array, signature: Uint8Array): Promise<boolean> => {
  const subtle = globalThis.crypto.subtle;
  const key = await subtle.importKey('jwk', { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, { name: 'Ed25519' }, false, ['verify']);
  return subtle.verify({ name: 'Ed25519' }, key, signature as Uint8Array<ArrayBuffer>, message as Uint8Array<ArrayBuffer>);
};

/**
 * The published key a signature names. Its RFC 7638 thumbprint must equal the kid: the kid is
 * outside the signed bytes, and a key set could list a key under another key's kid, so the
 * thumbprint ties the name to the key material.
 */
const keyNamed = async (kid: string, jwks: Jwks): Promise<{ ok: true; key: PublicJwk } | { ok: false; reason: string }> => {
  if (!isObject(jwks) || !Array.isArray(jwks.keys)) return fail('the key set (JWKS) has no "keys" list');
  const key = jwks.keys.find((candidate) => isObject(candidate) && candidate.kid === kid);
  if (!key) return fail(`no published key has kid ${plain(kid)}`);
  if (key.kty !== 'OKP' || key.crv !== 'Ed25519') return fail(`key ${plain(kid)} is not an Ed25519 key (kty ${quote(key.kty)}, crv ${quote(key.crv)})`);
  if (typeof key.x !== 'string' || base64urlToBytes(key.x)?.length !== 32) return fail(`key ${plain(kid)}: x is not a base64url 32-byte public key`);
  if (key.alg !== undefined && !(ACCEPTED_ALGORITHMS as readonly unknown[]).includes(key.alg)) {
    return fail(`key ${plain(kid)} is published for algorithm ${quote(key.alg)}, not Ed25519`);
  }
  if (key.use !== undefined && key.use !== 'sig') return fail(`key ${plain(kid)} is published for use ${quote(key.use)}, not signing`);
  const thumbprint = await jwkThumbprint(key);
  if (thumbprint !== kid) return fail(`key ${plain(kid)} has thumbprint ${thumbprint}: the kid does not name this key`);
  return { ok: true, key };
};

/** Where the entry fields and the hashed content must say the same thing. */
const MIRRORED = [
  ['seq', 'seq'],
  ['type', 'type'],
  ['occurred_at', 'occurredAt'],
  ['prev_hash', 'prevHash'],
] as const;

const entryShapeProblem = (entry: unknown): string | null => {
  if (!isObject(entry)) return 'not an object';
  if (!isSeq(entry.seq)) return `seq ${quote(entry.seq)} is not a sequence number`;
  if (typeof entry.type !== 'string' || typeof entry.occurred_at !== 'string') return 'type and occurred_at must be strings';
  if (typeof entry.hash !== 'string' || !HEX_SHA256.test(entry.hash)) return 'hash is not a lower-case hex SHA-256';
  if (typeof entry.prev_hash !== 'string' || !HEX_SHA256.test(entry.prev_hash)) return 'prev_hash is not a lower-case hex SHA-256';
  if (!isObject(entry.content)) return 'content is not an object';
  return null;
};

/**
 * The chain behind the certificate: each entry's hash is its content's, the entry mirrors its
 * content, consecutive entries link, nothing lies beyond the head, and every fact names an entry
 * carried here. Returns the entries by seq, or the first problem.
 */
const chainProblem = async (doc: Json): Promise<string | Map<number, CertificateChainEntry>> => {
  const organisationId = doc.organisation.id;
  const chain = doc.chain;
  if (!isObject(chain)) return 'the certificate has no chain';
  if (chain.organisation_id !== organisationId) {
    return `chain.organisation_id ${quote(chain.organisation_id)} is not the organisation's id ${quote(organisationId)}`;
  }
  const head = chain.head;
  if (!isObject(head) || !Number.isSafeInteger(head.seq) || head.seq < 0 || typeof head.hash !== 'string' || !HEX_SHA256.test(head.hash)) {
    return 'chain.head is not a sequence number with a hex SHA-256 hash';
  }
  if (!Array.isArray(chain.entries)) return 'chain.entries is not a list';

  const bySeq = new Map<number, CertificateChainEntry>();
  let previous: CertificateChainEntry | undefined;
  for (const [index, entry] of chain.entries.entries()) {
    const shape = entryShapeProblem(entry);
    if (shape) return `chain.entries[${index}]: ${shape}`;
    const where = `entry ${entry.seq}`;
    if (previous && entry.seq <= previous.seq) return `${where}: listed after entry ${previous.seq} (entries must ascend by seq)`;
    if ((await sha256Hex(canonicalJson(entry.content))) !== entry.hash) return `${where}: hash does not match its content`;
    for (const [member, contentMember] of MIRRORED) {
      if (entry.content[contentMember] !== entry[member]) {
        return `${where}: content.${contentMember} ${quote(entry.content[contentMember])} differs from the entry's ${member} ${quote(entry[member])}`;
      }
    }
    if (entry.content.orgId !== organisationId) return `${where}: content.orgId ${quote(entry.content.orgId)} is not the organisation ${quote(organisationId)}`;
    if (entry.seq === 1 && entry.prev_hash !== GENESIS_HASH) return `${where}: the organisation's first entry must link to the genesis hash (64 zeros)`;
    if (previous?.seq === entry.seq - 1 && entry.prev_hash !== previous.hash) {
      return `${where}: prev_hash does not match entry ${previous.seq}'s hash (the chain does not link)`;
    }
    if (entry.seq > head.seq) return `${where}: beyond the chain head (seq ${head.seq})`;
    if (entry.seq === head.seq && entry.hash !== head.hash) return `${where}: hash is not the chain head's hash`;
    bySeq.set(entry.seq, entry);
    previous = entry;
  }
  return bySeq;
};

/** Every timeline fact and the destruction fact name an entry carried here, and say what it says. */
const factsProblem = (doc: Json, bySeq: Map<number, CertificateChainEntry>): string | null => {
  if (!Array.isArray(doc.timeline)) return 'timeline is not a list';
  for (const [index, fact] of doc.timeline.entries()) {
    const where = `timeline fact ${index + 1}${isObject(fact) && typeof fact.event === 'string' ? ` (${quote(fact.event)})` : ''}`;
    if (!isObject(fact) || !isSeq(fact.seq)) return `${where}: names no chain entry (seq)`;
    const entry = bySeq.get(fact.seq);
    if (!entry) return `${where}: names seq ${fact.seq}, which the certificate does not carry`;
    if (fact.type !== entry.type) return `${where}: type ${quote(fact.type)}, but entry ${entry.seq} is ${quote(entry.type)}`;
    if (fact.at !== entry.occurred_at) return `${where}: at ${quote(fact.at)}, but entry ${entry.seq} occurred at ${quote(entry.occurred_at)}`;
    // A fact that claims a helpdesk confirmed it must be backed by the entry's own details.
    if (fact.verified_by !== undefined && JSON.stringify(fact.verified_by) !== JSON.stringify(verifiedBy(entry.content))) {
      return `${where}: says the helpdesk verified it, but entry ${entry.seq} records no such read`;
    }
  }
  const destruction = doc.destruction;
  if (!isObject(destruction)) return 'the certificate has no destruction member';
  if (destruction.seq !== null) {
    if (!isSeq(destruction.seq)) return `destruction.seq ${quote(destruction.seq)} is neither a sequence number nor null`;
    const entry = bySeq.get(destruction.seq);
    if (!entry) return `destruction: names seq ${destruction.seq}, which the certificate does not carry`;
    if (destruction.at !== entry.occurred_at) return `destruction: at ${quote(destruction.at)}, but entry ${entry.seq} occurred at ${quote(entry.occurred_at)}`;
    // A new link after it began the request's custody again: the destruction named is no longer the last word on it.
    const restarted = [...bySeq.values()].find((later) => later.seq > entry.seq && later.type === RELINKED);
    if (restarted) return `destruction: entry ${restarted.seq} (${quote(restarted.type)}) follows the destruction it names, entry ${entry.seq}`;
  }
  return coverageProblem(destruction, bySeq);
};

/**
 * What the destruction says it covers (backups.ts): a claim that no ciphertext was ever stored must
 * not meet the entry that stored one, and the date until which backups can restore the ciphertext
 * must follow from the destruction's time (checked against its entry above) and the stated
 * recovery days. Certificates issued before these members were stated have none of them.
 */
const coverageProblem = (destruction: Json, bySeq: Map<number, CertificateChainEntry>): string | null => {
  const { scope, ciphertext_stored: stored, backups } = destruction;
  if (scope === undefined && stored === undefined && backups === undefined) return null;
  if (scope !== DESTRUCTION_SCOPE) return `destruction: scope ${quote(scope)} is not "${DESTRUCTION_SCOPE}"`;
  if (typeof stored !== 'boolean') return `destruction: ciphertext_stored ${quote(stored)} is not true or false`;
  const storing = stored ? undefined : [...bySeq.values()].find((entry) => STORING_TYPES.has(entry.type));
  if (storing) return `destruction: ciphertext_stored is false, but entry ${storing.seq} (${quote(storing.type)}) stored the ciphertext`;
  if (!isObject(backups)) return 'destruction: backups is not an object';
  const days = backups.point_in_time_recovery_days;
  if (!isStatedRecoveryDays(days)) return `destruction: backups.point_in_time_recovery_days ${quote(days)} is not a whole number of days from 0 to ${MAX_RECOVERY_DAYS}`;
  const destroyed = destruction.destroyed === true;
  const expected = restorableUntil(destroyed && typeof destruction.at === 'string' ? destruction.at : null, stored, days);
  const until = backups.ciphertext_restorable_until;
  if (until === expected) return null;
  const why =
    expected !== null
      ? `the destruction plus ${days} ${days === 1 ? 'day' : 'days'} of point-in-time recovery`
      : !destroyed
        ? 'nothing was destroyed'
        : !stored
          ? 'no ciphertext was stored'
          : days === 0
            ? 'no point-in-time recovery'
            : 'the destruction has no time';
  return `destruction: backups.ciphertext_restorable_until ${quote(until)} is not ${quote(expected)} (${why})`;
};

/** What the certificate is about, for the summary; null when the subject is missing. */
const subjectOf = (doc: Json): string | null => {
  if (doc.subject_kind === 'request' && isObject(doc.request) && typeof doc.request.id === 'string') return `request ${plain(doc.request.id)}`;
  if (doc.subject_kind === 'share' && isObject(doc.share) && typeof doc.share.id === 'string') return `share ${plain(doc.share.id)}`;
  return null;
};

/**
 * Verify one certificate against a key set. Checks, in order: the format; the signature's alg,
 * kid and value; the named key (Ed25519, thumbprint = kid); the signature over the signing input
 * (signing-input.ts: the SHA-256 of JCS(document without `signature`)); then the chain, the facts, and what the destruction says it covers. A retired key still verifies
 * what it signed before it retired (certificates must verify for years after a rotation); the summary says it was retired.
 */
export const verifyCertificate = async (document: unknown, jwks: Jwks): Promise<VerifyOutcome> => {
  if (!isObject(document)) return fail('not a custody certificate: not a JSON object');
  if (document.format !== CERTIFICATE_FORMAT) return fail(`not a custody certificate: format is ${quote(document.format)}, expected "${CERTIFICATE_FORMAT}"`);
  const signature = document.signature;
  if (!isObject(signature)) return fail('the certificate has no signature');
  if (!(ACCEPTED_ALGORITHMS as readonly unknown[]).includes(signature.alg)) {
    return fail(`signature algorithm ${quote(signature.alg)} is not accepted (${ACCEPTED_ALGORITHMS.join(' or ')})`);
  }
  if (typeof signature.kid !== 'string' || signature.kid === '') return fail('the signature names no key (kid)');
  if (typeof signature.value !== 'string') return fail('the signature has no value');
  const kid: string = signature.kid;

  const named = await keyNamed(kid, jwks);
  if (!named.ok) return named;
  const signatureBytes = base64urlToBytes(signature.value);
  if (signatureBytes?.length !== 64) return fail('the signature value is not a base64url Ed25519 signature (64 bytes)');
  let message: Uint8Array;
  try {
    message = utf8(signingInput(await sha256Hex(signedBody(document))));
  } catch (error) {
    return fail(`the certificate has no canonical JSON form: ${(error as Error).message}`);
  }
  let verified: boolean;
  try {
    verified = await ed25519Verify(named.key, message, signatureBytes);
  } catch (error) {
    return fail(`key ${plain(kid)} cannot be used for Ed25519: ${(error as Error).message}`);
  }
  if (!verified) return fail(`signature does not verify with key ${plain(kid)}`);
  const late = signedAfterRetirement(named.key, kid, document.issued_at);
  if (late) return fail(late);

  // Signed, so the issuer wrote it; what follows checks it against the chain it quotes.
  if (!isObject(document.organisation) || typeof document.organisation.id !== 'string') return fail('the certificate names no organisation id');
  const subject = subjectOf(document);
  if (!subject) return fail('the certificate names no request or share (subject_kind and its id)');
  const chain = await chainProblem(document);
  if (typeof chain === 'string') return fail(chain);
  const facts = factsProblem(document, chain);
  if (facts) return fail(facts);

  const key = named.key;
  const retired = typeof key.retired_at === 'string' ? `, a key retired at ${plain(key.retired_at)}` : '';
  const summary =
    `valid: ${subject} of organisation ${quote(document.organisation.name)} (${document.final === true ? 'final' : 'not final'}), ` +
    `${chain.size} chain ${chain.size === 1 ? 'entry' : 'entries'} up to seq ${document.chain.head.seq}, ` +
    `signed by ${kid} (${signature.alg}${retired})`;
  return { ok: true, certificate: document as SignedCertificate, key, summary };
};

/**
 * Verify a certificate file as its bytes were served: the service answers the RFC 8785 canonical
 * JSON of the signed document, so the text must be exactly that (a final line break aside, which
 * editors add). This refuses what a parser would let through unseen: a duplicate member (which a
 * reader and JSON.parse may resolve differently), a number or string spelled another way, added
 * whitespace. Then verifyCertificate. The command and the app's Verify page both call this.
 */
export const verifyCertificateText = async (text: string, jwks: Jwks): Promise<VerifyOutcome> => {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    return fail(`not JSON (${(error as Error).message})`);
  }
  let canonical: string;
  try {
    canonical = canonicalJson(document);
  } catch (error) {
    return fail(`the certificate has no canonical JSON form: ${(error as Error).message}`);
  }
  if (text.replace(/\r?\n$/, '') !== canonical) {
    return fail('the file is not the canonical JSON the service issued (a member, number, string or space was changed or added)');
  }
  return verifyCertificate(document, jwks);
};

/**
 * Whether certificates tell one story of their organisation's chain. Call it on certificates that
 * each passed verifyCertificate. Within one organisation: every seq that two certificates speak
 * of (an entry, or a chain head) has one hash; entries at one seq have one prev_hash; and an
 * entry at n+1 links to the hash any certificate gives for n.
 *
 * Certificates of different organisations sit on separate chains, which cannot contradict each
 * other: that is ok, with `shared` 0 and a summary saying nothing was compared, rather than a
 * failure, so a set of unrelated valid certificates still verifies.
 * `shared` counts the seqs at which two or more certificates carry an entry.
 */
export const verifyAgreement = (certificates: SignedCertificate[]): AgreementOutcome => {
  const byOrganisation = new Map<string, Array<{ certificate: SignedCertificate; index: number }>>();
  for (const [index, certificate] of certificates.entries()) {
    if (!isObject(certificate) || !isObject(certificate.chain) || !Array.isArray(certificate.chain.entries)) return fail(`certificate ${index + 1}: no chain`);
    const group = byOrganisation.get(certificate.chain.organisation_id) ?? [];
    group.push({ certificate, index });
    byOrganisation.set(certificate.chain.organisation_id, group);
  }
  let shared = 0;
  const lines: string[] = [];
  for (const group of byOrganisation.values()) {
    if (group.length < 2) continue;
    const outcome = groupAgreement(group);
    if (!outcome.ok) return outcome;
    shared += outcome.shared;
    const name = quote(group[0].certificate.organisation?.name);
    lines.push(`${group.length} certificates of organisation ${name} agree on ${outcome.shared} shared chain ${outcome.shared === 1 ? 'entry' : 'entries'} and ${outcome.links} ${outcome.links === 1 ? 'link' : 'links'} between them`);
  }
  if (lines.length === 0) {
    const reason = certificates.length < 2 ? 'fewer than two certificates' : `${certificates.length} certificates of ${byOrganisation.size} different organisations, whose chains are separate`;
    return { ok: true, shared: 0, summary: `agreement: nothing shared to compare (${reason})` };
  }
  const apart = certificates.length - [...byOrganisation.values()].filter((group) => group.length > 1).reduce((sum, group) => sum + group.length, 0);
  if (apart > 0) lines.push(`${apart} of ${apart === 1 ? 'another organisation shares' : 'other organisations share'} nothing with them`);
  return { ok: true, shared, summary: `agreement: ${lines.join('; ')}` };
};

interface Claim {
  value: string;
  /** Which certificate, for counting what is shared between certificates. */
  index: number;
  where: string;
}

/** One organisation's certificates against each other: see verifyAgreement. */
const groupAgreement = (group: Array<{ certificate: SignedCertificate; index: number }>) => {
  const hashes = new Map<number, Claim[]>();
  const prevHashes = new Map<number, Claim[]>();
  const add = (map: Map<number, Claim[]>, seq: number, claim: Claim) => map.set(seq, [...(map.get(seq) ?? []), claim]);
  for (const { certificate, index } of group) {
    const name = `certificate ${index + 1} (${plain(certificate.certificate_id)})`;
    for (const entry of certificate.chain.entries) {
      add(hashes, entry.seq, { value: entry.hash, index, where: `${name} entry ${entry.seq}` });
      add(prevHashes, entry.seq, { value: entry.prev_hash, index, where: `${name} entry ${entry.seq}` });
    }
    const head = certificate.chain.head;
    add(hashes, head.seq, { value: head.hash, index, where: `${name} chain head (seq ${head.seq})` });
  }

  for (const [seq, claims] of hashes) {
    const other = claims.find((claim) => claim.value !== claims[0].value);
    if (other) return fail(`certificates disagree on seq ${seq}: ${claims[0].where} has hash ${claims[0].value}, ${other.where} has ${other.value}`);
  }
  for (const [seq, claims] of prevHashes) {
    const other = claims.find((claim) => claim.value !== claims[0].value);
    if (other) return fail(`certificates disagree on entry ${seq}: ${claims[0].where} has prev_hash ${claims[0].value}, ${other.where} has ${other.value}`);
  }
  let links = 0;
  for (const [seq, claims] of prevHashes) {
    const before = hashes.get(seq - 1);
    if (!before) continue;
    // Hashes at seq - 1 all agree (checked above), so the first one stands for them all.
    if (claims[0].value !== before[0].value) {
      return fail(`certificates do not link: ${claims[0].where} has prev_hash ${claims[0].value}, but ${before[0].where} has hash ${before[0].value}`);
    }
    // A link between certificates: one holds entry n+1 but not n, and another holds n (entry or head).
    if (claims.some((claim) => !before.some((hash) => hash.index === claim.index))) links += 1;
  }
  let shared = 0;
  for (const claims of prevHashes.values()) if (new Set(claims.map((claim) => claim.index)).size > 1) shared += 1;
  return { ok: true as const, shared, links };
};

/** A key set as fetched or read: checked member by member, so a bad one fails with a reason. */
export const parseJwks = (value: unknown): Jwks => {
  if (!isObject(value) || !Array.isArray(value.keys)) throw new Error('not a JWKS: expected an object with a "keys" list');
  const keys = value.keys.map((key: unknown, index: number): PublicJwk => {
    const where = `JWKS key ${index + 1}`;
    if (!isObject(key)) throw new Error(`${where}: not an object`);
    if (key.kty !== 'OKP' || key.crv !== 'Ed25519') throw new Error(`${where}: not an Ed25519 key (kty ${quote(key.kty)}, crv ${quote(key.crv)})`);
    if (typeof key.x !== 'string' || base64urlToBytes(key.x)?.length !== 32) throw new Error(`${where}: x is not a base64url 32-byte public key`);
    if (typeof key.kid !== 'string' || key.kid === '') throw new Error(`${where}: no kid`);
    if (key.alg !== undefined && typeof key.alg !== 'string') throw new Error(`${where}: alg is not a string`);
    // A null date is read as absent (the current key has no retired_at): not worth failing a whole key set over.
    for (const member of ['retired_at', 'created_at'] as const) {
      if (key[member] !== undefined && key[member] !== null && typeof key[member] !== 'string') throw new Error(`${where}: ${member} is not a string`);
    }
    if (key.use !== undefined && key.use !== 'sig') throw new Error(`${where}: use ${quote(key.use)} is not "sig"`);
    // Only the members the document defines; anything else a key set carries is not ours to pass on.
    return {
      kty: 'OKP',
      crv: 'Ed25519',
      x: key.x,
      kid: key.kid,
      ...(key.alg !== undefined && { alg: key.alg }),
      ...(key.use !== undefined && { use: key.use }),
      ...(typeof key.retired_at === 'string' && { retired_at: key.retired_at }),
      ...(typeof key.created_at === 'string' && { created_at: key.created_at }),
    };
  });
  return { keys };
};

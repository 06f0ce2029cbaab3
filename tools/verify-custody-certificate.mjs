#!/usr/bin/env node
/**
 * verify-custody-certificate: checks custody certificates (format `service-custody/v1`) of the
 * Credential Handoff Service with Node.js 20 or later and this file alone.
 *
 *   node verify-custody-certificate.mjs --jwks jwks.json certificate.json
 *   node verify-custody-certificate.mjs --jwks jwks.json certificate.pdf      (the JSON it embeds)
 *   node verify-custody-certificate.mjs --jwks jwks.json a.json b.json        (and that they agree)
 *
 * Why one file with no dependencies: whoever checks a certificate should be able to read all the
 * code that decides "valid", compare the file's SHA-256 with the one the service's README
 * publishes, and run it without installing anything. It imports only Node's built-in `node:`
 * modules, so neither a package registry nor the service's own code is trusted.
 *
 * WHAT IS SIGNED. A certificate is a JSON document, served as its RFC 8785 (JCS) canonical text.
 *   digest       = lower-case hex SHA-256 of the UTF-8 of JCS(the document without its `signature` member)
 *   signed bytes = the UTF-8 of {"document_sha256":"<digest>","format":"service-custody/v1"}
 *                  (itself JCS; a short statement of the digest, because the service's signing
 *                  key, in AWS KMS, signs messages of at most 4 KB)
 *   signature    = { alg: "Ed25519" (RFC 9864; "EdDSA" is accepted too),
 *                    kid: the RFC 7638 thumbprint of the signing key's public JWK,
 *                    value: the 64-byte Ed25519 signature over the signed bytes, base64url
 *                           (RFC 4648 section 5) without padding }
 *
 * WHAT IS CHECKED, in order; the first failure is the answer, with its reason:
 *   1. the file is exactly the canonical JSON of the document it parses to (a final line break
 *      aside), so no duplicate member, other spelling of a number or string, or added space slips by;
 *   2. the format, and the signature's alg, kid and value;
 *   3. the key set holds a key with that kid, an Ed25519 key whose thumbprint is the kid (the kid
 *      is not signed, so it must name the key material itself);
 *   4. the signature over the signed bytes;
 *   5. the audit chain entries the certificate carries: each hashes (SHA-256 of its content's
 *      JCS) to its `hash`, mirrors its content, links to the entry before it, and lies at or before
 *      the chain head;
 *   6. every timeline fact and the destruction name a carried entry and agree with it, no new
 *      link follows the destruction, and the backups date follows from the destruction and the
 *      stated recovery days;
 *   7. given two or more certificates: those of one organisation agree on every chain entry and
 *      head they share, and link where one holds an entry's successor.
 * A retired key still verifies the certificates it signed before it retired (a few minutes of grace
 * for the functions still holding it); the summary says it was retired.
 *
 * The service's own verifier, lambdas/core/custody/verify.ts (the app's Verify page), makes the
 * same checks with the same reasons; the service's tests run both on the same certificates and
 * require the same answer. Values taken from a certificate are quoted with JSON.stringify in
 * reasons, so a crafted one cannot put control characters on a terminal.
 *
 * Exit status: 0 every certificate valid, 1 invalid (`invalid: <file>: <reason>` on stderr),
 * 2 usage error.
 */
import { createHash, createPublicKey, verify as ed25519Verify } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { inflateSync } from 'node:zlib';

const CERTIFICATE_FORMAT = 'service-custody/v1';
const ACCEPTED_ALGORITHMS = ['Ed25519', 'EdDSA'];
const GENESIS_HASH = '0'.repeat(64);
const HEX_SHA256 = /^[0-9a-f]{64}$/;

// ---- Small helpers ----

const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);
const isSeq = (value) => Number.isSafeInteger(value) && value >= 1;
const fail = (reason) => ({ ok: false, reason });

/** A value from the document, quoted and cut short for a one-line reason. */
const quote = (value) => {
  const text = value === undefined ? 'nothing' : JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
};

/** Identifiers print bare when they are plain, quoted otherwise (so a summary stays one line). */
const plain = (value) => (typeof value === 'string' && /^[\w.:@-]{1,100}$/.test(value) ? value : quote(value));

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
const signedAfterRetirement = (key, kid, issuedAt) => {
  if (typeof key.retired_at !== 'string') return null;
  const retired = Date.parse(key.retired_at);
  const issued = typeof issuedAt === 'string' ? Date.parse(issuedAt) : Number.NaN;
  if (Number.isNaN(issued)) return `issued_at ${quote(issuedAt)} is not a date, so whether key ${plain(kid)} signed it before it retired cannot be told`;
  if (issued > retired + RETIRED_KEY_GRACE_MINUTES * 60_000) {
    return `key ${plain(kid)} retired at ${plain(key.retired_at)}, more than ${RETIRED_KEY_GRACE_MINUTES} minutes before this certificate's issued_at ${plain(issuedAt)}: a retired key signs no new certificates`;
  }
  return null;
};

/** Lower-case hex SHA-256 of a string's UTF-8 (or of bytes). */
const sha256Hex = (data) => createHash('sha256').update(data).digest('hex');

// ---- RFC 8785 (JCS) canonical JSON ----

/**
 * The canonical JSON of a value as JSON.parse returns it (null, true/false, numbers, strings,
 * arrays, objects). RFC 8785 writes strings and numbers exactly as ECMAScript's JSON.stringify does
 * (its sections 3.2.2.2 and 3.2.2.3), sorts object members by their names' UTF-16 code units
 * (what Array.prototype.sort does to strings) and adds no whitespace. A string holding a lone
 * surrogate has no UTF-8 form, so it is refused, as the service's canonicaliser refuses it.
 */
export const canonicalJson = (value) => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObject(value)) {
    const members = Object.keys(value).sort().map((name) => `${canonicalJson(name)}:${canonicalJson(value[name])}`);
    return `{${members.join(',')}}`;
  }
  if (typeof value === 'string' && /\p{Surrogate}/u.test(value)) throw new Error('Lone surrogate is not allowed');
  if (typeof value === 'number' && !Number.isFinite(value)) throw new Error('NaN or Infinity is not allowed');
  if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) return JSON.stringify(value);
  throw new TypeError('value has no JSON form (RFC 8785)');
};

// ---- Encodings and keys ----

/**
 * Strict base64url (RFC 4648 section 5, no padding): only the one spelling of a byte string is
 * accepted (alphabet only, and the unused low bits of the last character zero), so a changed
 * character can never decode to the same signature. Null when `text` is not such a spelling.
 */
const base64urlBytes = (text) => {
  if (typeof text !== 'string' || !/^[A-Za-z0-9_-]*$/.test(text)) return null;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : null;
};

/**
 * The RFC 7638 thumbprint of an Ed25519 public JWK: SHA-256, base64url, of `{"crv":..,"kty":..,"x":..}`,
 * the required members only, in that order, without whitespace (JSON.stringify keeps the order).
 */
const jwkThumbprint = (jwk) => createHash('sha256').update(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x })).digest('base64url');

/**
 * A key set (JWKS) as read from a file or fetched, checked member by member so a bad one fails
 * with a reason. Keeps only the members a certificate key has.
 */
export const parseJwks = (value) => {
  if (!isObject(value) || !Array.isArray(value.keys)) throw new Error('not a JWKS: expected an object with a "keys" list');
  const keys = value.keys.map((key, index) => {
    const where = `JWKS key ${index + 1}`;
    if (!isObject(key)) throw new Error(`${where}: not an object`);
    if (key.kty !== 'OKP' || key.crv !== 'Ed25519') throw new Error(`${where}: not an Ed25519 key (kty ${quote(key.kty)}, crv ${quote(key.crv)})`);
    if (typeof key.x !== 'string' || base64urlBytes(key.x)?.length !== 32) throw new Error(`${where}: x is not a base64url 32-byte public key`);
    if (typeof key.kid !== 'string' || key.kid === '') throw new Error(`${where}: no kid`);
    if (key.alg !== undefined && typeof key.alg !== 'string') throw new Error(`${where}: alg is not a string`);
    // A null date is read as absent (the current key has no retired_at).
    for (const member of ['retired_at', 'created_at']) {
      if (key[member] !== undefined && key[member] !== null && typeof key[member] !== 'string') throw new Error(`${where}: ${member} is not a string`);
    }
    if (key.use !== undefined && key.use !== 'sig') throw new Error(`${where}: use ${quote(key.use)} is not "sig"`);
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

/**
 * The published key a signature names. Its thumbprint must equal the kid: the kid is outside the
 * signed bytes, and a key set could list a key under another key's kid.
 */
const keyNamed = (kid, jwks) => {
  if (!isObject(jwks) || !Array.isArray(jwks.keys)) return fail('the key set (JWKS) has no "keys" list');
  const key = jwks.keys.find((candidate) => isObject(candidate) && candidate.kid === kid);
  if (!key) return fail(`no published key has kid ${plain(kid)}`);
  if (key.kty !== 'OKP' || key.crv !== 'Ed25519') return fail(`key ${plain(kid)} is not an Ed25519 key (kty ${quote(key.kty)}, crv ${quote(key.crv)})`);
  if (typeof key.x !== 'string' || base64urlBytes(key.x)?.length !== 32) return fail(`key ${plain(kid)}: x is not a base64url 32-byte public key`);
  if (key.alg !== undefined && !ACCEPTED_ALGORITHMS.includes(key.alg)) return fail(`key ${plain(kid)} is published for algorithm ${quote(key.alg)}, not Ed25519`);
  if (key.use !== undefined && key.use !== 'sig') return fail(`key ${plain(kid)} is published for use ${quote(key.use)}, not signing`);
  const thumbprint = jwkThumbprint(key);
  if (thumbprint !== kid) return fail(`key ${plain(kid)} has thumbprint ${thumbprint}: the kid does not name this key`);
  return { ok: true, key };
};

// ---- What is signed ----

/** The digest a certificate's signature covers: SHA-256 of JCS(document without `signature`). */
export const documentSha256 = (document) => {
  const { signature: _signature, ...unsigned } = document;
  return sha256Hex(canonicalJson(unsigned));
};

/** The exact bytes the Ed25519 signature is over (see WHAT IS SIGNED above). */
export const signedBytes = (digest) => Buffer.from(canonicalJson({ format: CERTIFICATE_FORMAT, document_sha256: digest }), 'utf8');

// ---- The chain the certificate carries ----

/** Where an entry's own fields and its hashed content must say the same thing. */
const MIRRORED = [
  ['seq', 'seq'],
  ['type', 'type'],
  ['occurred_at', 'occurredAt'],
  ['prev_hash', 'prevHash'],
];

const entryShapeProblem = (entry) => {
  if (!isObject(entry)) return 'not an object';
  if (!isSeq(entry.seq)) return `seq ${quote(entry.seq)} is not a sequence number`;
  if (typeof entry.type !== 'string' || typeof entry.occurred_at !== 'string') return 'type and occurred_at must be strings';
  if (typeof entry.hash !== 'string' || !HEX_SHA256.test(entry.hash)) return 'hash is not a lower-case hex SHA-256';
  if (typeof entry.prev_hash !== 'string' || !HEX_SHA256.test(entry.prev_hash)) return 'prev_hash is not a lower-case hex SHA-256';
  if (!isObject(entry.content)) return 'content is not an object';
  return null;
};

/**
 * Each entry's hash is its content's, the entry mirrors its content, consecutive entries link,
 * nothing lies beyond the head. Returns the entries by seq, or the first problem (a string).
 */
const chainProblem = (doc) => {
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

  const bySeq = new Map();
  let previous;
  for (const [index, entry] of chain.entries.entries()) {
    const shape = entryShapeProblem(entry);
    if (shape) return `chain.entries[${index}]: ${shape}`;
    const where = `entry ${entry.seq}`;
    if (previous && entry.seq <= previous.seq) return `${where}: listed after entry ${previous.seq} (entries must ascend by seq)`;
    if (sha256Hex(canonicalJson(entry.content)) !== entry.hash) return `${where}: hash does not match its content`;
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

// ---- The facts the certificate states ----

/** The entry types whose change stored the credential's ciphertext (a request's submission, a share's creation). */
const STORING_TYPES = new Set(['request.submitted', 'share.created']);
/** A new link for a request: its custody begins again. */
const RELINKED = 'request.relinked';
/** A destruction deletes from the service's table, not from its backups. */
const DESTRUCTION_SCOPE = 'live_table';
/** DynamoDB keeps point-in-time recovery for at most 35 days (0: none kept). */
const MAX_RECOVERY_DAYS = 35;
const DAY_MS = 86_400_000;

const nonEmptyText = (value) => (typeof value === 'string' && value.length > 0 ? value : null);

/** The helpdesk read an entry's details record (a ticket close the service confirmed with the helpdesk), or null. */
const verifiedBy = (content) => {
  const details = isObject(content.data) && isObject(content.data.details) ? content.data.details : {};
  const helpdesk = nonEmptyText(details.helpdesk);
  const readAt = nonEmptyText(details.read_at);
  return details.verified === true && helpdesk && readAt ? { helpdesk, read_at: readAt } : null;
};

/** Until when backups can restore a ciphertext deleted at `at`: `at` plus the days; null when none holds one. */
const restorableUntil = (at, stored, days) => {
  if (at === null || !stored || days === 0) return null;
  const time = Date.parse(at);
  return Number.isNaN(time) ? null : new Date(time + days * DAY_MS).toISOString();
};

/** Every timeline fact and the destruction fact name an entry carried here, and say what it says. */
const factsProblem = (doc, bySeq) => {
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
 * What the destruction says it covers: "no ciphertext was ever stored" must not meet the entry
 * that stored one, and the date until which backups can restore the ciphertext must follow from
 * the destruction's time and the stated recovery days. Certificates issued before these members
 * were stated have none of them, and still verify.
 */
const coverageProblem = (destruction, bySeq) => {
  const { scope, ciphertext_stored: stored, backups } = destruction;
  if (scope === undefined && stored === undefined && backups === undefined) return null;
  if (scope !== DESTRUCTION_SCOPE) return `destruction: scope ${quote(scope)} is not "${DESTRUCTION_SCOPE}"`;
  if (typeof stored !== 'boolean') return `destruction: ciphertext_stored ${quote(stored)} is not true or false`;
  const storing = stored ? undefined : [...bySeq.values()].find((entry) => STORING_TYPES.has(entry.type));
  if (storing) return `destruction: ciphertext_stored is false, but entry ${storing.seq} (${quote(storing.type)}) stored the ciphertext`;
  if (!isObject(backups)) return 'destruction: backups is not an object';
  const days = backups.point_in_time_recovery_days;
  if (!(Number.isSafeInteger(days) && days >= 0 && days <= MAX_RECOVERY_DAYS)) {
    return `destruction: backups.point_in_time_recovery_days ${quote(days)} is not a whole number of days from 0 to ${MAX_RECOVERY_DAYS}`;
  }
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
const subjectOf = (doc) => {
  if (doc.subject_kind === 'request' && isObject(doc.request) && typeof doc.request.id === 'string') return `request ${plain(doc.request.id)}`;
  if (doc.subject_kind === 'share' && isObject(doc.share) && typeof doc.share.id === 'string') return `share ${plain(doc.share.id)}`;
  return null;
};

// ---- Verifying one certificate, and several together ----

/**
 * Checks 2 to 6 (see the top of the file) on a parsed document. Returns
 * { ok: true, certificate, key, summary, documentSha256 } or { ok: false, reason }.
 */
export const verifyCertificate = (document, jwks) => {
  if (!isObject(document)) return fail('not a custody certificate: not a JSON object');
  if (document.format !== CERTIFICATE_FORMAT) return fail(`not a custody certificate: format is ${quote(document.format)}, expected "${CERTIFICATE_FORMAT}"`);
  const signature = document.signature;
  if (!isObject(signature)) return fail('the certificate has no signature');
  if (!ACCEPTED_ALGORITHMS.includes(signature.alg)) return fail(`signature algorithm ${quote(signature.alg)} is not accepted (${ACCEPTED_ALGORITHMS.join(' or ')})`);
  if (typeof signature.kid !== 'string' || signature.kid === '') return fail('the signature names no key (kid)');
  if (typeof signature.value !== 'string') return fail('the signature has no value');
  const kid = signature.kid;

  const named = keyNamed(kid, jwks);
  if (!named.ok) return named;
  const signatureBytes = base64urlBytes(signature.value);
  if (signatureBytes?.length !== 64) return fail('the signature value is not a base64url Ed25519 signature (64 bytes)');
  let digest;
  try {
    digest = documentSha256(document);
  } catch (error) {
    return fail(`the certificate has no canonical JSON form: ${error.message}`);
  }
  let verified;
  try {
    const publicKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: named.key.x }, format: 'jwk' });
    verified = ed25519Verify(null, signedBytes(digest), publicKey, signatureBytes);
  } catch (error) {
    return fail(`key ${plain(kid)} cannot be used for Ed25519: ${error.message}`);
  }
  if (!verified) return fail(`signature does not verify with key ${plain(kid)}`);
  const late = signedAfterRetirement(named.key, kid, document.issued_at);
  if (late) return fail(late);

  // Signed, so the issuer wrote it; what follows checks it against the chain it quotes.
  if (!isObject(document.organisation) || typeof document.organisation.id !== 'string') return fail('the certificate names no organisation id');
  const subject = subjectOf(document);
  if (!subject) return fail('the certificate names no request or share (subject_kind and its id)');
  const chain = chainProblem(document);
  if (typeof chain === 'string') return fail(chain);
  const facts = factsProblem(document, chain);
  if (facts) return fail(facts);

  const key = named.key;
  const retired = typeof key.retired_at === 'string' ? `, a key retired at ${plain(key.retired_at)}` : '';
  const summary =
    `valid: ${subject} of organisation ${quote(document.organisation.name)} (${document.final === true ? 'final' : 'not final'}), ` +
    `${chain.size} chain ${chain.size === 1 ? 'entry' : 'entries'} up to seq ${document.chain.head.seq}, ` +
    `signed by ${kid} (${signature.alg}${retired})`;
  return { ok: true, certificate: document, key, summary, documentSha256: digest };
};

/**
 * Check 1, then verifyCertificate: the text must be exactly the canonical JSON of what it parses
 * to (a final line break aside, which editors add), since JSON.parse would let a duplicate member
 * or another spelling through unseen, and a reader could then see other values than were signed.
 */
export const verifyCertificateText = (text, jwks) => {
  let document;
  try {
    document = JSON.parse(text);
  } catch (error) {
    return fail(`not JSON (${error.message})`);
  }
  let canonical;
  try {
    canonical = canonicalJson(document);
  } catch (error) {
    return fail(`the certificate has no canonical JSON form: ${error.message}`);
  }
  if (text.replace(/\r?\n$/, '') !== canonical) {
    return fail('the file is not the canonical JSON the service issued (a member, number, string or space was changed or added)');
  }
  return verifyCertificate(document, jwks);
};

/**
 * Check 7, on certificates that each passed verifyCertificate. Within one organisation: every seq
 * two certificates speak of (an entry, or a chain head) has one hash; entries at one seq have one
 * prev_hash; an entry at n+1 links to the hash any certificate gives for n. Certificates of
 * different organisations sit on separate chains and cannot contradict each other.
 * Returns { ok: true, shared, summary } or { ok: false, reason }.
 */
export const verifyAgreement = (certificates) => {
  const byOrganisation = new Map();
  for (const [index, certificate] of certificates.entries()) {
    if (!isObject(certificate) || !isObject(certificate.chain) || !Array.isArray(certificate.chain.entries)) return fail(`certificate ${index + 1}: no chain`);
    const group = byOrganisation.get(certificate.chain.organisation_id) ?? [];
    group.push({ certificate, index });
    byOrganisation.set(certificate.chain.organisation_id, group);
  }
  let shared = 0;
  const lines = [];
  for (const group of byOrganisation.values()) {
    if (group.length < 2) continue;
    const outcome = groupAgreement(group);
    if (!outcome.ok) return outcome;
    shared += outcome.shared;
    const name = quote(group[0].certificate.organisation?.name);
    lines.push(
      `${group.length} certificates of organisation ${name} agree on ${outcome.shared} shared chain ${outcome.shared === 1 ? 'entry' : 'entries'} ` +
        `and ${outcome.links} ${outcome.links === 1 ? 'link' : 'links'} between them`,
    );
  }
  if (lines.length === 0) {
    const reason = certificates.length < 2 ? 'fewer than two certificates' : `${certificates.length} certificates of ${byOrganisation.size} different organisations, whose chains are separate`;
    return { ok: true, shared: 0, summary: `agreement: nothing shared to compare (${reason})` };
  }
  const apart = certificates.length - [...byOrganisation.values()].filter((group) => group.length > 1).reduce((sum, group) => sum + group.length, 0);
  if (apart > 0) lines.push(`${apart} of ${apart === 1 ? 'another organisation shares' : 'other organisations share'} nothing with them`);
  return { ok: true, shared, summary: `agreement: ${lines.join('; ')}` };
};

/** One organisation's certificates against each other (see verifyAgreement). */
const groupAgreement = (group) => {
  const hashes = new Map();
  const prevHashes = new Map();
  const add = (map, seq, claim) => map.set(seq, [...(map.get(seq) ?? []), claim]);
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
    // The hashes at seq - 1 all agree (checked above), so the first stands for them all.
    if (claims[0].value !== before[0].value) {
      return fail(`certificates do not link: ${claims[0].where} has prev_hash ${claims[0].value}, but ${before[0].where} has hash ${before[0].value}`);
    }
    // A link between certificates: one holds entry n+1 but not n, and another holds n (entry or head).
    if (claims.some((claim) => !before.some((hash) => hash.index === claim.index))) links += 1;
  }
  let sharedSeqs = 0;
  for (const claims of prevHashes.values()) if (new Set(claims.map((claim) => claim.index)).size > 1) sharedSeqs += 1;
  return { ok: true, shared: sharedSeqs, links };
};

// ---- The command ----

const USAGE = [
  'Usage: node verify-custody-certificate.mjs --jwks FILE|URL [--pdf] CERTIFICATE [CERTIFICATE ...]',
  '',
  'Verifies custody certificates (service-custody/v1): the Ed25519 signature, the audit chain',
  'entries they carry, and, given two or more, that they agree on the chain they share.',
  'A CERTIFICATE is the JSON the service issued, or the certificate PDF (its embedded JSON is verified).',
  '',
  '  --jwks FILE      the issuer\'s key set (JWKS), saved beforehand or obtained from a source you trust',
  '  --jwks URL       fetches the key set now: this trusts whoever answers at that address at that moment',
  '  --pdf            every CERTIFICATE must be a PDF (a file starting with %PDF- is read as one anyway)',
  '  -h, --help       this text',
  '',
  'Exit status: 0 all valid, 1 invalid (the first reason on stderr), 2 usage error.',
].join('\n');

/** A failure that ends the run with exit 1 and `invalid: <reason>`. */
class Invalid extends Error {}

const isHttpUrl = (value) => /^https?:\/\//i.test(value);
const startsWithPdfHeader = (bytes) => Buffer.from(bytes.subarray(0, 5)).toString('latin1') === '%PDF-';

const readBytes = async (io, path) => {
  try {
    return await io.readFile(path);
  } catch (error) {
    throw new Invalid(`${path}: cannot be read (${error.message})`);
  }
};

/**
 * The certificate text of one input, the file itself or the JSON a PDF embeds, with the SHA-256 of
 * its bytes (what `sha256sum` prints for the JSON file, and what the PDF prints for its attachment).
 */
const certificateText = async (io, path, pdf) => {
  const bytes = await readBytes(io, path);
  if (!pdf && !startsWithPdfHeader(bytes)) return { text: new TextDecoder().decode(bytes), fromPdf: false, sha256: sha256Hex(bytes) };
  let text;
  try {
    text = extractEmbeddedCertificate(bytes);
  } catch (error) {
    throw new Invalid(`${path}: ${error.message}`);
  }
  return { text, fromPdf: true, sha256: sha256Hex(Buffer.from(text, 'utf8')) };
};

/** The key set, from a file or (trusting the service at this moment) a URL. */
const loadJwks = async (io, source) => {
  let text;
  if (isHttpUrl(source)) {
    io.stderr(
      `note: fetching the key set from ${source} now (${new Date().toISOString()}): this trusts whoever answers at that address at this moment. ` +
        'For a check that does not rest on the service, pass --jwks with a key set saved beforehand.',
    );
    try {
      const response = await io.fetch(source, { headers: { accept: 'application/jwk-set+json, application/json' }, signal: AbortSignal.timeout(15_000) });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      text = await response.text();
    } catch (error) {
      // fetch says only "fetch failed"; the cause says why (DNS, refused, TLS).
      const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
      throw new Invalid(`the key set at ${source} cannot be fetched (${error.message}${cause})`);
    }
  } else {
    text = new TextDecoder().decode(await readBytes(io, source));
  }
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Invalid(`the key set ${source}: not JSON (${error.message})`);
  }
  try {
    return parseJwks(value);
  } catch (error) {
    throw new Invalid(`the key set ${source}: ${error.message}`);
  }
};

/** What a valid certificate was checked for, printed under its summary line. */
const checkedLines = (outcome, input) => {
  const entries = outcome.certificate.chain.entries.length;
  const facts = outcome.certificate.timeline.length;
  return [
    `  checked: ${input.fromPdf ? 'the JSON embedded in the PDF' : 'the file'} (SHA-256 ${input.sha256}) is the RFC 8785 canonical JSON of the certificate`,
    `  checked: key ${outcome.key.kid} is in the key set, is Ed25519, and its RFC 7638 thumbprint is its kid`,
    `  checked: the base64url Ed25519 signature is valid over ${signedBytes(outcome.documentSha256).toString('utf8')}`,
    `  checked: ${entries} chain ${entries === 1 ? 'entry hashes' : 'entries hash'} to ${entries === 1 ? 'its' : 'their'} content, ${entries === 1 ? 'links' : 'link'} where consecutive, and ${entries === 1 ? 'lies' : 'lie'} at or before the chain head`,
    `  checked: ${facts} timeline ${facts === 1 ? 'fact' : 'facts'} and the destruction name carried entries and agree with them`,
  ];
};

const run = async (io, paths, options) => {
  const inputs = [];
  for (const path of paths) inputs.push(await certificateText(io, path, options.pdf));
  const jwks = await loadJwks(io, options.jwks);
  const lines = [];
  const certificates = [];
  for (const [index, input] of inputs.entries()) {
    const outcome = verifyCertificateText(input.text, jwks);
    if (!outcome.ok) throw new Invalid(`${paths[index]}: ${outcome.reason}`);
    certificates.push(outcome.certificate);
    lines.push(`${outcome.summary} [${paths[index]}; keys from ${options.jwks}]`, ...checkedLines(outcome, input));
  }
  if (certificates.length > 1) {
    const agreement = verifyAgreement(certificates);
    if (!agreement.ok) throw new Invalid(agreement.reason);
    lines.push(agreement.summary);
  }
  return lines;
};

/**
 * The command, returning its exit status. `io` replaces the console, fetch or file reading
 * (the service's tests run it in-process that way); by default they are Node's own.
 */
export const main = async (argv, io = {}) => {
  const out = {
    stdout: (line) => process.stdout.write(`${line}\n`),
    stderr: (line) => process.stderr.write(`${line}\n`),
    fetch: globalThis.fetch,
    readFile: (path) => readFile(path),
    ...io,
  };
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: { jwks: { type: 'string' }, pdf: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    out.stderr(`${error.message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    out.stdout(USAGE);
    return 0;
  }
  const usageError = positionals.length === 0 ? 'no certificate given' : !values.jwks ? 'no key set given: pass --jwks FILE (or --jwks URL)' : null;
  if (usageError) {
    out.stderr(`${usageError}\n\n${USAGE}`);
    return 2;
  }
  try {
    for (const line of await run(out, positionals, { jwks: values.jwks, pdf: values.pdf })) out.stdout(line);
    return 0;
  } catch (error) {
    if (!(error instanceof Invalid)) throw error;
    out.stderr(`invalid: ${error.message}`);
    return 1;
  }
};

// ---- The certificate a PDF embeds ----
//
// The service's certificate PDF carries the signed JSON as an attached file. This is a small
// reader, not a PDF library: it walks the file's `N G obj ... endobj` objects, parses their
// dictionaries, finds `/Type /Filespec` objects whose `/EF` points at an embedded file stream, and
// inflates that stream. It also reads objects packed in compressed object streams and incremental
// updates (the later definition of an object wins), which PDF viewers write when they re-save a
// file. It does not decrypt. Nothing here decides validity: the extracted text goes through every
// check above, so a reader mistake can only refuse a certificate, never accept a wrong one.

class PdfName {
  constructor(name) {
    this.name = name;
  }
}
class PdfString {
  constructor(bytes) {
    this.bytes = bytes;
  }
}
class PdfRef {
  constructor(num, gen) {
    this.num = num;
    this.gen = gen;
  }
}
const isDict = (value) => value instanceof Map;
const nameOf = (value) => (value instanceof PdfName ? value.name : null);
const latin1 = (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');

const WHITESPACE = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);
const DELIMITERS = new Set([...'()<>[]{}/%'].map((char) => char.charCodeAt(0)));
const ESCAPES = { 0x6e: 0x0a, 0x72: 0x0d, 0x74: 0x09, 0x62: 0x08, 0x66: 0x0c };

/** A tokenizer and recursive-descent parser of PDF values over the raw bytes. */
class PdfParser {
  constructor(bytes, pos) {
    this.bytes = bytes;
    this.pos = pos;
  }

  skipSpace() {
    const { bytes } = this;
    while (this.pos < bytes.length) {
      const byte = bytes[this.pos];
      if (WHITESPACE.has(byte)) this.pos++;
      else if (byte === 0x25 /* % comment */) while (this.pos < bytes.length && bytes[this.pos] !== 0x0a && bytes[this.pos] !== 0x0d) this.pos++;
      else break;
    }
  }

  regular() {
    const start = this.pos;
    while (this.pos < this.bytes.length && !WHITESPACE.has(this.bytes[this.pos]) && !DELIMITERS.has(this.bytes[this.pos])) this.pos++;
    return latin1(this.bytes.subarray(start, this.pos));
  }

  /** The next keyword or number without consuming it. */
  peekWord() {
    const saved = this.pos;
    this.skipSpace();
    const word = this.regular();
    this.pos = saved;
    return word;
  }

  value(depth = 0) {
    if (depth > 100) throw new Error('nested too deeply');
    this.skipSpace();
    const byte = this.bytes[this.pos];
    if (byte === undefined) throw new Error('unexpected end of file');
    if (byte === 0x2f /* / */) {
      this.pos++;
      return new PdfName(this.regular().replace(/#([0-9a-fA-F]{2})/g, (_, hex) => String.fromCharCode(parseInt(hex, 16))));
    }
    if (byte === 0x28 /* ( */) return this.literalString();
    if (byte === 0x3c /* < */) return this.bytes[this.pos + 1] === 0x3c ? this.dictionary(depth) : this.hexString();
    if (byte === 0x5b /* [ */) {
      this.pos++;
      const items = [];
      for (;;) {
        this.skipSpace();
        if (this.bytes[this.pos] === 0x5d /* ] */) {
          this.pos++;
          return items;
        }
        items.push(this.value(depth + 1));
      }
    }
    const word = this.regular();
    if (word === '') throw new Error(`unexpected character ${String.fromCharCode(byte)} at ${this.pos}`);
    if (word === 'true' || word === 'false') return word === 'true';
    if (word === 'null') return null;
    const number = Number(word);
    if (Number.isNaN(number)) throw new Error(`unexpected keyword ${word} at ${this.pos}`);
    // `N G R` is an indirect reference: look ahead without committing.
    if (Number.isInteger(number) && number >= 0) {
      const saved = this.pos;
      this.skipSpace();
      const gen = this.regular();
      this.skipSpace();
      if (/^\d+$/.test(gen) && this.regular() === 'R') return new PdfRef(number, Number(gen));
      this.pos = saved;
    }
    return number;
  }

  dictionary(depth) {
    this.pos += 2;
    const dict = new Map();
    for (;;) {
      this.skipSpace();
      if (this.bytes[this.pos] === 0x3e && this.bytes[this.pos + 1] === 0x3e) {
        this.pos += 2;
        return dict;
      }
      const key = this.value(depth + 1);
      if (!(key instanceof PdfName)) throw new Error(`dictionary key is not a name at ${this.pos}`);
      dict.set(key.name, this.value(depth + 1));
    }
  }

  hexString() {
    const end = this.bytes.indexOf(0x3e, this.pos);
    if (end < 0) throw new Error('unterminated hex string');
    const hex = latin1(this.bytes.subarray(this.pos + 1, end)).replace(/\s+/g, '');
    this.pos = end + 1;
    return new PdfString(Uint8Array.from((hex.length % 2 ? `${hex}0` : hex).match(/../g) ?? [], (pair) => parseInt(pair, 16)));
  }

  literalString() {
    const { bytes } = this;
    const out = [];
    let depth = 1;
    this.pos++;
    while (this.pos < bytes.length) {
      let byte = bytes[this.pos++];
      if (byte === 0x28) depth++;
      else if (byte === 0x29 && --depth === 0) return new PdfString(Uint8Array.from(out));
      else if (byte === 0x5c /* \ */) {
        byte = bytes[this.pos++];
        if (byte in ESCAPES) byte = ESCAPES[byte];
        else if (byte >= 0x30 && byte <= 0x37) {
          let octal = byte - 0x30;
          for (let i = 0; i < 2 && bytes[this.pos] >= 0x30 && bytes[this.pos] <= 0x37; i++) octal = octal * 8 + bytes[this.pos++] - 0x30;
          byte = octal & 0xff;
        } else if (byte === 0x0d || byte === 0x0a) {
          if (byte === 0x0d && bytes[this.pos] === 0x0a) this.pos++;
          continue; // a backslash before an end of line continues the string
        }
      }
      out.push(byte);
    }
    throw new Error('unterminated string');
  }
}

/** A PDF text string: UTF-16BE or UTF-8 with a byte-order mark, else PDFDocEncoding (about Latin-1). */
const textOf = (value) => {
  if (!(value instanceof PdfString)) return null;
  const { bytes } = value;
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes.subarray(2));
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return new TextDecoder('utf-8').decode(bytes.subarray(3));
  return latin1(bytes);
};

const OBJECT_HEADER = /(\d+)\s+(\d+)\s+obj\b/g;

/** A token boundary: "10 0 obj" must not also be read as "0 0 obj". */
const startsToken = (pdf, index) => index === 0 || WHITESPACE.has(pdf[index - 1]) || DELIMITERS.has(pdf[index - 1]);

/** A stream's /Length, also when it is an indirect `N G R` to an object holding just the number. */
const directLength = (text, length) => {
  if (typeof length === 'number') return length;
  if (!(length instanceof PdfRef)) return null;
  const match = new RegExp(`(?:^|[\\s>\\]])${length.num}\\s+${length.gen}\\s+obj\\s+(\\d+)\\s+endobj`).exec(text);
  return match ? Number(match[1]) : null;
};

/**
 * Every indirect object by number, as { value, at, stream? } (the later definition wins), and the
 * trailer dictionaries. Stream data is stepped over by its length, so bytes inside a stream are
 * never taken for objects.
 */
const readObjects = (pdf) => {
  const text = latin1(pdf);
  const objects = new Map();
  const header = new RegExp(OBJECT_HEADER);
  for (let match = header.exec(text); match; match = header.exec(text)) {
    if (!startsToken(pdf, match.index)) continue;
    const parser = new PdfParser(pdf, header.lastIndex);
    let value;
    try {
      value = parser.value();
    } catch {
      continue; // not an object this reader can parse, so not an attachment it could use
    }
    const object = { value, at: match.index };
    if (isDict(value) && parser.peekWord() === 'stream') {
      parser.skipSpace();
      let start = parser.pos + 'stream'.length;
      if (pdf[start] === 0x0d) start++;
      if (pdf[start] === 0x0a) start++;
      object.stream = { start };
      const length = directLength(text, value.get('Length'));
      const end = length !== null ? start + length : text.indexOf('endstream', start);
      if (end >= start) header.lastIndex = end;
    }
    objects.set(Number(match[1]), object);
  }
  unpackObjectStreams(pdf, objects);
  const trailers = [];
  for (let at = text.indexOf('trailer'); at >= 0; at = text.indexOf('trailer', at + 1)) {
    try {
      const value = new PdfParser(pdf, at + 'trailer'.length).value();
      if (isDict(value)) trailers.push(value);
    } catch {
      // "trailer" inside some other content
    }
  }
  return { objects, trailers };
};

/** Adds the objects packed in compressed object streams (`/Type /ObjStm`), each at its stream's position. */
const unpackObjectStreams = (pdf, objects) => {
  const streams = [...objects.values()].filter((object) => object.stream && isDict(object.value) && nameOf(object.value.get('Type')) === 'ObjStm');
  for (const objstm of streams.sort((a, b) => a.at - b.at)) {
    const count = resolve(objects, objstm.value.get('N'));
    const first = resolve(objects, objstm.value.get('First'));
    if (typeof count !== 'number' || typeof first !== 'number') continue;
    let data;
    try {
      data = streamBytes(pdf, objects, objstm, 'An object stream');
    } catch {
      continue; // an object stream that cannot be decoded contributes nothing
    }
    const numbers = latin1(data.subarray(0, first)).trim().split(/\s+/).map(Number);
    for (let i = 0; i + 1 < Math.min(numbers.length, 2 * count); i += 2) {
      const [num, offset] = [numbers[i], numbers[i + 1]];
      const existing = objects.get(num);
      if (existing && existing.at > objstm.at) continue;
      try {
        objects.set(num, { value: new PdfParser(data, first + offset).value(), at: objstm.at });
      } catch {
        // skip an object that cannot be parsed
      }
    }
  }
};

const resolve = (objects, value) => (value instanceof PdfRef ? objects.get(value.num)?.value : value);
const asList = (value) => (Array.isArray(value) ? value : value === undefined || value === null ? [] : [value]);

/** A stream's data, inflated (FlateDecode is the only filter certificate PDFs use). */
const streamBytes = (pdf, objects, object, label) => {
  const dict = object.value;
  const start = object.stream.start;
  const declared = resolve(objects, dict.get('Length'));
  let end;
  if (typeof declared === 'number' && Number.isInteger(declared) && declared >= 0 && start + declared <= pdf.length) end = start + declared;
  else {
    // No usable /Length: the data runs to the `endstream` keyword, less the end of line before it.
    end = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength).indexOf('endstream', start, 'latin1');
    if (end < 0) throw new Error(`${label}: its stream has no length and no endstream`);
    if (pdf[end - 1] === 0x0a) end--;
    if (pdf[end - 1] === 0x0d) end--;
  }
  let bytes = pdf.subarray(start, end);
  const filters = asList(resolve(objects, dict.get('Filter')));
  const parms = asList(resolve(objects, dict.get('DecodeParms')));
  for (const [i, filter] of filters.entries()) {
    const name = nameOf(resolve(objects, filter));
    if (name !== 'FlateDecode') throw new Error(`${label} is encoded with /${name ?? '?'}, which this reader does not decode`);
    const parm = resolve(objects, parms[i]);
    const predictor = isDict(parm) ? resolve(objects, parm.get('Predictor')) : undefined;
    if (typeof predictor === 'number' && predictor > 1) throw new Error(`${label} uses a PNG/TIFF predictor, which this reader does not decode`);
    try {
      bytes = inflateSync(bytes);
    } catch (error) {
      throw new Error(`${label}: its compressed data is corrupt (${error.message})`);
    }
  }
  return new Uint8Array(bytes);
};

/** The size and MD5 the PDF records for an attachment (`/Params`), so a damaged one is not taken as whole. */
const checkParams = (objects, dict, bytes, label) => {
  const params = resolve(objects, dict.get('Params'));
  if (!isDict(params)) return;
  const size = resolve(objects, params.get('Size'));
  if (typeof size === 'number' && size !== bytes.length) throw new Error(`${label} is damaged: ${bytes.length} bytes where the PDF records ${size}`);
  const checksum = resolve(objects, params.get('CheckSum'));
  if (!(checksum instanceof PdfString)) return;
  // The standard's form is the 16 raw bytes; some writers put the 32 hex digits as text. Other forms are not checked.
  const recorded = checksum.bytes.length === 16 ? Buffer.from(checksum.bytes).toString('hex') : latin1(checksum.bytes).toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(recorded)) return;
  if (recorded !== createHash('md5').update(bytes).digest('hex')) throw new Error(`${label} is damaged: its MD5 does not match the checksum the PDF records`);
};

/** Every file embedded in `pdf`, as { name, bytes }, in the order of their file specifications. */
export const extractEmbeddedFiles = (pdf) => {
  // The header may follow a few bytes of junk (the standard allows up to 1024).
  if (!latin1(pdf.subarray(0, 1024)).includes('%PDF-')) throw new Error('Not a PDF: the file does not start with a %PDF- header');
  const { objects, trailers } = readObjects(pdf);
  // Encrypted strings and streams would read as garbage: say so rather than fail obscurely.
  const xrefStreams = [...objects.values()].map((object) => object.value).filter((value) => isDict(value) && nameOf(value.get('Type')) === 'XRef');
  if ([...trailers, ...xrefStreams].some((dict) => dict.has('Encrypt'))) throw new Error('The PDF is encrypted; this reader cannot read its attachments');
  const files = [];
  const seen = new Set();
  for (const num of [...objects.keys()].sort((a, b) => a - b)) {
    const spec = objects.get(num).value;
    if (!isDict(spec) || nameOf(spec.get('Type')) !== 'Filespec') continue;
    const ef = resolve(objects, spec.get('EF'));
    if (!isDict(ef)) continue;
    const ref = ef.get('UF') ?? ef.get('F');
    if (!(ref instanceof PdfRef) || seen.has(ref.num)) continue;
    const target = objects.get(ref.num);
    if (!target?.stream) continue;
    seen.add(ref.num);
    const name = textOf(resolve(objects, spec.get('UF'))) ?? textOf(resolve(objects, spec.get('F'))) ?? '';
    const label = `Embedded file "${name}"`;
    const bytes = streamBytes(pdf, objects, target, label);
    checkParams(objects, target.value, bytes, label);
    files.push({ name, bytes });
  }
  return files;
};

/** The UTF-8 text of the one `.json` file a certificate PDF embeds; throws, saying why, otherwise. */
export const extractEmbeddedCertificate = (pdf) => {
  const files = extractEmbeddedFiles(pdf);
  const json = files.filter((file) => file.name.toLowerCase().endsWith('.json'));
  if (json.length === 0) {
    const others = files.length ? ` (it has ${files.length} other attachment${files.length > 1 ? 's' : ''}: ${files.map((file) => file.name).join(', ')})` : '';
    throw new Error(`The PDF has no embedded certificate: no .json file is attached${others}`);
  }
  if (json.length > 1) throw new Error(`The PDF has ${json.length} embedded .json files (${json.map((file) => file.name).join(', ')}); expected exactly one certificate`);
  try {
    // ignoreBOM keeps the text byte for byte as attached, which is what the canonical check is over.
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(json[0].bytes);
  } catch {
    throw new Error(`The embedded certificate ${json[0].name} is not valid UTF-8`);
  }
};

// ---- Run as a command ----

/** Whether Node was started on this file (rather than it being imported). */
const startedAsScript = () => {
  try {
    return import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href;
  } catch {
    return false; // no script path (a REPL, node -e): imported, not run
  }
};

if (startedAsScript()) process.exitCode = await main(process.argv.slice(2));

/**
 * What the standalone verifier (tools/verify-custody-certificate.mjs) and the service's verifier
 * are both given, and how their answers are compared: signing keys (current, retired, a stranger's
 * and 32 bytes that are no curve point), generated JSON for the canonical form, and generated
 * certificates (linked chains of entries with arbitrary data, of either kind, signed by either
 * key); an outcome as one comparable line, and a call's value or the message it threw.
 */
import fc from 'fast-check';
import type { CertificateChainEntry, ChainEntryContent, Jwks, SignedCertificate } from '../../lambdas/core/custody/document.ts';
import { jwkThumbprint } from '../../lambdas/core/custody/thumbprint.ts';
import { GENESIS_HASH } from '../../lambdas/core/custody/document.ts';
import { entryOf, makeCertificate, makeKey, ORG_ID, signCertificate } from './custody-fixtures.ts';

export const current = await makeKey();
export const retired = await makeKey({ retired_at: '2026-02-01T00:00:00.000Z' });
export const stranger = await makeKey();
export const JWKS: Jwks = { keys: [current.jwk, retired.jwk] };
/** 32 bytes that are no Ed25519 public key, published under their own thumbprint. */
export const NOT_A_POINT = { kty: 'OKP' as const, crv: 'Ed25519' as const, x: Buffer.alloc(32, 0xff).toString('base64url'), kid: '' };
NOT_A_POINT.kid = await jwkThumbprint(NOT_A_POINT);

/** An outcome as one comparable line: the summary when valid, the reason when not. */
export const said = (outcome: { ok: true; summary: string } | { ok: false; reason: string }) => (outcome.ok ? outcome.summary : `invalid: ${outcome.reason}`);
export const thrown = (run: () => unknown) => {
  try {
    return { value: run() };
  } catch (error) {
    return { error: (error as Error).message };
  }
};

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
export const { json } = fc.letrec((tie) => ({
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
// ---- Generated certificates ----

const TYPES = ['request.created', 'request.opened', 'request.submitted', 'request.revealed', 'ticket.status_received', 'share.created', 'request.completed', 'share.purged', 'request.relinked'];

/** Entry data: arbitrary JSON, sometimes a helpdesk read that makes the fact `verified_by`. */
const entryData = fc.oneof(
  fc.dictionary(text, json, { maxKeys: 4 }),
  fc.record({ details: fc.record({ verified: fc.constant(true), helpdesk: fc.constantFrom('zendesk', 'jsm', ''), read_at: fc.constantFrom('2026-01-05T09:00:00.000Z', '') }) }),
);

/** A linked chain of `data.length` entries, seq 1 on the genesis hash (or starting later). */
export const chainOf = (data: Array<Record<string, unknown>>, types: number[], firstSeq: number): CertificateChainEntry[] => {
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

export const certificateSpec = fc.record({
  data: fc.array(entryData, { minLength: 1, maxLength: 10 }),
  types: fc.array(fc.nat(), { minLength: 10, maxLength: 10 }),
  firstSeq: fc.constantFrom(1, 1, 40),
  carried: fc.array(fc.boolean(), { minLength: 10, maxLength: 10 }),
  kind: fc.constantFrom('request' as const, 'share' as const),
  backupDays: fc.option(fc.integer({ min: 0, max: 35 }), { nil: undefined }),
  signer: fc.constantFrom('current', 'current', 'retired'),
  alg: fc.constantFrom('Ed25519', 'Ed25519', 'EdDSA'),
});

export type Spec = typeof certificateSpec extends fc.Arbitrary<infer T> ? T : never;

/** An unsigned certificate from the spec: facts carry `verified_by` where their entry records a read. */
export const unsignedOf = (spec: Spec, chain = chainOf(spec.data, spec.types, spec.firstSeq), carryAll = false) => {
  const seqs = chain.filter((_, index) => carryAll || spec.carried[index] || index === 0).map((entry) => entry.seq);
  const certificate = makeCertificate(chain, { kind: spec.kind, seqs, backupDays: spec.backupDays }) as any;
  for (const fact of certificate.timeline) {
    const details = (chain.find((entry) => entry.seq === fact.seq)!.content.data as any).details;
    if (details?.verified === true && details.helpdesk && details.read_at) fact.verified_by = { helpdesk: details.helpdesk, read_at: details.read_at };
  }
  return certificate as SignedCertificate;
};

export const signed = (spec: Spec, document: unknown = unsignedOf(spec)) =>
  signCertificate(document as SignedCertificate, spec.signer === 'retired' ? retired : current, spec.alg);

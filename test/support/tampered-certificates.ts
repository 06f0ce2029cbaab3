/**
 * Generated certificates tampered with, for the standalone verifier's tests against the service's
 * verifier: a member edited (signed again or not), a forger's certificate that is consistent and
 * validly signed but wrong in what only the later checks see, a changed signature, a changed text,
 * or a changed key set; `tampered` gives the text and key set both verifiers get.
 */
import fc from 'fast-check';
import { canonicalJson } from '../../lambdas/core/custody/canonical.ts';
import type { CertificateChainEntry, ChainEntryContent } from '../../lambdas/core/custody/document.ts';
import { entryOf, rewriteEntry } from './custody-fixtures.ts';
import { chainOf, current, json, JWKS, NOT_A_POINT, retired, signed, stranger, unsignedOf, type Spec } from './generated-certificates.ts';

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
export const tampering = fc.oneof(
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

export const tampered = (spec: Spec, change: Tampering) => {
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

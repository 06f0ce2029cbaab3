/**
 * Real custody certificates for tests: Ed25519 keys from node:crypto, audit chain entries hashed
 * with node:crypto's SHA-256, certificates signed as document.ts specifies. The hashing and signing
 * here deliberately avoid the WebCrypto code under test, so a bug there cannot cancel itself out.
 */
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { canonicalJson } from '../../lambdas/core/custody/canonical.ts';
import { signingInput } from '../../lambdas/core/custody/signing-input.ts';
import {
  CERTIFICATE_FORMAT,
  GENESIS_HASH,
  SIGNATURE_ALGORITHM,
  type CertificateChainEntry,
  type ChainEntryContent,
  type CustodyFact,
  type Jwks,
  type PublicJwk,
  type RequestCertificateBody,
  type ShareCertificateBody,
  type SignedCertificate,
  type UnsignedCertificate,
} from '../../lambdas/core/custody/document.ts';
import { jwkThumbprint } from '../../lambdas/core/custody/thumbprint.ts';

export const ORG_ID = 'org_01JTESTORGANISATION';
export const ORG_NAME = 'Acme Support';

export interface TestKey {
  privateKey: KeyObject;
  /** The public JWK as the JWKS publishes it, kid = RFC 7638 thumbprint. */
  jwk: PublicJwk;
}

/** A fresh Ed25519 key pair; `extra` adds JWKS members such as retired_at. */
export const makeKey = async (extra: Partial<PublicJwk> = {}): Promise<TestKey> => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const { x } = publicKey.export({ format: 'jwk' });
  const material = { kty: 'OKP' as const, crv: 'Ed25519' as const, x: x as string };
  return { privateKey, jwk: { ...material, kid: await jwkThumbprint(material), alg: SIGNATURE_ALGORITHM, use: 'sig', ...extra } };
};

export const jwksOf = (...keys: TestKey[]): Jwks => ({ keys: keys.map((key) => key.jwk) });

export const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** An entry carrying `content` whole, hashed the way the audit chain hashes it. */
export const entryOf = (content: ChainEntryContent): CertificateChainEntry => ({
  seq: content.seq,
  type: content.type,
  occurred_at: content.occurredAt,
  prev_hash: content.prevHash,
  hash: sha256Hex(canonicalJson(content)),
  content,
});

const TYPES = ['request.created', 'request.opened', 'request.submitted', 'request.revealed', 'share.created', 'request.completed', 'share.purged'];

/** `n` linked entries of one organisation, seq 1..n, seq 1 on the genesis hash. */
export const makeChain = (n: number, orgId = ORG_ID): CertificateChainEntry[] => {
  const entries: CertificateChainEntry[] = [];
  for (let seq = 1; seq <= n; seq++) {
    const type = TYPES[(seq - 1) % TYPES.length];
    entries.push(
      entryOf({
        orgId,
        seq,
        type,
        occurredAt: new Date(Date.UTC(2026, 0, 5, 9, seq)).toISOString(),
        prevHash: seq === 1 ? GENESIS_HASH : entries[seq - 2].hash,
        actor: { type: 'member', label: 'Ada Lovelace', id: 'mem_ada' },
        clientId: 'cli_01',
        requestId: type.startsWith('request.') ? 'req_01JTESTREQUEST' : null,
        ...(type.startsWith('share.') && { shareId: 'shr_01JTESTSHARE' }),
        data: { note: `step ${seq}`, price: 4.5, unicode: 'Grüße €' },
      }),
    );
  }
  return entries;
};

/**
 * Rewrite entry `seq`'s content (as a forger would). With `rehash` its hash is recomputed too;
 * the following entries are left as they were, so their prev_hash no longer links.
 */
export const rewriteEntry = (chain: CertificateChainEntry[], seq: number, data: Record<string, unknown>, rehash: boolean) =>
  chain.map((entry) => {
    if (entry.seq !== seq) return entry;
    const content = { ...entry.content, data };
    return rehash ? entryOf(content) : { ...entry, content };
  });

const factOf = (entry: CertificateChainEntry): CustodyFact => ({
  event: entry.type.split('.')[1],
  at: entry.occurred_at,
  seq: entry.seq,
  type: entry.type,
  actor: { type: entry.content.actor.type, label: entry.content.actor.label },
  reason: entry.type.endsWith('.purged') ? 'ticket closed' : null,
});

export interface CertificateOptions {
  kind?: 'request' | 'share';
  /** Which entries of `chain` the certificate carries (default all); need not be consecutive. */
  seqs?: number[];
  /** Default: the last entry of `chain`. */
  head?: { seq: number; hash: string };
  certificateId?: string;
  /**
   * The point-in-time recovery days the destruction states, with its scope and backups (as the
   * service issues certificates now); absent: the destruction as certificates issued before stated it.
   */
  backupDays?: number;
}

/** An unsigned certificate over some entries of `chain`, every fact naming its entry. */
export const makeCertificate = (chain: CertificateChainEntry[], options: CertificateOptions = {}): UnsignedCertificate => {
  const entries = chain.filter((entry) => (options.seqs ?? chain.map((e) => e.seq)).includes(entry.seq));
  const last = chain[chain.length - 1];
  const timeline = entries.map(factOf);
  const ending = timeline.find((fact) => fact.type === 'request.completed' || fact.type === 'share.purged');
  const common = {
    format: CERTIFICATE_FORMAT,
    certificate_id: options.certificateId ?? 'cert_01JTESTCERT',
    issued_at: '2026-01-05T10:00:00.000Z',
    issuer: { name: 'Credential Handoff', app_url: 'https://handoff.example.com', jwks_url: 'https://api.handoff.example.com/.well-known/jwks.json' },
    final: ending !== undefined,
    organisation: { id: ORG_ID, name: ORG_NAME },
    client: { id: 'cli_01', name: 'Client One' },
    ticket: { ref: 'T-42', external_id: '42', integration_id: null, url: null },
    timeline,
    destruction: {
      ...(ending
        ? { destroyed: true, at: ending.at, reason: ending.reason ?? ending.event, seq: ending.seq }
        : { destroyed: false, at: null, reason: null, seq: null }),
      ...(options.backupDays !== undefined && {
        scope: 'live_table' as const,
        ciphertext_stored: true,
        backups: {
          point_in_time_recovery_days: options.backupDays,
          ciphertext_restorable_until: ending && options.backupDays > 0 ? new Date(Date.parse(ending.at) + options.backupDays * 86_400_000).toISOString() : null,
        },
      }),
    },
    chain: { organisation_id: ORG_ID, head: options.head ?? { seq: last.seq, hash: last.hash }, entries, omitted_entries: 0 },
  } as const;
  if (options.kind === 'share') {
    const share: ShareCertificateBody = {
      ...common,
      subject_kind: 'share',
      share: {
        id: 'shr_01JTESTSHARE',
        status: 'purged',
        created_by: { membership_id: 'mem_ada', name: 'Ada Lovelace', email: 'ada@example.com' },
        sealed_to: { fingerprint: 'ab'.repeat(32) },
        view_limit: 1,
        views: 1,
        expires_at: '2026-01-12T09:00:00.000Z',
      },
    };
    return share;
  }
  const request: RequestCertificateBody = {
    ...common,
    subject_kind: 'request',
    request: {
      id: 'req_01JTESTREQUEST',
      status: 'completed',
      subject_name: 'Grace Hopper',
      requester: { membership_id: 'mem_ada', name: 'Ada Lovelace', email: 'ada@example.com' },
      recipients: [{ membership_id: 'mem_ada', label: 'Ada laptop', fingerprint: 'cd'.repeat(32) }],
      commitment: { value: 'q1w2e3r4t5y6u7i8o9p0aa', computed_by: 'server' },
    },
  };
  return request;
};

/** Sign as document.ts says: Ed25519 over the UTF-8 of JCS(document without `signature`). */
export const signCertificate = (unsigned: UnsignedCertificate | SignedCertificate, key: TestKey, alg: string = SIGNATURE_ALGORITHM): SignedCertificate => {
  const { signature: _previous, ...body } = unsigned as SignedCertificate;
  // Independently of the service's signer: node:crypto's SHA-256 and Ed25519 over the signing input.
  const digest = createHash('sha256').update(canonicalJson(body), 'utf8').digest('hex');
  const value = sign(null, Buffer.from(signingInput(digest), 'utf8'), key.privateKey).toString('base64url');
  return { ...body, signature: { alg, kid: key.jwk.kid, value } } as SignedCertificate;
};

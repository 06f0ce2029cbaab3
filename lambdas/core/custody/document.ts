/**
 * The custody certificate document, `service-custody/v1` (SPEC.md, GET /requests/{id}/certificate).
 *
 * A certificate is built from the organisation's audit chain alone: every fact it states names the
 * chain entry behind it, and every such entry is carried whole (`content`, exactly the object the
 * chain hashed), so a verifier recomputes each entry's hash, checks that consecutive entries link,
 * and checks that two certificates of one organisation agree on every entry both hold.
 *
 * The signature covers the SHA-256 of the RFC 8785 canonical JSON of the document without its
 * `signature` member (signing-input.ts says exactly what is signed). Nothing in it is secret: no credential, token, code, ciphertext or key material.
 *
 * This file is shared by the service (which builds and signs) and the browser's Verify page (which
 * checks): it must stay free of Node-only imports.
 */
export const CERTIFICATE_FORMAT = 'service-custody/v1' as const;

/** The algorithm name written into signatures (RFC 9864); `EdDSA` is accepted when verifying. */
export const SIGNATURE_ALGORITHM = 'Ed25519';
export const ACCEPTED_ALGORITHMS = ['Ed25519', 'EdDSA'] as const;

/** One audit chain entry as the chain hashed it: `hash` = SHA-256 hex of JCS(content). */
export interface ChainEntryContent {
  orgId: string;
  seq: number;
  type: string;
  occurredAt: string;
  prevHash: string;
  actor: { type: string; label: string | null; id?: string | null };
  clientId: string | null;
  requestId: string | null;
  /** Present on entries about a share. */
  shareId?: string | null;
  data: Record<string, unknown>;
}

export interface CertificateChainEntry {
  seq: number;
  type: string;
  occurred_at: string;
  /** The previous entry's hash (64 zeros for the organisation's first entry). */
  prev_hash: string;
  /** Lower-case hex SHA-256 of the RFC 8785 canonical JSON of `content`. */
  hash: string;
  content: ChainEntryContent;
}

/** A fact of the custody timeline; `seq` names the chain entry that records it. */
export interface CustodyFact {
  /** What happened, in words a person reads: created, opened, submitted, revealed, completed, purged, revoked, expired, ... */
  event: string;
  at: string;
  seq: number;
  /** The chain entry's type, e.g. `request.revealed` or `share.purged`. */
  type: string;
  actor: { type: string; label: string | null };
  /** Why, where the chain says (purge_reason, revoked_reason, expiry, view limit, ticket closed). */
  reason: string | null;
  /**
   * A ticket status the service read from the helpdesk itself (a verified close): which helpdesk and
   * when it answered, as the entry's details say. Absent for facts no helpdesk read confirmed.
   */
  verified_by?: { helpdesk: string; read_at: string };
}

/**
 * What the destruction covers. `scope`, `ciphertext_stored` and `backups` are stated by every
 * certificate issued now; certificates issued before they were added lack them and still verify.
 */
export interface CertificateDestruction {
  destroyed: boolean;
  at: string | null;
  reason: string | null;
  seq: number | null;
  /** `live_table`: a destruction deletes the ciphertext from the service's table, not from the table's backups. */
  scope?: 'live_table';
  /** Whether the table ever held the credential's ciphertext: false for a request that ended before anything was submitted. */
  ciphertext_stored?: boolean;
  backups?: {
    /** How many days of point-in-time recovery the service's table keeps (0: none). */
    point_in_time_recovery_days: number;
    /** Until when those backups can restore the deleted ciphertext (`at` plus the days); null when none holds one. */
    ciphertext_restorable_until: string | null;
  };
}

export interface CertificateParty {
  membership_id: string | null;
  name: string | null;
  email: string | null;
}

export interface SealedToKey {
  membership_id: string | null;
  label: string | null;
  /** SHA-256 hex of the identity key's SPKI DER, as the app shows it. */
  fingerprint: string;
}

interface CertificateBody {
  format: typeof CERTIFICATE_FORMAT;
  /** Unique per issue. */
  certificate_id: string;
  issued_at: string;
  issuer: { name: string; app_url: string; jwks_url: string };
  /** False while the request or share has not ended (its credential may still exist). */
  final: boolean;
  organisation: { id: string; name: string };
  client: { id: string; name: string } | null;
  ticket: { ref: string | null; external_id: string | null; integration_id: string | null; url: string | null } | null;
  /** Every fact, oldest first. */
  timeline: CustodyFact[];
  /** Whether the stored ciphertext is gone, the fact that destroyed it, and what that covers (backups.ts). */
  destruction: CertificateDestruction;
  chain: {
    organisation_id: string;
    /** The organisation's chain head when the certificate was issued. */
    head: { seq: number; hash: string };
    /** The entries behind the timeline, ascending by seq. */
    entries: CertificateChainEntry[];
    /**
     * Entries about the record left out: repeats of a routine kind (ticket statuses received,
     * failed verification attempts, emailed codes) beyond the newest few of each, so a ticket
     * that re-posts its status on every edit cannot grow a certificate without bound. Every fact
     * that changed custody is always carried.
     */
    omitted_entries: number;
  };
}

export interface RequestCertificateBody extends CertificateBody {
  subject_kind: 'request';
  request: {
    id: string;
    status: string;
    subject_name: string;
    requester: CertificateParty;
    /** The recipients and the identity keys the credential was sealed to. */
    recipients: SealedToKey[];
    commitment: { value: string; computed_by: 'server' | 'browser' };
  };
}

export interface ShareCertificateBody extends CertificateBody {
  subject_kind: 'share';
  share: {
    id: string;
    status: string;
    created_by: CertificateParty;
    /** The fingerprint of the one-time recipient key the share was sealed to. */
    sealed_to: { fingerprint: string };
    view_limit: number;
    views: number;
    expires_at: string;
  };
}

export type UnsignedCertificate = RequestCertificateBody | ShareCertificateBody;

export interface CertificateSignature {
  alg: string;
  /** RFC 7638 thumbprint (SHA-256, base64url) of the signing key's public JWK. */
  kid: string;
  /** Base64url Ed25519 signature over the signing input (signing-input.ts): the digest of JCS(document without `signature`). */
  value: string;
}

export type SignedCertificate = UnsignedCertificate & { signature: CertificateSignature };

/** A public key as the JWKS publishes it (RFC 8037 OKP). */
export interface PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  alg?: string;
  use?: 'sig';
  /** When the key was retired (it still verifies the certificates it signed); absent for the current key. */
  retired_at?: string;
  created_at?: string;
}

export interface Jwks {
  keys: PublicJwk[];
}

export const GENESIS_HASH = '0'.repeat(64);

import type { Jwks, PublicJwk } from './custody/document.ts';

/**
 * The certificate signing keys (DESIGN.md, Certificates). Two ports:
 *
 * - `SigningKeyCustody` keeps the private halves and signs: deployed, AWS KMS keys of spec
 *   ECC_NIST_EDWARDS25519 (the private key never leaves KMS); locally, key files under `.data/`.
 * - `SigningKeyRegistry` records every public key ever used and which one is current, so the JWKS
 *   keeps retired keys published (certificates must verify for years). It lives in the table.
 */
export interface SigningKeyCustody {
  /**
   * The key to start with when none is registered: locally a new key file; deployed, the stack's
   * own KMS key. Answers the reference `sign` takes and the raw 32-byte Ed25519 public key, and the
   * same key every time it is asked, so the JWKS can show the key the first certificate will
   * register without registering it itself.
   */
  initialKey(): Promise<{ keyRef: string; rawPublicKey: Uint8Array }>;
  /** A brand-new key, for rotation (the operator CLI). */
  newKey(): Promise<{ keyRef: string; rawPublicKey: Uint8Array }>;
  /** Ed25519 over `message` itself (KMS: ED25519_SHA_512 with message type RAW). */
  sign(keyRef: string, message: Uint8Array): Promise<Uint8Array>;
}

export interface SigningKeyRecord {
  kid: string;
  jwk: PublicJwk;
  /** Where the private half is: a KMS key ARN, or `file:<kid>` locally. Never key material. */
  keyRef: string;
  createdAt: string;
  retiredAt: string | null;
}

export interface SigningKeyRegistry {
  /** Every key ever registered, oldest first. */
  list(): Promise<SigningKeyRecord[]>;
  current(): Promise<SigningKeyRecord | null>;
  /**
   * Registers `record` as the current key in one transaction: on condition that the current key is
   * still `previousKid` (null: that none is registered), retiring the previous one at the same time.
   * Throws WriteConflict when someone else changed the current key first.
   */
  makeCurrent(record: SigningKeyRecord, previousKid: string | null): Promise<void>;
}

/** The JWKS: every registered key, the current one first, retired ones marked with `retired_at`. */
export const jwksOf = (records: SigningKeyRecord[]): Jwks => ({
  keys: [...records]
    .sort((a, b) => Number(a.retiredAt !== null) - Number(b.retiredAt !== null) || (a.createdAt < b.createdAt ? 1 : -1))
    .map((record) => ({
      ...record.jwk,
      kid: record.kid,
      alg: 'Ed25519',
      use: 'sig' as const,
      created_at: record.createdAt,
      ...(record.retiredAt ? { retired_at: record.retiredAt } : {}),
    })),
});

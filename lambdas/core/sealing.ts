/**
 * The port for secrets the service must read back (webhook signing secrets, an integration's HMAC
 * secret or shared header value). Secrets that are only compared stay hashes and never come here.
 * Deployed the sealer is KMS envelope encryption; locally a key file under `.data/`.
 */

/** A secret sealed at rest: AES-256-GCM under a data key; deployed the data key is itself wrapped by KMS. */
export interface SealedSecret {
  v: 1;
  alg: 'A256GCM';
  /** Which key sealed it: the KMS key id/ARN, or `local:<sha256 prefix of the key file>` */
  keyId: string;
  /** The KMS-encrypted data key, base64; absent for the local key file. */
  wrappedKey?: string;
  iv: string;
  ciphertext: string;
  tag: string;
}

/** `context` binds a sealed value to where it belongs (for example {orgId, integrationId, purpose}); opening with another context fails. */
export interface SecretSealer {
  seal(plaintext: string, context: Record<string, string>): Promise<SealedSecret>;
  open(sealed: SealedSecret, context: Record<string, string>): Promise<string>;
}

const isString = (value: unknown): value is string => typeof value === 'string';

/** Sealed values come back from storage as plain JSON, so the shape is checked before it is trusted. */
export const isSealedSecret = (value: unknown): value is SealedSecret => {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return (
    candidate.v === 1 &&
    candidate.alg === 'A256GCM' &&
    isString(candidate.keyId) &&
    candidate.keyId.length > 0 &&
    (candidate.wrappedKey === undefined || isString(candidate.wrappedKey)) &&
    isString(candidate.iv) &&
    isString(candidate.ciphertext) &&
    isString(candidate.tag)
  );
};

/**
 * Canonical AAD of a context: keys sorted, JSON. Written out pair by pair rather than through
 * JSON.stringify of an object, because objects put integer-like keys first whatever order they are
 * added in; the same context must give the same bytes on every seal and open.
 */
export const contextAad = (context: Record<string, string>): Buffer => {
  const pairs = Object.entries(context).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [key, value] of pairs) {
    // KMS only takes string values, and a number would stringify differently here than there.
    if (!isString(value)) throw new TypeError(`context value for "${key}" must be a string`);
  }
  return Buffer.from(`{${pairs.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`).join(',')}}`, 'utf8');
};

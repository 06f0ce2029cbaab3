/**
 * The port for the key that short codes (the spoken challenge code, the emailed one-time code) are
 * hashed with. A six-digit code has only 10^6 values, so a plain or salted hash of it is undone by
 * trying them all; an HMAC under a key that is not in the table cannot be. Deployed the key is a
 * KMS HMAC key that never leaves KMS; locally a key file under `.data/`.
 */
export interface CodeKey {
  /** HMAC-SHA-256 of `message` (UTF-8) under the key, lowercase hex. */
  mac(message: string): Promise<string>;
}

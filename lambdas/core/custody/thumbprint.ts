import { bytesToBase64url } from './base64url.ts';

/**
 * RFC 7638 JWK thumbprints of Ed25519 public keys (RFC 8037), the `kid` of the service's signing
 * keys. WebCrypto only, so the browser's Verify page and Node 20 run the same code.
 */
export interface Ed25519PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
}

/** The public JWK of a raw 32-byte Ed25519 public key. */
export const ed25519PublicJwk = (rawPublicKey: Uint8Array): Ed25519PublicJwk => {
  if (rawPublicKey.length !== 32) throw new Error(`an Ed25519 public key is 32 bytes, not ${rawPublicKey.length}`);
  return { kty: 'OKP', crv: 'Ed25519', x: bytesToBase64url(rawPublicKey) };
};

/**
 * SHA-256 over `{"crv":..,"kty":..,"x":..}`: only the required members, in lexicographic order,
 * no whitespace (RFC 7638 section 3.2). Any other member (kid, alg, use, retired_at) is left out,
 * so the thumbprint names the key material alone.
 */
export const jwkThumbprint = async (jwk: Ed25519PublicJwk): Promise<string> => {
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string') throw new Error('not an Ed25519 public JWK');
  // JSON.stringify keeps insertion order and escapes as RFC 7638 requires (it follows RFC 7159).
  const members = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x });
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(members));
  return bytesToBase64url(new Uint8Array(digest));
};

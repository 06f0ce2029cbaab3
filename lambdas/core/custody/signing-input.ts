import { canonicalJson } from './canonical.ts';
import { CERTIFICATE_FORMAT } from './document.ts';

/**
 * What the Ed25519 signature covers: not the whole document but a short statement of its digest,
 * the UTF-8 of the RFC 8785 canonical JSON
 *
 *   {"document_sha256":"<hex SHA-256 of JCS(document without signature)>","format":"service-custody/v1"}
 *
 * because AWS KMS signs a RAW message of at most 4,096 bytes, and a certificate carries whole
 * chain entries (a completed request's is about 8 KB). This is still pure Ed25519 over canonical
 * JSON (KMS: ED25519_SHA_512, message type RAW; browsers' WebCrypto verifies it), and SHA-256 binds
 * every byte of the document. Shared by the signer and the library verifier, so they cannot
 * disagree; the single-file verifier (tools/verify-custody-certificate.mjs) builds the same bytes,
 * and the PDF and docs/certificates-and-shares.md print them from here or are tested against them.
 */
export const signingInput = (documentSha256Hex: string) => canonicalJson({ format: CERTIFICATE_FORMAT, document_sha256: documentSha256Hex });

/** The canonical JSON a certificate's digest is taken over: the document without its `signature`. */
export const signedBody = (document: Record<string, unknown>) => {
  const { signature: _signature, ...unsigned } = document;
  return canonicalJson(unsigned);
};

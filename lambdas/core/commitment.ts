import canonicalize from 'canonicalize';
import { sha256 } from './hashing.ts';

/**
 * The recipient commitment (DESIGN.md): the first 16 bytes, base64url, of SHA-256 over the
 * RFC 8785 canonical JSON of the recipient list sorted by membership id, each entry holding the
 * membership id and the identity-key fingerprint. The subject's browser recomputes it from the
 * keys the server serves and refuses to encrypt on a mismatch.
 */
export const recipientCommitment = (recipients: Array<{ membershipId: string; fingerprint: string }>) => {
  const entries = recipients
    .map((r) => ({ membership_id: r.membershipId, fingerprint: r.fingerprint }))
    .sort((a, b) => (a.membership_id < b.membership_id ? -1 : a.membership_id > b.membership_id ? 1 : 0));
  const canonical = canonicalize(entries);
  if (canonical === undefined) throw new Error('recipient list cannot be canonicalised');
  return sha256(canonical).subarray(0, 16).toString('base64url');
};

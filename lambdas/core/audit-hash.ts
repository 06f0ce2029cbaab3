import canonicalize from 'canonicalize';
import { sha256Hex } from './hashing.ts';
import type { AuditEntry } from './ports.ts';

/** An entry's chain hash: SHA-256 of the canonical JSON (RFC 8785) of everything stored but the hash itself. */
export const chainHashOf = (content: Omit<AuditEntry, 'hash'>) => sha256Hex(canonicalize(content) ?? '');

/**
 * Whether a stored entry's content is still what its hash was made of. An entry edited in the
 * table after it was chained is not, though its links to its neighbours still hold.
 */
export const hashMatchesContent = ({ hash, ...content }: AuditEntry) => chainHashOf(content) === hash;

import canonicalize from 'canonicalize';

/**
 * RFC 8785 (JCS) canonical JSON: the exact text that chain hashes and certificate signatures are
 * computed over. `canonicalize` returns undefined for values JSON cannot carry (undefined, a
 * function, a symbol); hashing the empty string in their place would hide a bug, so it throws.
 */
export const canonicalJson = (value: unknown): string => {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value has no JSON form (RFC 8785)');
  return text;
};

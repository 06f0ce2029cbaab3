/**
 * Base64url (RFC 4648 section 5, no padding) for the custody certificate code. Browser-safe: no
 * Buffer, so the Verify page and the Node tool share it.
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const VALUE = new Map([...ALPHABET].map((char, index) => [char, index]));

export const bytesToBase64url = (bytes: Uint8Array): string => {
  let text = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const chunk = (bytes[i] << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    const chars = Math.min(4, Math.ceil(((bytes.length - i) * 8) / 6));
    for (let c = 0; c < chars; c++) text += ALPHABET[(chunk >> (18 - 6 * c)) & 63];
  }
  return text;
};

/**
 * Strict decoding: only the alphabet, no padding, and the unused low bits of the last character
 * zero. A lenient decoder would map several texts to the same bytes, so a changed character in a
 * signature could still verify; here each byte string has exactly one spelling.
 * Returns null when `text` is not such a spelling.
 */
export const base64urlToBytes = (text: string): Uint8Array | null => {
  if (text.length % 4 === 1) return null;
  const bytes = new Uint8Array(Math.floor((text.length * 6) / 8));
  let buffer = 0;
  let bits = 0;
  let at = 0;
  for (const char of text) {
    const value = VALUE.get(char);
    if (value === undefined) return null;
    buffer = ((buffer << 6) | value) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes[at++] = (buffer >> bits) & 0xff;
    }
  }
  // Leftover bits (2 or 4) must be zero for the spelling to be the canonical one.
  if ((buffer & ((1 << bits) - 1)) !== 0) return null;
  return bytes;
};

/** A UTF-16 surrogate without its pair: JSON's \ud800 escapes can carry one, no text can. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Whether `text` is well-formed Unicode. Text that is not cannot be canonicalised (RFC 8785) into
 * an audit hash or an idempotency fingerprint, nor stored as the text it claims to be, so every
 * way in refuses it.
 */
export const isWellFormedText = (text: string) => !LONE_SURROGATE.test(text);

/** `text` with each lone surrogate replaced by U+FFFD, for text that is only echoed back (a status word). */
export const toWellFormedText = (text: string) => text.replace(new RegExp(LONE_SURROGATE.source, 'g'), '\uFFFD');

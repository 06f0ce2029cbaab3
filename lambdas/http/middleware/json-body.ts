import { badRequest, validationFailed } from '#core/errors.ts';
import type { ApiMiddleware } from '../types.ts';

/** A UTF-16 surrogate without its pair: JSON's \ud800 escapes can carry one, no text can. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The dotted path of the first string (member name or value) that is not well-formed Unicode, or
 * null. Such a string cannot be canonicalised (RFC 8785), hashed into the audit chain or stored
 * as the text it claims to be, so it is refused here, for every endpoint, as a field error.
 */
const illFormedPath = (value: unknown, path: string): string | null => {
  if (typeof value === 'string') return LONE_SURROGATE.test(value) ? path || 'body' : null;
  if (typeof value !== 'object' || value === null) return null;
  for (const [key, item] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    if (LONE_SURROGATE.test(key)) return at;
    const found = illFormedPath(item, at);
    if (found) return found;
  }
  return null;
};

/** Parses a JSON body when there is one; malformed JSON answers 400 `bad_request`, ill-formed text 422. */
export const jsonBody = (): ApiMiddleware => ({
  before: (request) => {
    const { body, isBase64Encoded } = request.event;
    if (body === undefined || body === null || body === '') return;
    const text = isBase64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body;
    if (text.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw badRequest('The request body is not valid JSON.');
    }
    const illFormed = illFormedPath(parsed, '');
    if (illFormed) throw validationFailed({ [illFormed]: ['Must be well-formed Unicode text (it holds a lone surrogate).'] });
    request.internal.body = parsed;
  },
});

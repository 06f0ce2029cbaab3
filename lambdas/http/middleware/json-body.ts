import { isUtf8 } from 'node:buffer';
import { badRequest, validationFailed } from '#core/errors.ts';
import { isWellFormedText } from '#core/unicode.ts';
import { MAX_JSON_DEPTH } from '../request-limits.ts';
import type { ApiMiddleware } from '../types.ts';
import { assertBodyWithinLimit } from './body-limit.ts';

const ILL_FORMED = 'Must be well-formed Unicode text (it holds a lone surrogate).';
const NOT_UTF8 = 'Must be UTF-8 text (it holds bytes that are not UTF-8).';
const NOT_FINITE = 'Must be a finite number (this one overflows to infinity).';
const TOO_DEEP = `Nests deeper than ${MAX_JSON_DEPTH} levels.`;

/**
 * The first value of a parsed body that no endpoint may take, with its dotted path and why, or
 * null. Each of them would make the RFC 8785 canonicalisation behind idempotency fingerprints and
 * audit hashes throw, so they are refused here, for every endpoint, as field errors:
 * - a string (member name or value) that is not well-formed Unicode, which no text can store, or
 *   that held bytes that are not UTF-8 (a Latin-1 `é`), which would be stored as U+FFFD unseen;
 * - a number JSON.parse turned into ±Infinity (`1e999`), which JSON cannot carry back;
 * - nesting deeper than MAX_JSON_DEPTH, which a recursive walk cannot be trusted with.
 * The walk keeps its own stack, so the depth of the body never reaches the call stack.
 */
const refusedValue = (root: unknown, notUtf8: boolean): { path: string; reason: string } | null => {
  // Bytes that are not UTF-8 were read as U+FFFD: in a body that held some, the text they landed in is refused.
  const lost = (text: string) => notUtf8 && text.includes('\uFFFD');
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value: root, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    const at = path || 'body';
    if (typeof value === 'string') {
      if (!isWellFormedText(value)) return { path: at, reason: ILL_FORMED };
      if (lost(value)) return { path: at, reason: NOT_UTF8 };
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value)) return { path: at, reason: NOT_FINITE };
    } else if (typeof value === 'object' && value !== null) {
      if (depth >= MAX_JSON_DEPTH) return { path: at, reason: TOO_DEEP };
      // Own keys only (JSON.parse makes `__proto__` an own data property like any other).
      const entries = Array.isArray(value) ? value.map((item, index) => [String(index), item] as const) : Object.entries(value);
      for (let index = entries.length - 1; index >= 0; index -= 1) {
        const [key, item] = entries[index];
        const itemPath = path ? `${path}.${key}` : key;
        if (!isWellFormedText(key)) return { path: itemPath, reason: ILL_FORMED };
        if (lost(key)) return { path: itemPath, reason: NOT_UTF8 };
        stack.push({ value: item, path: itemPath, depth: depth + 1 });
      }
    }
  }
  return null;
};

/**
 * Parses a JSON body when there is one: over the size limit answers 413 `payload_too_large`,
 * malformed JSON 400 `bad_request`, a value no endpoint may take 422 `validation_failed` on its field.
 * Only a POST's body is read: a GET's or DELETE's has no meaning (RFC 9110), so it is checked for
 * its size alone, as the gateway checks every body, and never refused for what it holds.
 */
export const jsonBody = (): ApiMiddleware => ({
  before: (request) => {
    assertBodyWithinLimit(request.event);
    if (request.event.requestContext.http.method !== 'POST') return;
    const { body, isBase64Encoded } = request.event;
    if (body === undefined || body === null || body === '') return;
    const bytes = isBase64Encoded ? Buffer.from(body, 'base64') : null;
    // Buffer#toString would replace bytes that are not UTF-8 with U+FFFD unseen.
    const notUtf8 = bytes !== null && !isUtf8(bytes);
    const text = bytes === null ? body : bytes.toString('utf8');
    if (text.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw badRequest('The request body is not valid JSON.');
    }
    const refused = refusedValue(parsed, notUtf8) ?? (notUtf8 ? { path: 'body', reason: NOT_UTF8 } : null);
    if (refused) throw validationFailed({ [refused.path]: [refused.reason] });
    request.internal.body = parsed;
  },
});

import { badRequest } from '#core/errors.ts';
import type { ApiMiddleware } from '../types.ts';

/** Parses a JSON body when there is one; malformed JSON answers 400 `bad_request`. */
export const jsonBody = (): ApiMiddleware => ({
  before: (request) => {
    const { body, isBase64Encoded } = request.event;
    if (body === undefined || body === null || body === '') return;
    const text = isBase64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body;
    if (text.trim() === '') return;
    try {
      request.internal.body = JSON.parse(text);
    } catch {
      throw badRequest('The request body is not valid JSON.');
    }
  },
});

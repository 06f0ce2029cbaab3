import { describe, expect, it } from 'vitest';
import {
  ApiError,
  conflict,
  illegalTransition,
  methodNotAllowed,
  notFound,
  rateLimited,
  validationFailed,
} from '../../lambdas/core/errors.ts';
import { errorResponse, json, NEVER_STORED, noContent, TRANSPORT_HEADERS, withHeaders } from '../../lambdas/http/responses.ts';

describe('errorResponse', () => {
  it('answers an ApiError with its status, code and message', () => {
    const response = errorResponse(illegalTransition('A revoked request cannot be completed.'));
    expect(response.statusCode).toBe(409);
    expect(response.headers).toEqual({ 'Content-Type': 'application/json', ...TRANSPORT_HEADERS, ...NEVER_STORED });
    expect(JSON.parse(response.body!)).toEqual({ message: 'A revoked request cannot be completed.', code: 'illegal_transition' });
  });

  it('adds errors for a validation failure', () => {
    const response = errorResponse(validationFailed({ subject_name: ['Must be 2 to 120 characters.'] }));
    expect(response.statusCode).toBe(422);
    expect(JSON.parse(response.body!)).toEqual({
      message: 'The request is invalid.',
      code: 'validation_failed',
      errors: { subject_name: ['Must be 2 to 120 characters.'] },
    });
  });

  it('carries the error headers (Retry-After, Allow)', () => {
    const limited = errorResponse(rateLimited(17));
    expect(limited.statusCode).toBe(429);
    expect(limited.headers).toEqual({ 'Content-Type': 'application/json', ...TRANSPORT_HEADERS, ...NEVER_STORED, 'Retry-After': '17' });
    expect(JSON.parse(limited.body!).code).toBe('rate_limited');

    const notAllowed = errorResponse(methodNotAllowed(['GET', 'POST']));
    expect(notAllowed.statusCode).toBe(405);
    expect(notAllowed.headers!.Allow).toBe('GET, POST');
    expect(JSON.parse(notAllowed.body!).code).toBe('method_not_allowed');
  });

  it('has no errors member unless the error carries them', () => {
    expect(JSON.parse(errorResponse(notFound()).body!)).toEqual({ message: 'No such record.', code: 'not_found' });
    expect(JSON.parse(errorResponse(conflict('busy')).body!)).toEqual({ message: 'busy', code: 'conflict' });
  });

  it.each([
    new Error('connect ECONNREFUSED 10.0.0.5:8000 secret=chs_live_abc'),
    new TypeError("Cannot read properties of undefined (reading 'challengeCodeHash')"),
    'a thrown string with table-name-prod',
    undefined,
    { status: 404, code: 'not_found', message: 'looks like an ApiError but is not' },
  ])('answers anything else with a bland 500 (%#)', (thrown) => {
    const response = errorResponse(thrown);
    expect(response.statusCode).toBe(500);
    expect(response.headers).toEqual({ 'Content-Type': 'application/json', ...TRANSPORT_HEADERS, ...NEVER_STORED });
    const body = JSON.parse(response.body!);
    expect(body).toEqual({ message: 'Something went wrong on our side. Try again later.', code: 'error' });
    for (const fragment of ['ECONNREFUSED', 'chs_live', 'challengeCodeHash', 'table-name-prod', 'looks like']) {
      expect(response.body).not.toContain(fragment);
    }
  });

  it('keeps the original status of an ApiError subclass-like instance with a cause', () => {
    const error = new ApiError(403, 'forbidden', 'No.', undefined, {}, { cause: new Error('internal detail') });
    const response = errorResponse(error);
    expect(response.statusCode).toBe(403);
    expect(response.body).not.toContain('internal detail');
  });
});

describe('json / noContent / withHeaders', () => {
  it('serialises with a JSON content type', () => {
    expect(json(201, { a: 1 }, { Location: '/x' })).toEqual({
      statusCode: 201,
      headers: { 'Content-Type': 'application/json', ...TRANSPORT_HEADERS, ...NEVER_STORED, Location: '/x' },
      body: '{"a":1}',
    });
    expect(noContent()).toEqual({ statusCode: 204, headers: { ...TRANSPORT_HEADERS, ...NEVER_STORED }, body: '' });
  });

  it('merges headers, the added ones winning', () => {
    expect(withHeaders(json(200, {}), { 'X-RateLimit-Limit': '600' }).headers).toEqual({
      'Content-Type': 'application/json',
      ...TRANSPORT_HEADERS,
      ...NEVER_STORED,
      'X-RateLimit-Limit': '600',
    });
    const unchanged = json(200, {});
    expect(withHeaders(unchanged, undefined)).toBe(unchanged);
  });
});

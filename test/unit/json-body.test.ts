import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { ApiError } from '../../lambdas/core/errors.ts';
import { fieldErrorsOf } from '../../lambdas/core/validation.ts';
import { bodyLimit } from '../../lambdas/http/middleware/body-limit.ts';
import { jsonBody } from '../../lambdas/http/middleware/json-body.ts';
import { MAX_BODY_BYTES, MAX_JSON_DEPTH } from '../../lambdas/http/request-limits.ts';
import type { ApiMiddleware, ApiRequest } from '../../lambdas/http/types.ts';

/** Runs a middleware's `before` on a POST (or `method`) holding `body`; returns the parsed body or the ApiError thrown. */
const run = (middleware: ApiMiddleware, body: string | undefined, isBase64Encoded = false, method = 'POST') => {
  const request = { event: { body, isBase64Encoded, requestContext: { http: { method } } }, internal: {} } as unknown as ApiRequest;
  try {
    middleware.before!(request);
    return { body: request.internal.body };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { error: { status: error.status, code: error.code, errors: error.errors } };
  }
};

describe('the JSON body: what every endpoint refuses before any use case sees it', () => {
  it.each([
    ['a number that overflows to infinity', '{"ttl_minutes":1e999}', 'ttl_minutes', 'Must be a finite number'],
    ['a negative one', '{"a":[1,-1E400]}', 'a.1', 'Must be a finite number'],
    ['a whole body that overflows', '1e999', 'body', 'Must be a finite number'],
    ['a lone surrogate in a value', '{"subject_name":"Jane \\ud800"}', 'subject_name', 'well-formed Unicode'],
    ['a lone surrogate in a key', '{"\\udfff":1}', '\udfff', 'well-formed Unicode'],
  ])('%s: 422 validation_failed on the field', (_, body, field, message) => {
    const { error } = run(jsonBody(), body);
    expect(error).toMatchObject({ status: 422, code: 'validation_failed' });
    expect(Object.keys(error!.errors!)).toEqual([field]);
    expect(error!.errors![field][0]).toContain(message);
  });

  it('bytes that are not UTF-8 (Latin-1 text, stray bytes) answer 422 on the field they landed in, never U+FFFD stored', () => {
    const base64 = (...parts: Array<string | number[]>) => Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'utf8') : Buffer.from(part)))).toString('base64');
    for (const [body, field] of [
      [base64('{"subject_name":"J', [0xff, 0xfe], 'ne Doe","n":1}'), 'subject_name'],
      [base64('{"description":"caf', [0xe9], '"}'), 'description'],
      [base64('{"a":{"caf', [0xe9], '":1}}'), 'a.caf\uFFFD'],
    ] as const) {
      const { error } = run(jsonBody(), body, true);
      expect(error, field).toMatchObject({ status: 422, code: 'validation_failed', errors: { [field]: ['Must be UTF-8 text (it holds bytes that are not UTF-8).'] } });
    }
    // A U+FFFD sent as UTF-8 is text like any other.
    expect(run(jsonBody(), base64('{"subject_name":"J\uFFFDne"}'), true)).toEqual({ body: { subject_name: 'J\uFFFDne' } });
  });

  it(`nesting deeper than ${MAX_JSON_DEPTH} levels, even thousands deep, is a field error and never a stack overflow`, () => {
    for (const depth of [MAX_JSON_DEPTH + 1, 10_000, 200_000]) {
      for (const body of [`${'['.repeat(depth)}${']'.repeat(depth)}`, `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`]) {
        const { error } = run(jsonBody(), body);
        expect(error).toMatchObject({ status: 422, code: 'validation_failed' });
        expect(Object.values(error!.errors!)[0]).toEqual([`Nests deeper than ${MAX_JSON_DEPTH} levels.`]);
      }
    }
  });

  it(`${MAX_JSON_DEPTH} levels are accepted, with finite numbers and paired surrogates`, () => {
    const body = `${'['.repeat(MAX_JSON_DEPTH - 1)}{"n":-1e308,"s":"\\ud83d\\ude00"}${']'.repeat(MAX_JSON_DEPTH - 1)}`;
    expect(run(jsonBody(), body).error).toBeUndefined();
  });

  it('keys named like prototype members stay own data fields of the parsed body', () => {
    const { body } = run(jsonBody(), '{"__proto__":{"polluted":true},"constructor":1,"toString":"x"}');
    expect(Object.keys(body as object)).toEqual(['__proto__', 'constructor', 'toString']);
    expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('malformed JSON is 400 bad_request; blank is no body', () => {
    expect(run(jsonBody(), '{"a":').error).toMatchObject({ status: 400, code: 'bad_request' });
    expect(run(jsonBody(), '   ')).toEqual({ body: undefined });
  });

  it('a body over 4 MiB that reaches a function answers 413 payload_too_large, base64 counted as the bytes it holds', () => {
    const over = 'x'.repeat(MAX_BODY_BYTES + 1);
    for (const middleware of [jsonBody(), bodyLimit()]) {
      expect(run(middleware, over).error).toMatchObject({ status: 413, code: 'payload_too_large' });
      expect(run(middleware, Buffer.from(over).toString('base64'), true).error).toMatchObject({ status: 413, code: 'payload_too_large' });
      expect(run(middleware, Buffer.alloc(MAX_BODY_BYTES, ' ').toString('base64'), true).error).toBeUndefined();
    }
  });

  it.each(['GET', 'DELETE'])('a %s body is checked for its size only: never parsed, never refused for what it holds', (method) => {
    for (const body of ['{"a":', '1e999', '{"\\udfff":1}', `${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`]) {
      expect(run(jsonBody(), body, false, method)).toEqual({ body: undefined });
    }
    expect(run(jsonBody(), 'x'.repeat(MAX_BODY_BYTES + 1), false, method).error).toMatchObject({ status: 413, code: 'payload_too_large' });
  });
});

describe('field errors never touch an object prototype', () => {
  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'])('an unknown field named %s is reported under its own name', (name) => {
    const input = JSON.parse(`{"email":1,"${name}":1}`);
    const result = z.safeParse(z.strictObject({ email: z.string() }), input);
    expect(result.success).toBe(false);
    const errors = fieldErrorsOf(result.error!);
    expect(Object.keys(errors).sort()).toEqual(['email', name].sort());
    expect(Object.getOwnPropertyDescriptor(errors, name)?.value).toEqual(['Unknown field.']);
    expect(Object.getPrototypeOf(errors)).toBe(Object.prototype);
    expect(JSON.parse(JSON.stringify(errors))[name]).toEqual(['Unknown field.']);
  });
});

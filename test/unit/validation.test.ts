import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiError, MAX_FIELDS_NAMED, validationFailed } from '../../lambdas/core/errors.ts';
import { fieldErrorsOf, parseOrThrow, queryInteger, ulidString } from '../../lambdas/core/validation.ts';

const errorsFor = (schema: z.ZodType, input: unknown) => {
  const result = schema.safeParse(input);
  if (result.success) throw new Error(`expected ${JSON.stringify(input)} to be refused`);
  return fieldErrorsOf(result.error);
};

describe('fieldErrorsOf', () => {
  it('joins nested paths with "."', () => {
    const schema = z.object({ delivery: z.object({ method: z.enum(['none', 'email']) }), recipients: z.array(z.email('bad email')) });
    const errors = errorsFor(schema, { delivery: { method: 'fax' }, recipients: ['a@b.test', 'nope'] });
    expect(Object.keys(errors).sort()).toEqual(['delivery.method', 'recipients.1']);
    expect(errors['recipients.1']).toEqual(['bad email']);
    expect(errors['delivery.method']).toHaveLength(1);
  });

  it('reports each unknown key under its own name', () => {
    const schema = z.strictObject({ a: z.string(), nested: z.strictObject({ b: z.string() }) });
    const errors = errorsFor(schema, { a: 'x', nested: { b: 'y', c: 1 }, d: 1, e: 2 });
    expect(errors).toEqual({ d: ['Unknown field.'], e: ['Unknown field.'], 'nested.c': ['Unknown field.'] });
  });

  it('collects several messages for one field', () => {
    const schema = z.object({ name: z.string().min(5, 'too short').regex(/^[0-9]+$/, 'digits only') });
    expect(errorsFor(schema, { name: 'ab' })).toEqual({ name: ['too short', 'digits only'] });
  });

  it('reports a root error under "body"', () => {
    const errors = errorsFor(z.object({ a: z.string() }), 'not an object');
    expect(Object.keys(errors)).toEqual(['body']);
  });
});

describe('parseOrThrow', () => {
  it('returns the parsed data', () => {
    expect(parseOrThrow(z.object({ n: z.number().default(3) }), {})).toEqual({ n: 3 });
  });

  it('throws 422 validation_failed with errors by field', () => {
    try {
      parseOrThrow(z.strictObject({ n: z.number() }), { n: 'x', extra: true });
      throw new Error('not thrown');
    } catch (error) {
      expect(error).toBeInstanceOf(ApiError);
      const api = error as ApiError;
      expect(api.status).toBe(422);
      expect(api.code).toBe('validation_failed');
      expect(Object.keys(api.errors!).sort()).toEqual(['extra', 'n']);
    }
  });
});

describe('queryInteger', () => {
  const limit = queryInteger(1, 100);

  it.each([
    ['1', 1],
    ['50', 50],
    ['100', 100],
    ['007', 7],
  ])('accepts %j as %i', (input, expected) => {
    expect(limit.parse(input)).toBe(expected);
  });

  it.each(['1.5', '-1', 'abc', '', ' 5', '5 ', '1e2', '0x10', '+5'])('refuses %j as not an integer', (input) => {
    const result = limit.safeParse(input);
    expect(result.success).toBe(false);
    expect(result.error!.issues[0].message).toBe('Must be an integer.');
  });

  it('refuses values outside the bounds', () => {
    expect(limit.safeParse('0').error!.issues[0].message).toBe('Must be at least 1.');
    expect(limit.safeParse('101').error!.issues[0].message).toBe('Must be at most 100.');
    expect(limit.safeParse('99999999999999999999').success).toBe(false);
  });

  it('refuses a number (query values are strings)', () => {
    expect(limit.safeParse(5).success).toBe(false);
  });
});

describe('ulidString', () => {
  it('accepts a lower-case 26-character ULID only', () => {
    const schema = ulidString();
    expect(schema.safeParse('01hzzzzzzzzzzzzzzzzzzzzor1').success).toBe(true);
    expect(schema.safeParse('01HZZZZZZZZZZZZZZZZZZZZOR1').success).toBe(false);
    expect(schema.safeParse('01hzzzzzzzzzzzzzzzzzzzzor').success).toBe(false);
    expect(schema.safeParse('01hzzzzzzzzzzzzzzzzzzzzor12').success).toBe(false);
    expect(schema.safeParse('01hzzzzzzzzzzzzzzzzzzzzo-1').success).toBe(false);
  });
});

describe('a 422 with very many fields', () => {
  it('names the first hundred and says how many were refused, so the answer stays near the size of the errors it names', () => {
    const schema = z.strictObject({ type: z.string() });
    const body = Object.fromEntries(Array.from({ length: 5000 }, (_, n) => [`unknown_${n}`, 1]));
    let refused: unknown;
    try {
      parseOrThrow(schema, { type: 'password', ...body });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ApiError);
    const error = refused as ApiError;
    expect(error).toMatchObject({ status: 422, code: 'validation_failed' });
    expect(Object.keys(error.errors!)).toHaveLength(MAX_FIELDS_NAMED);
    expect(error.errors!.unknown_0).toEqual(['Unknown field.']);
    expect(error.message).toBe(`The request is invalid. The first ${MAX_FIELDS_NAMED} of the 5000 fields refused are named.`);
  });

  it('names every field while there are at most a hundred', () => {
    const errors = Object.fromEntries(Array.from({ length: MAX_FIELDS_NAMED }, (_, n) => [`f${n}`, ['Required.']]));
    const error = validationFailed(errors);
    expect(error.errors).toEqual(errors);
    expect(error.message).toBe('The request is invalid.');
  });
});

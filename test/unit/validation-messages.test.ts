import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { en } from 'zod/locales';
import { fieldErrorsOf } from '../../lambdas/core/validation.ts';
import { serviceMessage } from '../../lambdas/core/validation-messages.ts';
import { expectServiceVoice, isValidatorWording } from '../support/service-voice.ts';

/** The messages of `input` under `schema`, parsed as the service parses (validation.ts set the map). */
const messagesOf = (schema: z.core.$ZodType, input: unknown) => {
  const result = z.safeParse(schema, input);
  if (result.success) throw new Error(`${JSON.stringify(input)} was accepted`);
  return result.error.issues.map((issue) => issue.message);
};

describe('the messages a schema leaves to the validator are the service\u2019s own', () => {
  it.each<[string, z.core.$ZodType, unknown, string]>([
    ['a field left out', z.strictObject({ name: z.string() }), {}, 'Required.'],
    ['text expected', z.string(), 5, 'Must be a string.'],
    ['a number expected', z.number(), 'five', 'Must be a number.'],
    ['an integer expected', z.int(), 1.5, 'Must be an integer.'],
    ['true or false expected', z.boolean(), 'yes', 'Must be true or false.'],
    ['an array expected', z.array(z.string()), {}, 'Must be an array.'],
    ['an object expected', z.strictObject({}), [], 'Must be an object.'],
    ['an object for a record', z.record(z.string(), z.string()), 'x', 'Must be an object.'],
    ['empty text', z.string().check(z.minLength(1)), '', 'Must not be empty.'],
    ['short text', z.string().check(z.minLength(3)), 'ab', 'Must have at least 3 characters.'],
    ['long text', z.string().check(z.maxLength(3)), 'abcd', 'Must have at most 3 characters.'],
    ['text of a fixed length', z.string().check(z.length(2)), 'abc', 'Must be exactly 2 characters.'],
    ['an empty array', z.array(z.string()).check(z.minLength(1)), [], 'Must not be empty.'],
    ['a long array', z.array(z.string()).check(z.maxLength(1)), ['a', 'b'], 'Must have at most 1 item.'],
    ['a small number', z.number().check(z.gte(5)), 4, 'Must be at least 5.'],
    ['a number not above', z.number().check(z.gt(5)), 5, 'Must be more than 5.'],
    ['a big number', z.number().check(z.lte(5)), 6, 'Must be at most 5.'],
    ['a number not below', z.number().check(z.lt(5)), 5, 'Must be less than 5.'],
    ['a multiple', z.number().check(z.multipleOf(5)), 7, 'Must be a multiple of 5.'],
    ['one of several', z.enum(['a', 'b']), 'c', 'Must be one of a, b.'],
    ['one value', z.literal('v1'), 'v2', 'Must be "v1".'],
    ['an email address', z.email(), 'nope', 'Must be an email address.'],
    ['a URL', z.url(), 'nope', 'Must be a URL.'],
    ['a date-time', z.iso.datetime(), 'nope', 'Must be a date and time (ISO 8601, with a zone).'],
    ['a pattern', z.string().check(z.regex(/^x$/)), 'y', 'Is not in the accepted format.'],
    ['a prefix', z.string().check(z.startsWith('whsec_')), 'x', 'Must start with "whsec_".'],
    ['a union', z.union([z.string(), z.number()]), true, 'Is none of the accepted forms.'],
    ['a custom check', z.string().check(z.refine(() => false)), 'x', 'Is not accepted.'],
  ])('%s', (_, schema, input, message) => {
    expect(messagesOf(schema, input)).toEqual([message]);
  });

  it('names each unknown field, and leaves a schema\u2019s own message as it is', () => {
    expect(fieldErrorsOf(z.safeParse(z.strictObject({ a: z.string() }), { a: 'x', b: 1 }).error!)).toEqual({ b: ['Unknown field.'] });
    expect(messagesOf(z.string().check(z.minLength(2, 'Must be 2 to 120 characters.')), 'a')).toEqual(['Must be 2 to 120 characters.']);
  });

  it('says something else than the validator for every kind of issue', () => {
    const english = en().localeError!;
    const issues: z.core.$ZodRawIssue[] = [
      { code: 'invalid_type', expected: 'string', input: 5 },
      { code: 'invalid_type', expected: 'string', input: undefined },
      { code: 'too_small', origin: 'string', minimum: 2, inclusive: true, input: 'a' },
      { code: 'too_big', origin: 'array', maximum: 2, inclusive: true, input: [] },
      { code: 'invalid_format', format: 'email', input: 'x' },
      { code: 'invalid_format', format: 'regex', pattern: '^x$', input: 'y' },
      { code: 'not_multiple_of', divisor: 3, input: 4 },
      { code: 'unrecognized_keys', keys: ['a'], input: {} },
      { code: 'invalid_union', errors: [], input: 1 },
      { code: 'invalid_key', origin: 'record', issues: [], input: {} },
      { code: 'invalid_element', origin: 'set', key: 1, issues: [], input: 1 },
      { code: 'invalid_value', values: ['a', 'b'], input: 'c' },
      { code: 'custom', input: 1 },
    ] as z.core.$ZodRawIssue[];
    for (const issue of issues) {
      const theirs = english(issue) as string;
      expect(isValidatorWording(theirs), `the detector knows "${theirs}"`).toBe(true);
      expectServiceVoice([serviceMessage(issue)], issue.code);
    }
  });
});

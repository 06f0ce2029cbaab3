import * as z from 'zod/mini';
import { calendarDay } from './calendar.ts';
import { validationFailed, type FieldErrors } from './errors.ts';
import { serviceMessage } from './validation-messages.ts';

// The messages the schemas leave to zod (types, options, formats, sizes) are the service's own
// (validation-messages.ts), never zod's English. Every schema is parsed through this module, which
// sets it first.
z.config({ customError: serviceMessage });

export const UNKNOWN_FIELD = 'Unknown field.';

/**
 * Parses `input` with `schema`, or throws 422 `validation_failed` with `errors` keyed by field;
 * `unknownName` is what a name the schema does not know is told (a body's field by default).
 */
export const parseOrThrow = <S extends z.core.$ZodType>(schema: S, input: unknown, unknownName = UNKNOWN_FIELD): z.infer<S> => {
  const result = z.safeParse(schema, input);
  if (result.success) return result.data;
  throw validationFailed(fieldErrorsOf(result.error, unknownName));
};

export const fieldErrorsOf = (error: z.core.$ZodError, unknownName = UNKNOWN_FIELD): FieldErrors => {
  // Field names come from the caller's body or query (`constructor`, `__proto__`, `toString`):
  // on a plain object they would read or set its prototype, so they are gathered in a Map and
  // only then turned into own properties (Object.fromEntries defines, it never assigns).
  const errors = new Map<string, string[]>();
  const add = (field: string, message: string) => {
    const messages = errors.get(field);
    if (messages) messages.push(message);
    else errors.set(field, [message]);
  };
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      const parent = issue.path.join('.');
      for (const key of issue.keys) add(parent ? `${parent}.${key}` : key, unknownName);
      continue;
    }
    add(issue.path.length ? issue.path.join('.') : 'body', issue.message);
  }
  return Object.fromEntries(errors);
};

/**
 * The error of a required field that has a message of its own for a wrong value: a field left out
 * is "Required.", as every field without one says (validation-messages.ts), not that message.
 */
export const requiredOr =
  (message: string) =>
  (issue: z.core.$ZodRawIssue): string =>
    issue.input === undefined ? 'Required.' : message;

export const ulidString = () => z.string().check(z.regex(/^[0-9a-z]{26}$/, 'Must be a 26-character lower-case ULID.'));

/** Query-string integers: digits only, then a bounded integer. */
export const queryInteger = (min: number, max: number) =>
  z.pipe(
    z.pipe(z.string().check(z.regex(/^[0-9]+$/, 'Must be an integer.')), z.transform(Number)),
    z.number().check(z.int(), z.gte(min, `Must be at least ${min}.`), z.lte(max, `Must be at most ${max}.`)),
  );

/** A query's day, YYYY-MM-DD and on the calendar (no 30 February), as the instant it starts (UTC). */
export const queryDay = () =>
  z.pipe(
    z.string(),
    z.transform((text: string, context) => {
      const day = calendarDay(text);
      if (day) return day;
      context.issues.push({ code: 'custom', message: 'Must be a date, YYYY-MM-DD.', input: text });
      return z.NEVER;
    }),
  );

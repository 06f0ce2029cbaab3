import { z } from 'zod';
import { validationFailed, type FieldErrors } from './errors.ts';

/** Parses `input` with `schema`, or throws 422 `validation_failed` with `errors` keyed by field. */
export const parseOrThrow = <S extends z.ZodType>(schema: S, input: unknown): z.infer<S> => {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw validationFailed(fieldErrorsOf(result.error));
};

export const fieldErrorsOf = (error: z.ZodError): FieldErrors => {
  const errors: FieldErrors = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      const parent = issue.path.join('.');
      for (const key of issue.keys) add(parent ? `${parent}.${key}` : key, 'Unknown field.');
      continue;
    }
    add(issue.path.length ? issue.path.join('.') : 'body', issue.message);
  }
  return errors;
};

export const ulidString = () => z.string().regex(/^[0-9a-z]{26}$/, 'Must be a 26-character lower-case ULID.');

/** Query-string integers: digits only, then a bounded integer. */
export const queryInteger = (min: number, max: number) =>
  z
    .string()
    .regex(/^[0-9]+$/, 'Must be an integer.')
    .transform(Number)
    .pipe(z.number().int().min(min, `Must be at least ${min}.`).max(max, `Must be at most ${max}.`));

import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { emailAddress } from '../../lambdas/core/email-address.ts';
import { fieldErrorsOf } from '../../lambdas/core/validation.ts';

const parse = (value: unknown) => {
  const result = z.safeParse(z.strictObject({ email: emailAddress() }), { email: value });
  return result.success ? result.data.email : fieldErrorsOf(result.error);
};

describe('emailAddress', () => {
  it.each([
    ['anna@müller.de', 'anna@xn--mller-kva.de'],
    ['Anna@MÜLLER.de', 'Anna@xn--mller-kva.de'],
    ['ivan@пример.рф', 'ivan@xn--e1afmkfd.xn--p1ai'],
    ['ivan@example.xn--p1ai', 'ivan@example.xn--p1ai'],
    ["o'brien+handoff@example.co.uk", "o'brien+handoff@example.co.uk"],
  ])('takes %s as %s (the domain in punycode, the form DNS and SES know)', (given, kept) => {
    expect(parse(given)).toBe(kept);
  });

  it.each([
    ['a non-ASCII mailbox name', 'jürgen@example.com'],
    ['no domain dot', 'anna@münchen'],
    ['a domain label starting with a hyphen', 'anna@-example.de'],
    ['two dots', 'anna@example..de'],
    ['a space', 'anna@ example.de'],
    ['a one-letter top-level label', 'anna@example.d'],
    ['no @', 'anna.example.de'],
  ])('refuses %s in the service\'s words', (_, given) => {
    expect(parse(given)).toEqual({ email: ['Must be an email address.'] });
  });

  it('refuses an address over 254 characters, counted in punycode', () => {
    const local = 'a'.repeat(240);
    expect(parse(`${local}@müller.de`)).toEqual({ email: ['Must be at most 254 characters.'] });
    expect(parse(`${local}@mueller.de`)).toBe(`${local}@mueller.de`);
  });

  it('refuses what is not a string', () => {
    expect(parse(42)).toEqual({ email: ['Must be a string.'] });
  });
});

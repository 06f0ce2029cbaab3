/**
 * The phone metadata the service ships is the package's `min` metadata less the number formats
 * (lambdas/core/phone/trim-metadata.ts). It must be what `npm run phone-metadata` writes from the
 * installed package, and read every number as the package's own metadata reads it: each
 * country's example number written the ways people write it, and random digits in every length
 * each country allows.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parsePhoneNumberFromString as parseWithPackageMetadata } from 'libphonenumber-js/min';
import minMetadata from 'libphonenumber-js/min/metadata';
import examples from 'libphonenumber-js/mobile/examples';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PHONE_COUNTRY, toE164 } from '../../lambdas/core/phone.ts';
import { PHONE_METADATA_FILE, trimmedPhoneMetadata } from '../../lambdas/core/phone/trim-metadata.ts';

/** toE164 as it was with the package's whole `min` metadata. */
const e164WithPackageMetadata = (input: string) => {
  const parsed = parseWithPackageMetadata(input, DEFAULT_PHONE_COUNTRY);
  return parsed && parsed.isValid() ? parsed.number : null;
};

/** A seeded generator, so a failure names inputs that come back on the next run. */
const seeded = (seed: number) => () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};

const countries = (minMetadata as unknown as { countries: Record<string, [string, string, string, number[]]> }).countries;

describe('the shipped phone metadata', () => {
  it('is what npm run phone-metadata writes from the installed libphonenumber-js, and has no formats', () => {
    const shipped = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', PHONE_METADATA_FILE), 'utf8'));
    expect(shipped).toEqual(JSON.parse(JSON.stringify(trimmedPhoneMetadata(minMetadata))));
    expect(Object.values(shipped.countries as Record<string, unknown[]>).every((country) => JSON.stringify(country[4] ?? []) === '[]')).toBe(true);
    expect(JSON.stringify(shipped).length).toBeLessThan(JSON.stringify(minMetadata).length * 0.5);
  });

  it("reads every country's example number, written six ways, as the package's own metadata does", () => {
    const inputs: string[] = [];
    for (const [country, national] of Object.entries(examples as Record<string, string>)) {
      const callingCode = countries[country]?.[0];
      if (!callingCode) continue;
      inputs.push(national, `0${national}`, `+${callingCode}${national}`, `+${callingCode} ${national.replace(/(\d{3})/g, '$1 ')}`, `00${callingCode}${national}`, `(+${callingCode}) ${national}-`);
    }
    expect(inputs.length).toBeGreaterThan(1_000);
    const valid = inputs.filter((input) => e164WithPackageMetadata(input) !== null).length;
    expect(valid, 'most inputs are valid numbers, so the comparison is not of nulls').toBeGreaterThan(inputs.length / 3);
    for (const input of inputs) expect(toE164(input), input).toBe(e164WithPackageMetadata(input));
  });

  it('reads random digits of every length each country allows, and one either side, as the package does', () => {
    const random = seeded(20_261_127);
    const digits = (length: number) => Array.from({ length }, () => Math.floor(random() * 10)).join('');
    const inputs: string[] = [];
    for (const [callingCode, , , lengths = []] of Object.values(countries)) {
      for (const length of new Set(lengths.flatMap((allowed) => [allowed - 1, allowed, allowed + 1]))) {
        for (let sample = 0; sample < 8; sample += 1) {
          const number = digits(length);
          inputs.push(`+${callingCode}${number}`, `0${number}`);
        }
      }
    }
    expect(inputs.length).toBeGreaterThan(15_000);
    const valid = inputs.filter((input) => e164WithPackageMetadata(input) !== null).length;
    expect(valid, 'some random numbers are valid').toBeGreaterThan(500);
    for (const input of inputs) expect(toE164(input), input).toBe(e164WithPackageMetadata(input));
  });
});

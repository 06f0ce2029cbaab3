import { parsePhoneNumberFromString, type MetadataJson } from 'libphonenumber-js/core';
// The package's `min` metadata less the number formats, which parsing never reads (phone/trim-metadata.ts).
import metadata from './phone/metadata.json' with { type: 'json' };

/** The platform default country for national numbers (SPEC.md: UK). */
export const DEFAULT_PHONE_COUNTRY = 'GB';

/** Returns the number in E.164, or null when it is not a valid phone number. */
export const toE164 = (input: string): string | null => {
  const parsed = parsePhoneNumberFromString(input, DEFAULT_PHONE_COUNTRY, metadata as unknown as MetadataJson);
  return parsed && parsed.isValid() ? parsed.number : null;
};

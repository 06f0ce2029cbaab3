import { parsePhoneNumberFromString } from 'libphonenumber-js';

/** The platform default country for national numbers (SPEC.md: UK). */
export const DEFAULT_PHONE_COUNTRY = 'GB';

/** Returns the number in E.164, or null when it is not a valid phone number. */
export const toE164 = (input: string): string | null => {
  const parsed = parsePhoneNumberFromString(input, DEFAULT_PHONE_COUNTRY);
  return parsed && parsed.isValid() ? parsed.number : null;
};

/**
 * The phone metadata this service ships: libphonenumber-js's `min` metadata without the number
 * formats. Parsing and validating a number (all `toE164` does) never reads a country's formats:
 * only formatting and as-you-type do (format.js, AsYouTypeFormatter.js). Dropping them takes about
 * 50 kB off every function that reads a phone number (the whole metadata is 83 kB), which the
 * functions that create requests need to stay within their 250 kB budget.
 *
 * `npm run phone-metadata` writes lambdas/core/phone/metadata.json with this from the installed
 * package; a test fails while the file differs (after an upgrade of libphonenumber-js), and
 * another checks that every example number of every country parses to the same answer with this
 * metadata and with the package's own.
 */
import type { MetadataJson } from 'libphonenumber-js/core';

/** Index of a country's (or a non-geographic calling code's) formats in the `min` metadata's arrays. */
const FORMATS = 4;

const withoutFormats = (entries: Record<string, unknown[]> | undefined) =>
  entries && Object.fromEntries(Object.entries(entries).map(([code, entry]) => [code, entry.map((field, index) => (index === FORMATS ? [] : field))]));

export const trimmedPhoneMetadata = (full: MetadataJson): MetadataJson => {
  const source = full as unknown as { countries: Record<string, unknown[]>; nonGeographic?: Record<string, unknown[]> };
  return { ...full, countries: withoutFormats(source.countries), ...(source.nonGeographic ? { nonGeographic: withoutFormats(source.nonGeographic) } : {}) } as unknown as MetadataJson;
};

export const PHONE_METADATA_FILE = 'lambdas/core/phone/metadata.json';

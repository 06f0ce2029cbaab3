/**
 * `npm run phone-metadata`: writes the phone metadata the service ships (lambdas/core/phone/
 * trim-metadata.ts says what it leaves out and why) from the installed libphonenumber-js. Run it
 * after upgrading the package; the tests fail until then.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import minMetadata from 'libphonenumber-js/min/metadata';
import { PHONE_METADATA_FILE, trimmedPhoneMetadata } from '#core/phone/trim-metadata.ts';

writeFileSync(join(import.meta.dirname, '..', PHONE_METADATA_FILE), `${JSON.stringify(trimmedPhoneMetadata(minMetadata))}\n`);
console.log(`wrote ${PHONE_METADATA_FILE}`);

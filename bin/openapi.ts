/**
 * `npm run openapi`: writes docs/openapi.json from the route table, the schemas the handlers
 * validate with and the response objects, and docs/openapi.d.ts, the client types made of it.
 * The tests fail while either file differs from what this writes.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DOCUMENT_FILE, TYPES_FILE, documentText, typesText } from '#http/openapi/files.ts';

const root = join(import.meta.dirname, '..');
const text = documentText();
writeFileSync(join(root, DOCUMENT_FILE), text);
writeFileSync(join(root, TYPES_FILE), await typesText(JSON.parse(text)));
console.log(`wrote ${DOCUMENT_FILE} and ${TYPES_FILE}`);

import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { openApiDocument } from './document.ts';

/**
 * The committed files `npm run openapi` writes (bin/openapi.ts), relative to the repository root:
 * the document, which GET /v1/openapi.json serves, and the TypeScript types openapi-typescript
 * makes of it, for a typed client (openapi-fetch).
 */
export const DOCUMENT_FILE = 'docs/openapi.json';
export const TYPES_FILE = 'docs/openapi.d.ts';

/** The document as committed: two-space JSON with a final newline. */
export const documentText = () => `${JSON.stringify(openApiDocument(), null, 2)}\n`;

/** openapi-typescript's types of a document, as its command line writes them. */
export const typesText = async (document: unknown) => astToString(await openapiTS(document as OpenAPI3));

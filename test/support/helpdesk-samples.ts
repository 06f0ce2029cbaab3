import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A vendor sample from test/fixtures/helpdesk-apis, without the `_source` note each carries (where
 * it was copied from), which is no field of the vendor's body.
 */
export const helpdeskSample = (name: string) => {
  const { _source: _, ...body } = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'fixtures', 'helpdesk-apis', name), 'utf8'));
  return body as Record<string, any>;
};

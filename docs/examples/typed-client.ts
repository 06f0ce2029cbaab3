/**
 * A typed client of the API in a few lines: openapi-fetch, typed by the types openapi-typescript
 * makes of the document (docs/openapi.d.ts here; `npx openapi-typescript <origin>/v1/openapi.json
 * -o openapi.d.ts` makes the same file from a running service). The tests run it against a
 * started service and type-check it.
 */
import { randomUUID } from 'node:crypto';
import createClient from 'openapi-fetch';
import type { paths } from '../openapi.d.ts';

/** `origin` is the service's address without `/v1`, e.g. http://localhost:3000. */
export const handoffClient = (origin: string, apiKey: string) =>
  createClient<paths>({ baseUrl: origin, headers: { Authorization: `Bearer ${apiKey}` } });

export type HandoffClient = ReturnType<typeof handoffClient>;

/** Creates a request with a preset's defaults, then reads it back. */
export const createAndReadBack = async (client: HandoffClient, subjectName: string, preset: string) => {
  const created = await client.POST('/v1/requests', {
    // A retry with the same key replays the first answer instead of creating a second request.
    params: { header: { 'Idempotency-Key': randomUUID() } },
    body: { subject_name: subjectName, preset },
  });
  if (created.error) throw new Error(`${created.response.status} ${created.error.code}: ${created.error.message}`);

  const read = await client.GET('/v1/requests/{id}', { params: { path: { id: created.data.request.id } } });
  if (read.error) throw new Error(`${read.response.status} ${read.error.code}: ${read.error.message}`);
  return { created: created.data, read: read.data };
};

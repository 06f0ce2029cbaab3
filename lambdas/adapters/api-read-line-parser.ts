import * as z from 'zod/mini';
import type { ApiRead } from '#core/api-reads.ts';
import { isId } from '#core/ids.ts';
import { API_READ_LINE_KIND } from './api-read-lines.ts';

/**
 * The recorder's side of the read records' log lines (api-read-lines.ts): whatever the
 * subscription filter matched is checked before it is stored, since any line of the reading
 * functions' log groups could carry the kind.
 */

/** The least a stored record must hold to be shown; anything else in a log line is not a record. */
const storedRead = z.object({
  id: z.string().check(z.refine(isId)),
  orgId: z.string().check(z.refine(isId)),
  occurredAt: z.iso.datetime(),
  key: z.object({ id: z.string(), name: z.string() }),
  clientId: z.nullable(z.string()),
  route: z.string(),
  status: z.union([z.literal(200), z.literal(403), z.literal(404)]),
  sourceIp: z.string(),
  records: z.record(z.string(), z.unknown()),
  expiresAtEpoch: z.number(),
});
const line = z.object({ kind: z.literal(API_READ_LINE_KIND), apiRead: storedRead });

/** The record a log line holds, or null when the line is not one (another log line, or a malformed one). */
export const apiReadOfLine = (message: string): ApiRead | null => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    return null;
  }
  const result = line.safeParse(parsed);
  return result.success ? (result.data.apiRead as ApiRead) : null;
};


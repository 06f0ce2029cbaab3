import type * as z from 'zod/mini';
import type { Caller } from '../caller.ts';
import { forbidden } from '../errors.ts';
import type { RequestRepository } from '../ports.ts';
import { toRequestView, type PublicUrls } from '../request-view.ts';
import { listRequestsQuery } from '../schemas.ts';

/** GET /requests: newest first, filtered, paged; a client-scoped key sees its client only. */
export const listRequests = async (
  deps: { requests: RequestRepository; urls: PublicUrls },
  caller: Caller,
  query: z.infer<typeof listRequestsQuery>,
) => {
  const scopedClient = caller.apiKey.clientId;
  if (scopedClient && query.client_id && query.client_id !== scopedClient) {
    throw forbidden('This key is scoped to another client.');
  }
  const page = await deps.requests.list({
    orgId: caller.org.id,
    status: query.status,
    clientId: scopedClient ?? query.client_id,
    ticketRef: query.ticket_ref,
    limit: query.limit,
    cursor: query.cursor,
  });
  return {
    object: 'list' as const,
    data: page.items.map((request) => toRequestView(request, deps.urls)),
    has_more: page.nextCursor !== null,
    next_cursor: page.nextCursor,
  };
};

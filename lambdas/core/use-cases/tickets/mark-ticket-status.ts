import { z } from 'zod';
import { apiActor, type Caller } from '../../caller.ts';
import { fieldError } from '../../errors.ts';
import type { Directory } from '../../ports.ts';
import { parseOrThrow, ulidString } from '../../validation.ts';
import { applyTicketStatus, type TicketStatusDeps } from './apply-ticket-status.ts';
import { ticketStatusNote } from './status-note.ts';

export const MAX_TICKET_REF = 120;

/** POST /tickets/{ref}/status body. */
export const ticketStatusBody = z.strictObject({
  status: z.enum(['open', 'pending', 'resolved', 'closed'], 'Must be one of open, pending, resolved, closed.'),
  integration_id: ulidString().nullish(),
});

/**
 * POST /tickets/{ref}/status: the status applied to every request of the key's scope that
 * quotes `ref` or is linked to it by external id (SPEC.md rules 1 to 4). Statuses sent with an
 * API key are unverified, so they destroy only when the organisation trusts unverified statuses.
 */
export const markTicketStatus = async (
  deps: TicketStatusDeps & { directory: Pick<Directory, 'integrationExists'> },
  caller: Caller,
  ref: string,
  rawBody: unknown,
) => {
  // Characters, not UTF-16 units, as POST /requests counts ticket_ref: a ref it accepted must match here.
  const characters = [...ref].length;
  if (characters < 1 || characters > MAX_TICKET_REF) throw fieldError('ref', `Must be 1 to ${MAX_TICKET_REF} characters.`);
  const body = parseOrThrow(ticketStatusBody, rawBody ?? {});
  const onlyIntegration = body.integration_id ?? null;
  if (onlyIntegration && !(await deps.directory.integrationExists(caller.org.id, onlyIntegration))) {
    throw fieldError('integration_id', 'No such ticketing integration.');
  }
  const outcome = await applyTicketStatus(deps, {
    org: caller.org,
    ref,
    status: body.status,
    verified: false,
    channel: { kind: 'api_key', name: caller.apiKey.name, actor: apiActor(caller), integrationId: null },
    onlyIntegration,
    clientId: caller.apiKey.clientId,
  });
  return {
    accepted: true as const,
    ticket_ref: ref,
    status: body.status,
    matched: {
      ticket_links: outcome.ticketLinks,
      requests: outcome.changed.map((change) => change.requestId),
      // Shares do not exist yet; the field is there so integrators can rely on its shape.
      shares: [] as string[],
    },
    verified: false as const,
    note: ticketStatusNote(outcome, body.status, caller.org.policy.ticket),
  };
};

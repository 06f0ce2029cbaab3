import * as z from 'zod/mini';
import { apiActor, type Caller } from '../../caller.ts';
import { characterCount } from '../../characters.ts';
import { validationFailed, type FieldErrors } from '../../errors.ts';
import { MAX_TICKET_ID_LENGTH } from '../../inbound/mapping.ts';
import { integrationInScope, UNKNOWN_INTEGRATION, type IntegrationRepository } from '../../integration.ts';
import { fieldErrorsOf, requiredOr, ulidString } from '../../validation.ts';
import { applyTicketStatus, type TicketStatusDeps } from './apply-ticket-status.ts';
import { ticketStatusNote } from './status-note.ts';

/** SPEC.md: a ticket reference is 1 to 120 characters (filter, path and body), as the inbound ticket id. */
export const MAX_TICKET_REF = MAX_TICKET_ID_LENGTH;

/** POST /tickets/{ref}/status body. */
export const ticketStatusBody = z.strictObject({
  status: z.enum(['open', 'pending', 'resolved', 'closed'], { error: requiredOr('Must be one of open, pending, resolved, closed.') }),
  integration_id: z.nullish(ulidString()),
});

/**
 * POST /tickets/{ref}/status: the status applied to every request of the key's scope that
 * quotes `ref` or is linked to it by external id (SPEC.md rules 1 to 4). Statuses sent with an
 * API key are unverified, so they destroy only when the organisation trusts unverified statuses.
 */
export const markTicketStatus = async (
  deps: TicketStatusDeps & { integrations: Pick<IntegrationRepository, 'get'> },
  caller: Caller,
  rawRef: string,
  rawBody: unknown,
) => {
  // No prototype: the body's field errors are copied in below, and one named `__proto__` must stay a field.
  const errors: FieldErrors = Object.create(null);
  // Trimmed, and counted in characters, as POST /requests keeps and counts ticket_ref: a ref it accepted must match here.
  const ref = rawRef.trim();
  const characters = characterCount(ref);
  if (characters < 1 || characters > MAX_TICKET_REF) errors.ref = [`Must be 1 to ${MAX_TICKET_REF} characters.`];
  const parsed = ticketStatusBody.safeParse(rawBody ?? {});
  if (!parsed.success) Object.assign(errors, fieldErrorsOf(parsed.error));
  const onlyIntegration = parsed.success ? (parsed.data.integration_id ?? null) : null;
  if (onlyIntegration) {
    const integration = await deps.integrations.get(caller.org.id, onlyIntegration);
    if (!integrationInScope(integration, caller.apiKey.clientId)) errors.integration_id = [UNKNOWN_INTEGRATION];
  }
  if (Object.keys(errors).length > 0 || !parsed.success) throw validationFailed(errors);
  const body = parsed.data;
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
      shares: outcome.shares,
    },
    verified: false as const,
    note: ticketStatusNote(outcome, body.status, caller.org.policy.ticket),
  };
};

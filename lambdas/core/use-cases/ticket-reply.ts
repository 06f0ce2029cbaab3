import type { HelpdeskFailureReason } from '../helpdesk.ts';
import { ticketReplyText } from '../messages.ts';
import type { Integration } from '../integration.ts';
import type { Actor, HandoffRequest } from '../model.ts';
import type { AuditEntryInput } from '../ports.ts';
import type { RequestView } from '../request-view.ts';
import { requestAuditEntry } from '../request-audit.ts';

/** One public comment to post on a linked ticket. */
export interface TicketReplyInput {
  orgId: string;
  integrationId: string;
  externalId: string;
  text: string;
}

export type TicketReplyFailure = HelpdeskFailureReason | 'not_connected';
export type TicketReplyResult =
  | { status: 'sent'; commentId?: string; attempts: number }
  | { status: 'failed'; reason: string; failure: TicketReplyFailure; attempts: number };

/**
 * Posts a comment through the integration's helpdesk (reply-in-ticket.ts), in the one function
 * that may open helpdesk credentials: deployed, the ticket-check worker invoked directly (so
 * the creating functions carry neither the adapters nor the right to open the credentials, and the
 * link travels only in the invocation); locally, the same use case in process.
 */
export interface TicketReplier {
  postLink(input: TicketReplyInput): Promise<TicketReplyResult>;
}

export interface TicketReplyDeps {
  ticketReplies: TicketReplier;
  audit: { record(entry: AuditEntryInput): Promise<unknown> };
}

/** What the creation answer's `delivery` says of a reply in the ticket. */
export type TicketReplyOutcome = { status: 'sent' } | { status: 'failed'; reason: string };

/**
 * Posts the request's link as a public comment on its linked ticket (`delivery.method:
 * ticket_reply`) and audits the outcome either way (`request.link_posted` with the comment's id, or
 * `request.link_post_failed` with the reason). A failed post is answered, so the caller, who has
 * the link, can send it another way; the link is never stored to retry later.
 */
export const postLinkInTicket = async (
  deps: TicketReplyDeps,
  input: { request: HandoffRequest; view: RequestView; integration: Pick<Integration, 'id' | 'helpdesk'>; link: string; actor: Actor },
): Promise<TicketReplyOutcome> => {
  const { request, integration } = input;
  const externalId = request.ticket!.externalId!;
  let result: TicketReplyResult;
  try {
    result = await deps.ticketReplies.postLink({ orgId: request.orgId, integrationId: integration.id, externalId, text: ticketReplyText({ asker: request.requester.name, justification: request.justification, link: input.link, linkExpiresAt: request.linkExpiresAt }) });
  } catch {
    // No answer in time: the worker may still post it, so the caller is told both.
    result = { status: 'failed', reason: 'The helpdesk did not answer in time; the comment may still appear in the ticket.', failure: 'timeout', attempts: 0 };
  }
  const details = { helpdesk: integration.helpdesk?.adapter ?? null, ticket_external_id: externalId, integration_id: integration.id, attempts: result.attempts };
  if (result.status === 'sent') {
    await deps.audit.record(requestAuditEntry(request.orgId, input.actor, input.view, 'request.link_posted', { ...details, ...(result.commentId ? { comment_id: result.commentId } : {}) }));
    return { status: 'sent' };
  }
  await deps.audit.record(requestAuditEntry(request.orgId, input.actor, input.view, 'request.link_post_failed', { ...details, reason: result.reason, failure: result.failure }));
  return { status: 'failed', reason: result.reason };
};

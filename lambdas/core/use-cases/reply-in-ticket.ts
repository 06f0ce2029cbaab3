import { HelpdeskCallFailed, type HelpdeskConnector } from '../helpdesk.ts';
import type { Clock } from '../clock.ts';
import { holdAsAsked, type HelpdeskWaits } from '../helpdesk-waits.ts';
import type { IntegrationRepository } from '../integration.ts';
import type { TicketReplyFailure, TicketReplyInput, TicketReplyResult } from './ticket-reply.ts';

export interface ReplyInTicketDeps {
  integrations: Pick<IntegrationRepository, 'get' | 'recordActivity'>;
  helpdesks: HelpdeskConnector;
  /** A helpdesk that asked to be left alone (its Retry-After) gets no post until then, and a post it refuses so holds its reads too. */
  helpdeskWaits: HelpdeskWaits;
  clock: Clock;
}

/**
 * How long a reply's helpdesk calls may run in all, from the worker's start (call-deadline.ts
 * enforces it on every call): inside the creating function's 7-second wait
 * (lambda-ticket-replier.ts), with room for a cold start and opening the credentials, so the
 * worker answers before its caller stops waiting and a post is never made after "failed" was said.
 */
export const REPLY_WORK_BUDGET_MS = 5_000;

/** The longest Retry-After the one repeat waits for; longer, the caller gets the link back instead (the creating function waits 7 seconds in all). */
const MAX_WAIT_SECONDS = 1;
/** A first attempt that took longer leaves no room for a repeat inside the caller's 7 seconds. */
const REPEAT_ONLY_WITHIN_MS = 2_000;

/**
 * Whether a failed post may be repeated at once: only a refusal that proves nothing was posted and
 * that a short wait can mend (429, 503). A timeout or another 5xx may hide a comment that was
 * added, and helpdesk comments cannot be made idempotent, so those are not repeated.
 */
const repeatable = (error: HelpdeskCallFailed) =>
  (error.reason === 'rate_limited' || error.status === 503) && (error.retryAfterSeconds ?? 1) <= MAX_WAIT_SECONDS;

/**
 * What a failed post says. A 2xx the adapter cannot read (a web page, a proxy's, a sign-in page
 * where the API's JSON should be) is no proof of a comment: it is a failure, and says what to do.
 */
const failureText = (error: HelpdeskCallFailed) =>
  error.reason === 'unexpected_answer' && error.status !== undefined && error.status < 300
    ? `${error.message}: it answered, but not as its API does, so the comment cannot be taken as posted; look in the ticket before giving the subject the link another way`
    : error.message;

/**
 * Posts `text` as a public comment on the ticket through the integration's helpdesk, once more
 * after a short wait when the helpdesk refused it for its rate limit or an outage. A post that
 * failed is listed in the integration's activity view with the reason, beside the failed reads.
 * Never logs the text (it holds the link).
 */
export const replyInTicket = async (deps: ReplyInTicketDeps, input: TicketReplyInput): Promise<TicketReplyResult> => {
  const integration = await deps.integrations.get(input.orgId, input.integrationId);
  const adapter = integration ? await deps.helpdesks.adapterFor(integration).catch(() => null) : null;
  if (!integration || !adapter) return { status: 'failed', reason: 'The integration is not connected to its helpdesk.', failure: 'not_connected', attempts: 0 };
  const failed = async (reason: string, failure: TicketReplyFailure, attempts: number): Promise<TicketReplyResult> => {
    await deps.integrations.recordActivity(integration.id, {
      at: deps.clock.now().toISOString(),
      purpose: 'helpdesk',
      reason: `Posting the request link in the ticket failed: ${reason}. The caller has the link in the creation answer; a trigger emails it to the requester.`,
      ticketId: input.externalId,
      statusWord: null,
    });
    return { status: 'failed', reason: `${reason}.`, failure, attempts };
  };
  const waitUntil = await deps.helpdeskWaits.until(integration.id, deps.clock.now());
  if (waitUntil) return failed(`the helpdesk asked not to be called before ${waitUntil} (its Retry-After), so nothing was sent`, 'rate_limited', 0);
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    try {
      const reply = await adapter.replyPublicly(input.externalId, input.text);
      return { status: 'sent', ...(reply.commentId ? { commentId: reply.commentId } : {}), attempts: attempt };
    } catch (error) {
      if (!(error instanceof HelpdeskCallFailed)) throw error;
      if (attempt === 1 && repeatable(error) && Date.now() - started < REPEAT_ONLY_WITHIN_MS) {
        await new Promise((resolve) => setTimeout(resolve, (error.retryAfterSeconds ?? 1) * 1000));
        continue;
      }
      await holdAsAsked(deps.helpdeskWaits, integration.id, error, deps.clock.now());
      return failed(failureText(error), error.reason, attempt);
    }
  }
};

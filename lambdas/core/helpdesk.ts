/**
 * The port every helpdesk adapter (Zendesk, Jira Service Management, HaloPSA, ...) implements: the
 * two calls the service makes into a ticket system. Reading a ticket verifies a reported status
 * before anything is destroyed (SPEC.md, POST /tickets/{ref}/status, rule 1); a public reply posts
 * the request link for the `ticket_reply` delivery method. Nothing here imports an implementation.
 */

/**
 * The service's view of a ticket's state. Only `resolved` and `closed` can count as closed (per
 * the organisation's policy); every other vendor state is `open`, so a state the adapter cannot
 * place never destroys a credential.
 */
export type HelpdeskTicketState = 'open' | 'resolved' | 'closed';

export interface HelpdeskTicket {
  /** The ticket's id in the helpdesk, as the request's `ticket_external_id` names it. */
  externalId: string;
  /**
   * The vendor's own words for the status, shown beside the service's state so a member can see
   * why a ticket counted as closed or not (Zendesk `solved`; JSM `Done (DONE)`; Halo `9 (closed)`).
   */
  vendorStatus: string;
  state: HelpdeskTicketState;
  /** When the helpdesk answered (ISO 8601): a verified close records when it was verified. */
  readAt: string;
}

export interface HelpdeskReply {
  /** The helpdesk's id of the comment, when its answer names one: lets an audit entry point at it. */
  commentId?: string;
}

export interface HelpdeskAdapter {
  /** Reads the ticket's current status from the helpdesk; throws HelpdeskCallFailed. */
  readTicket(externalId: string): Promise<HelpdeskTicket>;
  /**
   * Adds a customer-visible comment to the ticket; throws HelpdeskCallFailed. Not idempotent: a
   * `timeout` or `unavailable` may hide a reply that was posted, so a caller that retries can post twice.
   */
  replyPublicly(externalId: string, text: string): Promise<HelpdeskReply>;
}

/**
 * Why a helpdesk call failed, in words a member can act on:
 * - `unauthorized`: the helpdesk refused the integration's credentials or their scope (401/403, or a
 *   refused token request); the integration needs reconnecting, retrying will not mend it;
 * - `not_found`: no such ticket (404, or an id that cannot name one);
 * - `rate_limited`: the helpdesk's rate limit (429); retry after `retryAfterSeconds` when given;
 * - `unavailable`: the helpdesk failed (5xx) or could not be reached; retry with backoff;
 * - `timeout`: no complete answer within the call's timeout; retry with backoff;
 * - `unexpected_answer`: an answer the adapter cannot read (not JSON, a required field missing, a
 *   status it does not know, another 4xx, a redirect); retrying will not mend it.
 */
export const HELPDESK_FAILURE_REASONS = ['unauthorized', 'not_found', 'rate_limited', 'unavailable', 'timeout', 'unexpected_answer'] as const;
export type HelpdeskFailureReason = (typeof HELPDESK_FAILURE_REASONS)[number];

/** The reasons a later attempt of the same call can succeed without anyone changing anything. */
const TRANSIENT: ReadonlySet<HelpdeskFailureReason> = new Set(['rate_limited', 'unavailable', 'timeout']);

const REASON_TEXT: Record<HelpdeskFailureReason, string> = {
  unauthorized: 'the helpdesk refused the integration credentials',
  not_found: 'the helpdesk has no such ticket',
  rate_limited: 'the helpdesk rate limit was reached',
  unavailable: 'the helpdesk is unavailable',
  timeout: 'the helpdesk did not answer in time',
  unexpected_answer: 'the helpdesk answered in a way the adapter cannot read',
};

/** A 4xx the adapter has no meaning for (Zendesk's 422 on a comment to a closed ticket, a 400) is a refusal, and says so. */
const reasonText = (reason: HelpdeskFailureReason, status: number | undefined) =>
  reason === 'unexpected_answer' && status !== undefined && status >= 400 && status < 500 ? 'the helpdesk refused the call' : REASON_TEXT[reason];

export interface HelpdeskCallFailedDetails {
  /** Seconds the helpdesk asked to wait (its Retry-After), when it said. */
  retryAfterSeconds?: number;
  /** The HTTP status, when an answer came. */
  status?: number;
  cause?: unknown;
}

/**
 * A helpdesk call that did not succeed. The message is built from fixed words, the call's name and
 * the HTTP status only, never from a URL, a header or an answer's body: those can carry a token or
 * the client secret, and this message reaches logs and the integration's activity view.
 */
export class HelpdeskCallFailed extends Error {
  override readonly name = 'HelpdeskCallFailed';
  readonly retryAfterSeconds?: number;
  readonly status?: number;

  constructor(
    readonly reason: HelpdeskFailureReason,
    /** Which call failed, for example `Zendesk ShowTicket`; never a URL or a value. */
    readonly call: string,
    details: HelpdeskCallFailedDetails = {},
  ) {
    super(`${call}: ${reasonText(reason, details.status)}${details.status === undefined ? '' : ` (HTTP ${details.status})`}`, { cause: details.cause });
    if (details.retryAfterSeconds !== undefined) this.retryAfterSeconds = details.retryAfterSeconds;
    if (details.status !== undefined) this.status = details.status;
  }

  /** Whether the same call may succeed later unchanged: callers schedule a retry (honouring retryAfterSeconds). */
  get transient(): boolean {
    return TRANSIENT.has(this.reason);
  }
}

/**
 * The adapter of an integration's helpdesk connection, with its credentials opened: null when the
 * integration has no connection. Implementations keep one adapter (and its cached access token)
 * per connection, and drop it when the integration changes, so a disconnect forgets the token too.
 */
export interface HelpdeskConnector {
  adapterFor(integration: import('./integration.ts').Integration): Promise<HelpdeskAdapter | null>;
}

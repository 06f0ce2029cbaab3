import type { SQSEvent } from 'aws-lambda';
import { runTicketCheck, type VerifyTicketDeps } from '#core/use-cases/tickets/verify-ticket.ts';
import type { TicketCheckMessage } from '#adapters/sqs-ticket-checks.ts';
import type { TicketCheckQueue } from '#core/ticket-check.ts';
import type { ReplyInvocation } from '#adapters/lambda-ticket-replier.ts';
import { REPLY_WORK_BUDGET_MS, replyInTicket, type ReplyInTicketDeps } from '#core/use-cases/reply-in-ticket.ts';
import type { TicketReplyInput, TicketReplyResult } from '#core/use-cases/ticket-reply.ts';
import { withHelpdeskDeadline } from '#adapters/helpdesks/call-deadline.ts';
import type { AppDeps } from '../app-deps.ts';
import { withHelpdesks } from '../helpdesk-wiring.ts';
import { withTicketChecks } from '../ticket-check-wiring.ts';
import { wiring } from '../wiring.ts';
import { withShareStore } from '../store-wiring.ts';
import { kmsSealing } from '../deployed/kms-sealing.ts';
import { expiryAndPurgeSchedules } from '../deployed/eventbridge-schedules.ts';

const isMessage = (value: unknown): value is TicketCheckMessage => {
  const message = value as Partial<TicketCheckMessage> | null;
  return (
    typeof message?.orgId === 'string' &&
    typeof message.integrationId === 'string' &&
    typeof message.externalId === 'string' &&
    Number.isSafeInteger(message.attempt) &&
    (message.notBefore === undefined || typeof message.notBefore === 'number')
  );
};

/** A reply in a ticket whose helpdesk calls all end within the reply's budget. */
export const replyWithinBudget = (deps: ReplyInTicketDeps, input: TicketReplyInput) =>
  withHelpdeskDeadline(Date.now() + REPLY_WORK_BUDGET_MS, () => replyInTicket(deps, input));

const parse = (body: string): unknown => {
  try {
    return JSON.parse(body);
  } catch {
    return null;
  }
};

const isReplyInvocation = (event: unknown): event is ReplyInvocation => {
  const input = (event as Partial<ReplyInvocation> | null)?.replyInTicket;
  return typeof input?.orgId === 'string' && typeof input.integrationId === 'string' && typeof input.externalId === 'string' && typeof input.text === 'string';
};

/**
 * The helpdesk worker, the one function that opens helpdesk credentials:
 * - from its SQS queue, ticket checks: reads each queued ticket through its helpdesk and applies
 *   the answer (verify-ticket.ts); a failed read queues its next attempt itself, so a message
 *   fails only when the table does, and SQS hands it over again;
 * - invoked directly by the functions that create requests, a reply in a ticket (`ticket_reply`,
 *   reply-in-ticket.ts), answered with its result.
 * Logs ids and outcomes, never a ticket's content or a reply's text (it holds the link).
 */
export function createHandler(
  deps: VerifyTicketDeps & { ticketChecks: TicketCheckQueue; logger: Pick<AppDeps['logger'], 'info' | 'error'> },
): (event: SQSEvent | ReplyInvocation) => Promise<{ batchItemFailures: Array<{ itemIdentifier: string }> } | TicketReplyResult> {
  const checks = checkQueueHandler(deps);
  return async (event) => {
    if (!isReplyInvocation(event)) return checks(event as SQSEvent);
    const result = await replyWithinBudget(deps, event.replyInTicket);
    deps.logger.info('ticket reply', { orgId: event.replyInTicket.orgId, integrationId: event.replyInTicket.integrationId, status: result.status, attempts: result.attempts });
    return result;
  };
}

const checkQueueHandler = (deps: VerifyTicketDeps & { ticketChecks: TicketCheckQueue; logger: Pick<AppDeps['logger'], 'info' | 'error'> }) =>
  async (event: SQSEvent) => {
    const batchItemFailures: Array<{ itemIdentifier: string }> = [];
    for (const record of event.Records) {
      const message = parse(record.body);
      if (!isMessage(message)) {
        deps.logger.error('ticket check message unreadable; dropped', { messageId: record.messageId });
        continue;
      }
      const { notBefore, ...check } = message;
      const waitMs = (notBefore ?? 0) - deps.clock.now().getTime();
      try {
        if (waitMs > 1000) {
          // A Retry-After longer than SQS's largest delay: wait out the rest with another message.
          await deps.ticketChecks.enqueue(check, waitMs / 1000);
          continue;
        }
        const result = await runTicketCheck(deps, check);
        deps.logger.info('ticket check', { orgId: check.orgId, integrationId: check.integrationId, attempt: check.attempt, outcome: result.kind, ...(result.kind === 'failed' ? { reason: result.reason } : {}) });
      } catch (error) {
        deps.logger.error('ticket check failed', { integrationId: check.integrationId, errorName: (error as Error)?.name });
        batchItemFailures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures };
  };

let built: ReturnType<typeof createHandler> | undefined;
/** The deployed handler, wired on first use. */
export const handler = (event: SQSEvent | ReplyInvocation) => (built ??= createHandler(withShareStore(withHelpdesks(withTicketChecks(wiring({ ...kmsSealing(), ...expiryAndPurgeSchedules() }))))))(event);

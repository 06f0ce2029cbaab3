import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';

/**
 * How long a creating function waits for the worker's reply: inside the API functions' 10-second
 * timeout with room for the request's own work. A reply still running then may yet be posted;
 * the caller is told it failed and has the link to send another way.
 */
export const REPLY_INVOCATION_TIMEOUT_MS = 7_000;
import type { TicketReplier, TicketReplyInput, TicketReplyResult } from '#core/use-cases/ticket-reply.ts';

/** The direct invocation the ticket-check worker answers with a reply's result (workers/ticket-check.ts). */
export interface ReplyInvocation {
  replyInTicket: TicketReplyInput;
}

/**
 * Posts a link in a ticket by invoking the ticket-check worker synchronously: the worker alone
 * opens helpdesk credentials; the link is in the invocation's payload only, never in a queue or
 * the table. A function error or an unreadable answer is thrown (the caller reports the post failed).
 */
export class LambdaTicketReplier implements TicketReplier {
  constructor(
    private readonly functionName: string,
    // One attempt: a repeated invocation could post the comment twice.
    private readonly client: LambdaClient = new LambdaClient({ maxAttempts: 1 }),
  ) {}

  async postLink(input: TicketReplyInput): Promise<TicketReplyResult> {
    const invocation: ReplyInvocation = { replyInTicket: input };
    const answer = await this.client.send(
      new InvokeCommand({ FunctionName: this.functionName, InvocationType: 'RequestResponse', Payload: new TextEncoder().encode(JSON.stringify(invocation)) }),
      // Ends the wait, whatever the SDK's own timeouts do (the runtime's SDK version decides those).
      { abortSignal: AbortSignal.timeout(REPLY_INVOCATION_TIMEOUT_MS) },
    );
    if (answer.FunctionError || !answer.Payload) throw new Error('the ticket reply invocation failed');
    const result = JSON.parse(new TextDecoder().decode(answer.Payload)) as TicketReplyResult;
    if (result?.status !== 'sent' && result?.status !== 'failed') throw new Error('the ticket reply invocation answered something else');
    return result;
  }
}

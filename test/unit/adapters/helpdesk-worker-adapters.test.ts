/**
 * The two AWS adapters between the functions and the helpdesk worker: the ticket-check queue (one
 * SQS message per check, the delay capped at SQS's 15 minutes and the rest carried in `notBefore`)
 * and the reply invocation (the worker invoked synchronously with the reply, its answer read back;
 * a function error or an odd answer thrown). Exact commands, with aws-sdk-client-mock.
 */
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { LambdaTicketReplier } from '../../../lambdas/adapters/lambda-ticket-replier.ts';
import { SqsTicketCheckQueue } from '../../../lambdas/adapters/sqs-ticket-checks.ts';

const sqs = mockClient(SQSClient);
const lambda = mockClient(LambdaClient);
const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'not-a-real-secret' };
const QUEUE_URL = 'https://sqs.eu-west-2.amazonaws.com/111122223333/handoff-ticket-checks';
const WORKER = 'arn:aws:lambda:eu-west-2:111122223333:function:handoff-ticket-check';
const NOW = Date.parse('2026-11-26T10:00:00Z');
const CHECK = { orgId: '01horg0000000000000000001a', integrationId: '01hintegration000000000001', externalId: '35436', attempt: 2 };
const REPLY = { orgId: CHECK.orgId, integrationId: CHECK.integrationId, externalId: '35436', text: 'Open this link to send it: https://handoff.example/r/x#y' };

beforeEach(() => {
  sqs.reset();
  lambda.reset();
});
afterAll(() => {
  sqs.restore();
  lambda.restore();
});

describe('SqsTicketCheckQueue', () => {
  const queue = () => new SqsTicketCheckQueue(QUEUE_URL, () => NOW, new SQSClient({ region: 'eu-west-2', credentials }));

  it('sends one message with the check, its notBefore and the delay in whole seconds', async () => {
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm1' });
    await queue().enqueue(CHECK, 6.2);
    expect(sqs.commandCalls(SendMessageCommand).map((call) => call.args[0].input)).toEqual([
      { QueueUrl: QUEUE_URL, MessageBody: JSON.stringify({ ...CHECK, notBefore: NOW + 7_000 }), DelaySeconds: 7 },
    ]);
  });

  it("caps the delay at SQS's 900 seconds and carries a longer Retry-After in notBefore", async () => {
    sqs.on(SendMessageCommand).resolves({});
    await queue().enqueue(CHECK, 3_600);
    await queue().enqueue(CHECK, 0);
    const inputs = sqs.commandCalls(SendMessageCommand).map((call) => call.args[0].input);
    expect(inputs.map((input) => input.DelaySeconds)).toEqual([900, 0]);
    expect(inputs.map((input) => JSON.parse(input.MessageBody!).notBefore)).toEqual([NOW + 3_600_000, NOW]);
  });
});

describe('LambdaTicketReplier', () => {
  const replier = () => new LambdaTicketReplier(WORKER, new LambdaClient({ region: 'eu-west-2', credentials }));
  const payload = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)) as never;

  it('invokes the worker synchronously with exactly {replyInTicket} and answers its result', async () => {
    lambda.on(InvokeCommand).resolves({ StatusCode: 200, Payload: payload({ status: 'sent', commentId: '42', attempts: 1 }) });
    expect(await replier().postLink(REPLY)).toEqual({ status: 'sent', commentId: '42', attempts: 1 });
    const [call, ...more] = lambda.commandCalls(InvokeCommand);
    expect(more).toEqual([]);
    const input = call!.args[0].input;
    expect(input.FunctionName).toBe(WORKER);
    expect(input.InvocationType).toBe('RequestResponse');
    expect(JSON.parse(new TextDecoder().decode(input.Payload as Uint8Array))).toEqual({ replyInTicket: REPLY });
  });

  it('throws on a function error and on an answer that is no reply result', async () => {
    lambda.on(InvokeCommand).resolvesOnce({ StatusCode: 200, FunctionError: 'Unhandled', Payload: payload({ errorMessage: 'boom' }) }).resolvesOnce({ StatusCode: 200, Payload: payload({ ok: true }) });
    await expect(replier().postLink(REPLY)).rejects.toThrow(/failed/);
    await expect(replier().postLink(REPLY)).rejects.toThrow(/something else/);
  });
});

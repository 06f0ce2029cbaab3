/**
 * The mapping of DynamoDB's transient failures: which errors are "not now" (throttling, a
 * transaction cancelled by another, a timeout or dropped connection) and which are "no" (a failed
 * condition, a validation error, a bug); the 503 `service_unavailable` with Retry-After they become
 * on every HTTP answer; the audit log's bounded retry of a transiently cancelled transaction; and
 * the idempotency middleware, which never keeps a 503 as the key's answer.
 */
import {
  DynamoDBClient,
  DynamoDBServiceException,
  ProvisionedThroughputExceededException,
  RequestLimitExceeded,
  TransactionCanceledException,
  TransactionConflictException,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it, vi } from 'vitest';
import { ApiError, notFound, WriteConflict } from '../../lambdas/core/errors.ts';
import { idempotency } from '../../lambdas/http/middleware/idempotency.ts';
import { errorResponse, NEVER_STORED, TRANSPORT_HEADERS } from '../../lambdas/http/responses.ts';
import { AuditLog } from '../../lambdas/store/audit-log.ts';
import { RETRY_AFTER_SECONDS, transientKind } from '../../lambdas/store/transient-failure.ts';

const metadata = { $metadata: { httpStatusCode: 400 } };
const cancelled = (...codes: string[]) =>
  new TransactionCanceledException({
    message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes.join(', ')}]`,
    CancellationReasons: codes.map((Code) => ({ Code })),
    ...metadata,
  });
const named = (name: string, extra: Record<string, unknown> = {}) => Object.assign(new Error('failed'), { name, ...extra });

describe('transientKind', () => {
  it.each([
    ['ProvisionedThroughputExceededException', new ProvisionedThroughputExceededException({ message: 'slow down', ...metadata }), 'throttled'],
    ['RequestLimitExceeded', new RequestLimitExceeded({ message: 'slow down', ...metadata }), 'throttled'],
    ['ThrottlingException', new DynamoDBServiceException({ name: 'ThrottlingException', $fault: 'client', ...metadata }), 'throttled'],
    ['an HTTP 429', named('Whatever', { $metadata: { httpStatusCode: 429 } }), 'throttled'],
    ['TransactionConflictException', new TransactionConflictException({ message: 'busy', ...metadata }), 'contended'],
    ['a cancellation by TransactionConflict', cancelled('TransactionConflict', 'None', 'None'), 'contended'],
    ['a cancellation by ThrottlingError', cancelled('None', 'ThrottlingError'), 'throttled'],
    ['a cancellation by ProvisionedThroughputExceeded', cancelled('ProvisionedThroughputExceeded'), 'throttled'],
    ['a cancellation whose reasons are only in the message', named('TransactionCanceledException', { message: 'cancelled [None, TransactionConflict]' }), 'contended'],
    ["the SDK's TimeoutError", named('TimeoutError', { code: 'ETIMEDOUT' }), 'unreachable'],
    ['ECONNRESET', named('Error', { code: 'ECONNRESET' }), 'unreachable'],
    ['socket hang up', named('Error', { message: 'socket hang up' }), 'unreachable'],
    ['ECONNREFUSED', named('Error', { code: 'ECONNREFUSED' }), 'unreachable'],
    ['an HTTP 500 from DynamoDB', named('InternalServerError', { $metadata: { httpStatusCode: 500 } }), 'unreachable'],
    ['a transient error wrapped as the cause', new Error('could not append', { cause: named('TimeoutError') }), 'unreachable'],
  ])('%s is transient (%s)', (_label, error, kind) => {
    expect(transientKind(error)).toBe(kind);
  });

  it.each([
    ['a cancellation by a failed condition', cancelled('None', 'ConditionalCheckFailed')],
    ['a cancellation by a failed condition beside a conflict', cancelled('TransactionConflict', 'ConditionalCheckFailed')],
    ['a cancellation by a validation error', cancelled('ValidationError')],
    ['a cancellation with no reason given', cancelled()],
    ['ConditionalCheckFailedException', named('ConditionalCheckFailedException')],
    ['ValidationException', new DynamoDBServiceException({ name: 'ValidationException', $fault: 'client', ...metadata })],
    ['a WriteConflict', new WriteConflict('lost the race')],
    ['an ApiError', notFound()],
    ['a plain bug', new TypeError('x is undefined')],
    ['an abort', named('AbortError')],
    ['nothing', undefined],
    ['a string', 'boom'],
  ])('%s is not transient', (_label, error) => {
    expect(transientKind(error)).toBeNull();
  });
});

describe('errorResponse for a transient failure', () => {
  it.each([
    ['throttled', new ProvisionedThroughputExceededException({ message: 'slow down', ...metadata })],
    ['contended', cancelled('TransactionConflict', 'None')],
    ['unreachable', named('TimeoutError')],
  ] as const)('answers 503 service_unavailable with Retry-After when %s', (kind, error) => {
    const response = errorResponse(error);
    expect(response.statusCode).toBe(503);
    expect(response.headers).toEqual({ 'Content-Type': 'application/json', ...TRANSPORT_HEADERS, ...NEVER_STORED, 'Retry-After': String(RETRY_AFTER_SECONDS[kind]) });
    const body = JSON.parse(response.body!);
    expect(Object.keys(body).sort()).toEqual(['code', 'message']);
    expect(body.code).toBe('service_unavailable');
    expect(body.message).toMatch(/Retry-After/);
    // Nothing of the cause leaves: no exception name, no reason code.
    expect(response.body).not.toMatch(/Exception|TransactionConflict|Timeout/);
  });

  it('answers 503 contended for a WriteConflict the use case could not settle by trying again', () => {
    const response = errorResponse(new WriteConflict('the request changed meanwhile'));
    expect(response.statusCode).toBe(503);
    expect(response.headers).toMatchObject({ 'Retry-After': String(RETRY_AFTER_SECONDS.contended) });
    expect(JSON.parse(response.body!)).toEqual({ code: 'service_unavailable', message: expect.stringMatching(/busy with another change and nothing was changed/) });
  });

  it('still answers 500 error for anything else', () => {
    const response = errorResponse(cancelled('ConditionalCheckFailed'));
    expect(response.statusCode).toBe(500);
    expect(JSON.parse(response.body!).code).toBe('error');
  });
});

describe('AuditLog with transiently cancelled transactions', () => {
  const entry = { orgId: 'org1', type: 'request.created', actor: { type: 'api', label: 'k' }, clientId: null, data: {} } as any;
  const clock = { now: () => new Date('2026-01-01T00:00:00Z') };

  it('tries a few times, then lets the cancellation go to the caller (who answers 503)', async () => {
    const db = mockClient(DynamoDBDocumentClient);
    db.on(GetCommand).resolves({});
    db.on(TransactWriteCommand).rejects(cancelled('TransactionConflict', 'None'));
    const log = new AuditLog(DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-2' })), 'table', clock);
    const failure = await log.append(entry, []).catch((error: unknown) => error);
    expect(transientKind(failure)).toBe('contended');
    expect(db.commandCalls(TransactWriteCommand)).toHaveLength(10);
    db.restore();
  });

  it('succeeds when a later try goes through, appending once', async () => {
    const db = mockClient(DynamoDBDocumentClient);
    db.on(GetCommand).resolves({});
    db.on(TransactWriteCommand).rejectsOnce(cancelled('ThrottlingError', 'None')).resolves({});
    const log = new AuditLog(DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-2' })), 'table', clock);
    const appended = await log.append(entry, []);
    expect(appended.seq).toBe(1);
    expect(db.commandCalls(TransactWriteCommand)).toHaveLength(2);
    db.restore();
  });
});

describe('the idempotency middleware after a failure', () => {
  const request = (key = 'key-1') =>
    ({
      event: { requestContext: { http: { method: 'POST' } }, rawPath: '/v1/requests', headers: { 'idempotency-key': key } },
      internal: { caller: { apiKey: { id: 'api-key-1' } }, body: { a: 1 } },
      response: undefined as unknown,
      error: undefined as unknown,
    }) as any;

  const store = () => ({
    start: vi.fn(async () => ({ outcome: 'started' as const, claim: { key: { pk: 'IDEM#api-key-1#h', sk: 'IDEM' }, token: 'claim-1' } })),
    finish: vi.fn(async () => undefined),
    release: vi.fn(async () => undefined),
  });

  it('releases the key on a 503, so the retry runs again, and keeps nothing', async () => {
    const keys = store();
    const middleware = idempotency(keys);
    const call = request();
    await middleware.before!(call);
    call.error = new ProvisionedThroughputExceededException({ message: 'slow down', ...metadata });
    await middleware.onError!(call);
    expect(keys.release).toHaveBeenCalledWith({ key: { pk: 'IDEM#api-key-1#h', sk: 'IDEM' }, token: 'claim-1' });
    expect(keys.finish).not.toHaveBeenCalled();
  });

  it('does not fail the answer when the release itself fails (the claim lapses by itself)', async () => {
    const keys = store();
    keys.release.mockRejectedValue(named('TimeoutError'));
    const middleware = idempotency(keys);
    const call = request();
    await middleware.before!(call);
    call.error = named('TimeoutError');
    await expect(middleware.onError!(call)).resolves.toBeUndefined();
  });

  it('keeps the answer of a change that was made even when storing it fails', async () => {
    const keys = store();
    keys.finish.mockRejectedValue(new ProvisionedThroughputExceededException({ message: 'slow down', ...metadata }));
    const middleware = idempotency(keys);
    const call = request();
    await middleware.before!(call);
    call.response = { statusCode: 201, headers: { 'Content-Type': 'application/json' }, body: '{"id":"r1"}' };
    await expect(middleware.after!(call)).resolves.toBeUndefined();
    expect(call.response.statusCode).toBe(201);
  });

  it('answers a concurrent duplicate 409 conflict with Retry-After until the claim lapses', async () => {
    const keys = store();
    keys.start.mockResolvedValue({ outcome: 'in_progress', lockedForMs: 12_300 } as any);
    const middleware = idempotency(keys);
    const failure = await Promise.resolve(middleware.before!(request())).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiError);
    const response = errorResponse(failure);
    expect(response.statusCode).toBe(409);
    expect(JSON.parse(response.body!).code).toBe('conflict');
    expect(response.headers!['Retry-After']).toBe('13');
  });
});

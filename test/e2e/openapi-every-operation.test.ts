/**
 * Every operation of docs/openapi.json, called over real HTTP on the local service, answering
 * every status the document lists for it (but an unexpected failure, which no input makes), each
 * answer checked against the document: the status is listed, the headers it says are always sent
 * are there and match their schemas, and the body matches the document's own JSON Schema for that
 * status and media type. The outbound webhook is checked as a receiver gets it. The test walks the
 * document, so an operation or a status added to it fails here until a case makes it
 * (test/support/openapi-cases.ts: one entry per operation).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeConnections } from '../support/bad-input.ts';
import { answerJudge, documentedOperations, readDocument, type DocumentedOperation } from '../support/openapi-answers.ts';
import { OPERATION_CASES, SHARED_STATUSES, TABLE_FAILURE_STATUS, UNREACHABLE_STATUSES, isKeyed } from '../support/openapi-cases.ts';
import { startWorld, type Call, type World } from '../support/openapi-world.ts';

const document = readDocument();
const judge = answerJudge(document);
const operations = documentedOperations(document);
const called = operations.filter((operation) => !operation.template.startsWith('webhooks/'));
const outbound = operations.filter((operation) => operation.template.startsWith('webhooks/'));

/** Every kind of table call the service makes: each one throttled while the table fails. */
const TABLE_CALLS = ['GetItem', 'BatchGetItem', 'Query', 'Scan', 'PutItem', 'UpdateItem', 'DeleteItem', 'TransactWriteItems', 'TransactGetItems'];

let world: World;
/** Per operation, the statuses its checked answers had. */
const exercised = new Map<string, Set<string>>();

beforeAll(async () => {
  world = await startWorld();
}, 180_000);
afterAll(async () => {
  closeConnections();
  await world?.stop();
});

const listed = (operation: DocumentedOperation) => Object.keys(operation.operation.responses ?? {});
const successStatus = (operation: DocumentedOperation) => Number(listed(operation).find((status) => status.startsWith('2')));

/** Makes `call` (after what it prepares), expects `status`, and checks the answer against the document. */
const expectAnswer = async (operation: DocumentedOperation, call: Call, status: number) => {
  await call.prepare?.();
  const answer = await world.send(operation.method, call, isKeyed(operation));
  const where = `${operation.method} ${call.path.slice(0, 120)} (${operation.operationId})`;
  expect(answer.status, `${where}: ${answer.text.slice(0, 300)}`).toBe(status);
  expect(judge.problems(operation, answer), `${where} answers as the document says`).toEqual([]);
  const statuses = exercised.get(operation.operationId) ?? new Set<string>();
  statuses.add(String(status));
  exercised.set(operation.operationId, statuses);
};

/** The calls that make each status the operation lists, from its case and the shared makers. */
const callsFor = async (operation: DocumentedOperation) => {
  const cases = OPERATION_CASES[operation.operationId];
  const calls: Array<[number, Call]> = [];
  const success = successStatus(operation);
  for (const make of [cases.success, ...(cases.alsoSuccess ?? [])]) calls.push([success, await make(world)]);
  for (const status of listed(operation).map(Number)) {
    if (status === success || String(status) in UNREACHABLE_STATUSES || status === TABLE_FAILURE_STATUS) continue;
    const own = cases.statuses?.[status];
    if (own) calls.push([status, await own(world)]);
    // Each shared status from a successful call of its own, so no two of them share a record.
    const shared = SHARED_STATUSES[status]?.(operation, await cases.success(world), world);
    if (shared) calls.push([status, shared]);
  }
  return calls;
};

describe('docs/openapi.json, operation by operation, over HTTP', () => {
  it('has a case for every operation it lists, and none for one it does not', () => {
    expect(called.map((operation) => operation.operationId).filter((id) => !OPERATION_CASES[id]), 'operations without a case in test/support/openapi-cases.ts').toEqual([]);
    expect(Object.keys(OPERATION_CASES).filter((id) => !called.some((operation) => operation.operationId === id)), 'cases of no operation').toEqual([]);
    expect(outbound.map((operation) => operation.operationId)).toEqual(['eventDelivery']);
  });

  it('judges: an answer the document does not describe has problems', () => {
    const ping = called.find((operation) => operation.operationId === 'ping')!;
    const json = { 'content-type': 'application/json' };
    expect(judge.problems(ping, { status: 401, headers: json, text: '{"message":"No key.","code":"unauthenticated"}' })).toEqual(['header WWW-Authenticate is missing']);
    expect(judge.problems(ping, { status: 401, headers: { ...json, 'www-authenticate': 'Basic' }, text: '{"message":"No key.","code":"forbidden"}' })).toHaveLength(2);
    expect(judge.problems(ping, { status: 418, headers: json, text: '{}' })[0]).toMatch(/^status 418 is not one the operation lists/);
  });

  for (const operation of called) {
    it(`${operation.method} ${operation.template}`, async () => {
      if (!OPERATION_CASES[operation.operationId]) return; // reported by the test above
      for (const [status, call] of await callsFor(operation)) await expectAnswer(operation, call, status);
    });
  }

  it('delivers events as the outbound operation describes them, and the receiver\u2019s 2xx ends the delivery', async () => {
    const [delivery] = outbound;
    await world.request();
    const deadline = Date.now() + 30_000;
    while (world.receiver.receipts.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(world.receiver.receipts.length, 'deliveries to the receiver').toBeGreaterThan(0);
    for (const receipt of world.receiver.receipts) {
      expect(judge.requestProblems(delivery, receipt), `delivery ${receipt.headers['webhook-id']}`).toEqual([]);
      expect(receipt.answer).toBe(204);
    }
    expect(Object.keys(delivery.operation.responses)).toEqual(['2XX']);
    exercised.set(delivery.operationId, new Set(['2XX']));
  });

  it(`answers ${TABLE_FAILURE_STATUS} where it lists it, while every call to the table fails`, async () => {
    const failing = called.filter((operation) => listed(operation).includes(String(TABLE_FAILURE_STATUS)) && OPERATION_CASES[operation.operationId]);
    // Made while the table works: a case may make the record it calls for.
    const calls = await Promise.all(failing.map(async (operation) => [operation, await OPERATION_CASES[operation.operationId].success(world)] as const));
    world.proxy.inject(...TABLE_CALLS.map((name) => ({ operation: name, fault: 'ThrottlingException' as const })));
    try {
      for (const [operation, call] of calls) await expectAnswer(operation, call, TABLE_FAILURE_STATUS);
    } finally {
      world.proxy.clear();
    }
  });

  it('made every status of every operation the document lists (but those no input makes)', () => {
    const missing = operations.flatMap((operation) =>
      listed(operation)
        .filter((status) => !(status in UNREACHABLE_STATUSES) && !exercised.get(operation.operationId)?.has(status))
        .map((status) => `${operation.operationId} ${status}`),
    );
    expect(missing, 'listed statuses no checked answer had').toEqual([]);
  });
});

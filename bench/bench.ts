/**
 * `npm run bench`: the API's latency (p50/p99) and throughput over real HTTP on loopback, beside
 * the raw DynamoDB Local calls underneath measured in the same run, as ratios; the webhook fan-out
 * from commit to verified receipt on loopback (bench/fan-out.ts); and each Lambda bundle's size
 * against the budget and its import time against a DynamoDB-client baseline (bench/functions.ts),
 * which fails the run when a bundle is over the budget; and, last, the AWS cost of 1,000 handoffs
 * and 1,000,000 API reads at list prices (bench/cost/, alone with `--cost`).
 * The bench organisation's rate limits are raised through configuration, so every call still
 * passes authentication, the rate limiter and (for POST) idempotency.
 */
import { BatchGetCommand, BatchWriteCommand, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { startDynamoLocal, type RunningDynamo } from '../lambdas/local/dynamodb-local.ts';
import { startLocalService } from '../lambdas/local/local-service.ts';
import { keys } from '../lambdas/store/keys.ts';
import { INDEXES, rateTableNameOf } from '../lambdas/store/table.ts';
import { newIdentityPublicKey } from '../lambdas/local/demo-identity.ts';
import { createClient } from './http-client.ts';
import { rawAuditedWrite } from './raw-calls.ts';
import { functionsBench } from './functions.ts';
import { fanOutReport, measureFanOut, type FanOutResult } from './fan-out.ts';
import { drainReport, measureBacklogDrain, type DrainResult } from './backlog-drain.ts';
import { formatMs, measure, measurePair, type Measurement } from './stats.ts';
import { inboundReport, measureInbound } from './inbound.ts';
import { certificateReport, measureCertificates, type CertificateResult } from './certificates.ts';
import { runSoak } from './soak.ts';
import { helpdeskCloseReport, measureHelpdeskClose, type HelpdeskCloseResult } from './helpdesk-close.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
process.env.LOG_LEVEL ??= 'ERROR';

/** Loaded when it runs: it synthesises the CDK stack, whose library the other sections need not load. */
const costBench = async () => (await import('./cost/cost-bench.ts')).costBench();

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const TOTAL = Number(process.env.BENCH_TOTAL ?? 2000);
/** Stored events for the GET /v1/events figures, each size on top of the one before (comma-separated; empty to skip). */
const EVENT_SIZES = (process.env.BENCH_EVENT_SIZES ?? '10000,100000').split(',').filter(Boolean).map(Number);
/**
 * Events for the webhook fan-out figure (POST /v1/requests at BENCH_FANOUT_CONCURRENCY, each event
 * delivered to a verifying loopback receiver; empty or 0 to skip). Runs on a second service, with
 * the webhook pipeline on, after the request paths are measured and their service is stopped.
 */
const FANOUT_EVENTS = Number(process.env.BENCH_FANOUT_EVENTS ?? 1000) || 0;
/**
 * Writers committing the fan-out's events (default BENCH_CONCURRENCY). At 16 the writers can
 * outrun the pipeline and the latency then measures its backlog; 1 gives the latency of a pipeline
 * that keeps up.
 */
const FANOUT_CONCURRENCY = Number(process.env.BENCH_FANOUT_CONCURRENCY ?? CONCURRENCY);
/** Custody certificate issue times (0 skips them). */
const CERTIFICATES = (process.env.BENCH_CERTIFICATES ?? '1') !== '0';
/** Closing posts timed to the credential's destruction (0 skips the inbound webhook figures). */
const INBOUND_PURGES = Number(process.env.BENCH_INBOUND_PURGES ?? 200);
/** Closes timed verified (read from a fake Zendesk) and unverified (0 skips them). */
const HELPDESK_CLOSES = Number(process.env.BENCH_HELPDESK_CLOSES ?? 200);

/** The request paths' p50 against their raw DynamoDB Local call. */
const RATIO_TARGET = 2;

type Documents = Awaited<ReturnType<typeof startLocalService>>['deps']['db'];

/**
 * Appends `count` audit entries (request.created events, one in ten `subject.verified`, which is
 * not an event) straight into an organisation's chain with BatchWrite, and moves its head past
 * them. The entries are not hash-chained: they are there to be read, fast to write.
 */
const seedEvents = async (db: Documents, tableName: string, orgId: string, clientId: string, count: number) => {
  const { Item: head } = await db.send(new GetCommand({ TableName: tableName, Key: keys.auditHead(orgId), ConsistentRead: true }));
  const from = ((head?.n as number | undefined) ?? 0) + 1;
  const occurredAt = new Date().toISOString();
  const batches: Array<Record<string, unknown>[]> = [];
  for (let start = 0; start < count; start += 25) {
    batches.push(
      Array.from({ length: Math.min(25, count - start) }, (_, i) => {
        const seq = from + start + i;
        return {
          ...keys.auditEntry(orgId, seq),
          kind: 'audit',
          orgId,
          seq,
          type: seq % 10 === 0 ? 'subject.verified' : 'request.created',
          occurredAt,
          actor: { type: 'api', label: 'bench' },
          clientId,
          requestId: null,
          data: { actor: { type: 'api', label: 'bench' }, details: { bench: seq } },
          prevHash: '0'.repeat(64),
          hash: String(seq).padStart(64, '0'),
        };
      }),
    );
  }
  let next = 0;
  const worker = async () => {
    while (next < batches.length) {
      let items = batches[next++].map((Item) => ({ PutRequest: { Item } }));
      while (items.length) {
        const answer = await db.send(new BatchWriteCommand({ RequestItems: { [tableName]: items } }));
        items = (answer.UnprocessedItems?.[tableName] ?? []) as typeof items;
      }
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  const last = from + count - 1;
  await db.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.auditHead(orgId),
      UpdateExpression: 'SET n = :n, #hash = :hash',
      ExpressionAttributeNames: { '#hash': 'hash' },
      ExpressionAttributeValues: { ':n': last, ':hash': String(last).padStart(64, '0') },
    }),
  );
  return last;
};

/** The webhook fan-out and the backlog drain, each on a service and a DynamoDB Local of its own (DynamoDB Local slows down as it fills). */
const measureWebhooks = async () => {
  if (FANOUT_EVENTS <= 0) return { fanOut: null, drain: null };
  let fanOut: FanOutResult;
  const fanOutDynamo = await startDynamoLocal();
  try {
    const started = Date.now();
    fanOut = await measureFanOut({
      dynamoEndpoint: fanOutDynamo.endpoint,
      events: FANOUT_EVENTS,
      concurrency: FANOUT_CONCURRENCY,
      iterations: Math.min(ITERATIONS, 500),
      total: Math.min(TOTAL, 1000),
    });
    console.log(`webhook fan-out of ${FANOUT_EVENTS} events measured in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    await fanOutDynamo.stop();
  }
  let drain: DrainResult;
  const drainDynamo = await startDynamoLocal();
  try {
    drain = await measureBacklogDrain({ dynamoEndpoint: drainDynamo.endpoint, events: FANOUT_EVENTS, concurrency: FANOUT_CONCURRENCY, iterations: Math.min(ITERATIONS, 500), total: Math.min(TOTAL, 1000) });
  } finally {
    await drainDynamo.stop();
  }
  return { fanOut, drain };
};

/** The inbound ticket webhook on a service and a DynamoDB Local of its own. */
const measureInboundWebhook = async () => {
  if (INBOUND_PURGES <= 0) return null;
  const inboundDynamo = await startDynamoLocal();
  try {
    return await measureInbound({ dynamoEndpoint: inboundDynamo.endpoint, iterations: ITERATIONS, total: TOTAL, concurrency: CONCURRENCY, purges: INBOUND_PURGES });
  } finally {
    await inboundDynamo.stop();
  }
};

const print = (lines: string[]) => {
  for (const text of lines) console.log(text);
};

const main = async () => {
  // The cost table alone (`npm run bench -- --cost`): it runs on a DynamoDB Local of its own.
  if (process.argv.includes('--cost')) return await costBench();
  // The webhook pipeline's figures alone (`--webhooks`: the fan-out and the backlog drain), or the
  // inbound ticket webhook's (`--inbound`), each on DynamoDB Locals of their own.
  if (process.argv.includes('--webhooks')) {
    const { fanOut, drain } = await measureWebhooks();
    return print([...(fanOut ? fanOutReport(fanOut) : []), ...(drain ? drainReport(drain) : [])]);
  }
  if (process.argv.includes('--inbound')) {
    const inbound = await measureInboundWebhook();
    return print(inbound ? inboundReport(inbound) : []);
  }
  const dynamo = await startDynamoLocal();
  try {
    // The soak runs alone: it is about holding the rate limits for minutes, not the other figures.
    if (process.argv.includes('--soak')) return await runSoak({ dynamoEndpoint: dynamo.endpoint, enginePid: dynamo.process.pid, minutes: Number(process.env.BENCH_SOAK_MINUTES ?? 10) });
    await run(dynamo);
  } finally {
    await dynamo.stop(); // also when a measurement fails: no DynamoDB Local is left running
  }
};

const run = async (dynamo: RunningDynamo) => {
  // The request paths only: no webhook stream poller or expiry timers running beside them.
  const service = await startLocalService({
    dynamoEndpoint: dynamo.endpoint,
    tableName: 'bench',
    announce: () => undefined,
    webhooks: false,
    timers: false,
  });
  const { admin, deps } = service;
  const org = await admin.createOrganisation({ name: 'Bench Org', plan: 'team' });
  await admin.setRateLimits(org.id, { perKeyPerMinute: 10_000_000, perOrgPerMinute: 10_000_000 });
  const owner = await admin.addMember({ orgId: org.id, name: 'Bench Owner', email: 'owner@bench.example', role: 'owner', identityKey: newIdentityPublicKey() });
  const { secret } = await admin.createApiKey({ orgId: org.id, name: 'bench', scopes: ['requests:read', 'requests:write'] });
  const client = createClient(service.baseUrl, secret);

  const createBody = { subject_name: 'Bench Subject', justification: 'Benchmarking the create path', recipients: [owner.email], verification_mode: 'challenge' };
  const created = JSON.parse((await client.call('POST', '/requests', createBody)).body);
  for (let i = 0; i < 60; i++) await client.call('POST', '/requests', createBody); // a full first page for the list
  const requestId: string = created.request.id;
  const options = { iterations: ITERATIONS, total: TOTAL, concurrency: CONCURRENCY };
  const { db, tableName } = deps;

  const results: Array<[Measurement, Measurement]> = [];
  results.push(
    await measurePair(
      { name: 'GET /v1/requests/{id}', call: () => client.call('GET', `/requests/${requestId}`) },
      { name: 'raw GetItem', call: () => db.send(new GetCommand({ TableName: tableName, Key: keys.request(requestId) })) },
      options,
    ),
  );
  // What no counted read can do without: the rate count beside the batch read of the key, the
  // organisation and the record, sent in parallel. DynamoDB runs them side by side; DynamoDB Local
  // on two cores mostly one after the other, so this pair is the read paths' floor in this run.
  const floor = await measurePair(
    {
      name: 'raw BatchGet(3) ‖ Update',
      call: () =>
        Promise.all([
          db.send(new BatchGetCommand({ RequestItems: { [tableName]: { Keys: [keys.request(requestId), keys.organisation(org.id), keys.request('0'.repeat(26))] } } })),
          db.send(
            new UpdateCommand({
              TableName: rateTableNameOf(tableName),
              Key: keys.rateWindow('org', `bench-${org.id}`, 0),
              UpdateExpression: 'ADD n :one',
              ExpressionAttributeValues: { ':one': 1 },
            }),
          ),
        ]),
    },
    { name: 'raw GetItem', call: () => db.send(new GetCommand({ TableName: tableName, Key: keys.request(requestId) })) },
    options,
  );
  results.push(
    await measurePair(
      { name: 'GET /v1/requests (50)', call: () => client.call('GET', '/requests') },
      {
        name: 'raw Query (51 items)',
        call: () =>
          db.send(
            new QueryCommand({
              TableName: tableName,
              IndexName: INDEXES.byOrg.indexName,
              KeyConditionExpression: 'gsi1pk = :pk',
              ExpressionAttributeValues: { ':pk': keys.requestsOfOrg(org.id) },
              ScanIndexForward: false,
              Limit: 51,
            }),
          ),
      },
      options,
    ),
  );
  results.push(
    await measurePair(
      { name: 'POST /v1/requests', call: () => client.call('POST', '/requests', createBody) },
      // The fan-out's report compares with this one too (results[2]).
      { name: 'raw TransactWriteItems (4)', call: () => rawAuditedWrite(db, tableName, created.request) },
      { ...options, iterations: Math.min(ITERATIONS, 500), total: Math.min(TOTAL, 1000) },
    ),
  );

  // GET /v1/events as the chain grows: one call reads at most 1,000 stored entries, so neither
  // polling the tail, reading from the oldest, nor a filter that matches nothing should slow down.
  const eventRows: Array<{ stored: number; tail: Measurement; head: Measurement; sparse: Measurement }> = [];
  if (EVENT_SIZES.length) {
    const eventOrg = await admin.createOrganisation({ name: 'Bench Events Org', plan: 'team' });
    await admin.setRateLimits(eventOrg.id, { perKeyPerMinute: 10_000_000, perOrgPerMinute: 10_000_000 });
    const { secret: eventsKey } = await admin.createApiKey({ orgId: eventOrg.id, name: 'bench events', scopes: ['events:read'] });
    const events = createClient(service.baseUrl, eventsKey);
    const eventOptions = { iterations: Math.min(ITERATIONS, 300), total: Math.min(TOTAL, 600), concurrency: CONCURRENCY };
    let stored = 0;
    for (const size of EVENT_SIZES) {
      const started = Date.now();
      const last = await seedEvents(db, tableName, eventOrg.id, eventOrg.defaultClientId, size - stored);
      stored = size;
      console.log(`seeded ${size} stored events in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      const tailSince = Math.max(0, last - 150);
      eventRows.push({
        stored: size,
        tail: await measure(`GET /v1/events tail (${size})`, () => events.call('GET', `/events?since=${tailSince}`), eventOptions),
        head: await measure(`GET /v1/events since=0 (${size})`, () => events.call('GET', '/events?since=0'), eventOptions),
        sparse: await measure(`GET /v1/events no match (${size})`, () => events.call('GET', '/events?since=0&types=member.disabled'), eventOptions),
      });
    }
    events.close();
  }

  client.close();
  await service.stop();

  await dynamo.stop();

  // The webhook fan-out and the drain on DynamoDB Locals of their own (the one above now holds the
  // 100,000 seeded events and their stream, which slows every call), their raw baselines beside them.
  const { fanOut, drain } = await measureWebhooks();
  // The inbound webhook on an engine of its own too.
  const inbound = await measureInboundWebhook();
  // Verified and unverified closes on an engine of their own too.
  let helpdeskClose: HelpdeskCloseResult | null = null;
  if (HELPDESK_CLOSES > 0) {
    const helpdeskDynamo = await startDynamoLocal();
    try {
      helpdeskClose = await measureHelpdeskClose({ dynamoEndpoint: helpdeskDynamo.endpoint, closes: HELPDESK_CLOSES });
    } finally {
      await helpdeskDynamo.stop();
    }
  }
  // Certificates on an engine of their own too.
  let certificates: CertificateResult | null = null;
  if (CERTIFICATES) {
    const certificateDynamo = await startDynamoLocal();
    try {
      certificates = await measureCertificates({ dynamoEndpoint: certificateDynamo.endpoint, iterations: ITERATIONS, total: TOTAL, concurrency: CONCURRENCY });
    } finally {
      await certificateDynamo.stop();
    }
  }

  const line = (cells: string[], widths: number[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ');
  const widths = [26, 10, 10, 12, 28, 10, 10, 12, 10];
  console.log(`\nLatency: ${ITERATIONS} sequential calls; throughput: ${TOTAL} calls at concurrency ${CONCURRENCY}. Same run, same DynamoDB Local.\n`);
  console.log(line(['endpoint', 'p50', 'p99', 'calls/s', 'raw DynamoDB call', 'p50', 'p99', 'calls/s', 'p50 ratio'], widths));
  for (const [api, raw] of results) {
    console.log(
      line(
        [api.name, formatMs(api.p50), formatMs(api.p99), api.throughput.toFixed(0), raw.name, formatMs(raw.p50), formatMs(raw.p99), raw.throughput.toFixed(0), `${(api.p50 / raw.p50).toFixed(2)}x`],
        widths,
      ),
    );
  }
  if (eventRows.length) {
    console.log('\nGET /v1/events (limit 100) by stored events: tail = polling the newest 150; since=0 = the oldest page; no match = a');
    console.log('types filter matching nothing, which stops at the 1,000-entry read bound with has_more.\n');
    const eventWidths = [14, 22, 22, 22];
    console.log(line(['stored events', 'tail p50 / p99', 'since=0 p50 / p99', 'no match p50 / p99'], eventWidths));
    for (const row of eventRows) {
      const cell = (m: Measurement) => `${formatMs(m.p50)} / ${formatMs(m.p99)}`;
      console.log(line([String(row.stored), cell(row.tail), cell(row.head), cell(row.sparse)], eventWidths));
    }
  }
  if (fanOut) for (const text of fanOutReport(fanOut, results[2]![1])) console.log(text);
  if (drain) for (const text of drainReport(drain)) console.log(text);
  if (inbound) for (const text of inboundReport(inbound)) console.log(text);
  if (helpdeskClose) for (const text of helpdeskCloseReport(helpdeskClose)) console.log(text);
  if (certificates) for (const text of certificateReport(certificates)) console.log(text);
  // Every request path within twice its raw call, the rate count included (it runs beside the reads).
  for (const [api, raw] of results) {
    const ratio = api.p50 / raw.p50;
    console.log(`${api.name} p50 is ${ratio.toFixed(2)}x ${raw.name} p50 (target: within ${RATIO_TARGET}x)${ratio > RATIO_TARGET ? '  OVER TARGET' : ''}.`);
  }
  const [pair, single] = floor;
  console.log(
    `The floor of a counted read on this engine: ${pair.name} p50 ${formatMs(pair.p50)} is ${(pair.p50 / single.p50).toFixed(2)}x ${single.name} p50 ${formatMs(single.p50)}; ` +
      `GET /v1/requests/{id} p50 is ${(results[0]![0].p50 / pair.p50).toFixed(2)}x that pair.`,
  );
  // Last, with every engine stopped: the bundles' sizes against the budget, and their import times.
  if (!(await functionsBench())) process.exitCode = 1;
  // Then what the work measured costs on AWS (bench/cost/).
  await costBench();
};

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

/**
 * `npm run bench -- --soak`: two API keys of one organisation held at their rate limits (the
 * defaults, 600 calls per key and 1,200 per organisation a minute) for BENCH_SOAK_MINUTES, on the
 * real `npm start` runtime (webhook pipeline and timers on) in a process of its own
 * (soak-service.ts), with two subscriptions to `request.created`: a loopback receiver that answers
 * 204 at once and one that never answers. Per one-minute window: each key's admitted and refused
 * calls, the calls' latency, the healthy receiver's deliveries and their latency, and the service
 * process's RSS and JavaScript heap, so that a limiter that drifts
 * from its limit, a hanging receiver that slows the healthy one, or memory that keeps growing
 * shows up as a trend rather than in one figure.
 */
import { fork } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from './http-client.ts';
import { SOAK_CONFIG_ENV, type HangingDeliveries, type ServiceMemory, type SoakAnswer, type SoakServiceConfig, type SoakServiceReady } from './soak-protocol.ts';
import { formatMs, percentile } from './stats.ts';

export interface SoakOptions {
  dynamoEndpoint: string;
  /** Full one-minute windows of load. */
  minutes: number;
  /** DynamoDB Local's process, whose RSS is printed beside this one's (it holds the table). */
  enginePid?: number;
}

const WINDOW_MS = 60_000;
/** Calls per key per second: 780 a minute, so each key keeps calling for ~14 s after its 600th. */
const CALLS_PER_SECOND = 13;
/** One call in this many is POST /v1/requests, so that events flow to the subscriptions all along. */
const POST_ONE_IN = 10;
/** After the load: how long the healthy receiver gets to receive every committed event. */
const DRAIN_MS = 30_000;
const PER_KEY_LIMIT = 600;
const PER_ORG_LIMIT = 1_200;

interface Call {
  key: number;
  /** Wall-clock ms when the call was started: its window is the one it was sent in. */
  sentAt: number;
  ms: number;
  status: number;
  /** The window the service counted it in, from X-RateLimit-Reset (Unix seconds of its end). */
  serviceWindow: number | null;
  /** A 429 without Retry-After or with X-RateLimit-Remaining other than 0. */
  bad429: boolean;
  detail: string;
}

interface Receipt {
  at: number;
  latency: number;
  requestId: string | null;
}

/** An error answer's `code`, so that the same failure is counted together; the start of the body otherwise. */
const codeOf = (body: string) => {
  try {
    return String((JSON.parse(body) as { code?: unknown }).code ?? body.slice(0, 120));
  } catch {
    return body.slice(0, 120);
  }
};

const windowOf = (ms: number) => Math.floor(ms / WINDOW_MS);
const sleep = (ms: number) => new Promise((done) => setTimeout(done, Math.max(0, ms)));
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);

/** Answers 204 at once, and notes when each event (by its id) first arrived and how many times. */
const startHealthyReceiver = async () => {
  const receipts = new Map<string, Receipt>();
  let duplicates = 0;
  let unreadable = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = Date.now();
      res.writeHead(204).end();
      try {
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string; occurred_at: string; data?: { request?: { id?: string } } };
        if (receipts.has(event.id)) duplicates++;
        else receipts.set(event.id, { at, latency: at - Date.parse(event.occurred_at), requestId: event.data?.request?.id ?? null });
      } catch {
        unreadable++;
      }
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    receipts,
    counts: () => ({ duplicates, unreadable }),
    close: async () => {
      server.closeAllConnections();
      await new Promise((done) => server.close(() => done(undefined)));
    },
  };
};

/** Reads each delivery and never answers: the connection stays open until the sender gives up. */
const startHangingReceiver = async () => {
  let attempts = 0;
  let open = 0;
  let maxOpen = 0;
  const server = createServer((req) => {
    attempts++;
    req.resume();
  });
  server.on('connection', (socket) => {
    open++;
    maxOpen = Math.max(maxOpen, open);
    socket.on('close', () => open--);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    counts: () => ({ attempts, open, maxOpen }),
    close: async () => {
      server.closeAllConnections();
      await new Promise((done) => server.close(() => done(undefined)));
    },
  };
};

/**
 * The service in a process of its own (bench/soak-service.ts), and the questions the soak asks it:
 * its memory, the hanging subscription's deliveries, and to stop.
 */
const startSoakService = async (config: SoakServiceConfig) => {
  const child = fork(new URL('./soak-service.ts', import.meta.url), [], { execArgv: ['--import', 'tsx'], env: { ...process.env, [SOAK_CONFIG_ENV]: JSON.stringify(config) } });
  const waiting = new Map<number, (answer: SoakAnswer) => void>();
  let asked = 0;
  const ready = await new Promise<SoakServiceReady>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the soak service exited (${code}) before it was ready`)));
    child.on('message', (message: SoakServiceReady | SoakAnswer) => {
      if ('type' in message) resolve(message);
      else waiting.get(message.id)?.(message), waiting.delete(message.id);
    });
  });
  const ask = (question: 'memory' | 'hangingDeliveries' | 'stop') =>
    new Promise<SoakAnswer>((resolve) => {
      const id = ++asked;
      waiting.set(id, resolve);
      child.send({ id, ask: question });
    });
  return {
    ...ready,
    pid: child.pid!,
    memory: async () => ((await ask('memory')) as { memory: ServiceMemory }).memory,
    hangingDeliveries: async () => ((await ask('hangingDeliveries')) as { hangingDeliveries: HangingDeliveries }).hangingDeliveries,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((done) => child.once('exit', done));
      await ask('stop');
      await exited;
    },
  };
};

/** Resident memory of another process (DynamoDB Local), from /proc; null where there is none. */
const rssOfPid = async (pid: number | undefined) => {
  if (!pid) return null;
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(status);
    return kb ? Number(kb[1]) * 1024 : null;
  } catch {
    return null;
  }
};

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const p50p99 = (values: number[]) => {
  const s = sorted(values);
  return `${formatMs(percentile(s, 50))} / ${formatMs(percentile(s, 99))}`;
};

export const runSoak = async (options: SoakOptions) => {
  const minutes = Math.floor(options.minutes);
  if (!(minutes >= 1)) throw new Error(`BENCH_SOAK_MINUTES must be a whole number of minutes, at least 1 (got ${options.minutes})`);
  // Each created request may write to the outbox; a folder of its own, removed afterwards.
  const outboxDir = await mkdtemp(join(tmpdir(), 'soak-outbox-'));
  const healthy = await startHealthyReceiver();
  const hanging = await startHangingReceiver();
  const service = await startSoakService({ dynamoEndpoint: options.dynamoEndpoint, outboxDir, healthyUrl: healthy.url, hangingUrl: hanging.url });
  try {
    const createBody = { subject_name: 'Soak Subject', justification: 'Soaking the rate limits', recipients: [service.ownerEmail], verification_mode: 'challenge' };

    // One request to read back; made now, in a minute that is not measured.
    const setup = createClient(service.baseUrl, service.keys[0]);
    const readId: string = JSON.parse((await setup.call('POST', '/requests', createBody)).body).request.id;
    setup.close();

    const clients = service.keys.map((secret) => createClient(service.baseUrl, secret));
    const calls: Call[] = [];
    const created = new Map<string, number>();
    const rss = new Map<number, { service: ServiceMemory; engine: number | null; load: number }>();

    // The load starts at a minute boundary, so its first window is a full one.
    const firstWindow = windowOf(Date.now()) + 1;
    const endAt = (firstWindow + minutes) * WINDOW_MS;
    console.log(
      `soak: ${minutes} min from ${new Date(firstWindow * WINDOW_MS).toISOString()}; 2 keys at ${CALLS_PER_SECOND} calls/s each ` +
        `(limits ${PER_KEY_LIMIT}/key, ${PER_ORG_LIMIT}/organisation a minute), 1 in ${POST_ONE_IN} POST /v1/requests`,
    );
    await sleep(firstWindow * WINDOW_MS - Date.now());

    // RSS at the end of each minute, for the window that just ended.
    const sampler = (async () => {
      for (let w = firstWindow; w < firstWindow + minutes; w++) {
        await sleep((w + 1) * WINDOW_MS - Date.now());
        rss.set(w, { service: await service.memory(), engine: await rssOfPid(options.enginePid), load: loadavg()[0] });
        const { attempts, open } = hanging.counts();
        console.log(`  minute ${w - firstWindow + 1}/${minutes} done: ${calls.length} calls answered, ${healthy.receipts.size} healthy deliveries, hanging receiver ${attempts} attempts (${open} open)`);
      }
    })();

    const oneCall = async (key: number, seq: number) => {
      const sentAt = Date.now();
      const started = performance.now();
      const post = seq % POST_ONE_IN === POST_ONE_IN - 1;
      const kind = post ? 'POST /requests' : seq % 2 ? 'GET /ping' : 'GET /requests/{id}';
      try {
        const answer = post ? await clients[key].exchange('POST', '/requests', createBody) : await clients[key].exchange('GET', seq % 2 ? '/ping' : `/requests/${readId}`);
        const ms = performance.now() - started;
        const reset = Number(answer.headers['x-ratelimit-reset']);
        const bad429 = answer.status === 429 && (!/^\d+$/.test(String(answer.headers['retry-after'] ?? '')) || answer.headers['x-ratelimit-remaining'] !== '0');
        if (post && answer.status === 201) created.set(JSON.parse(answer.body).request.id, sentAt);
        calls.push({ key, sentAt, ms, status: answer.status, serviceWindow: Number.isFinite(reset) ? reset / 60 - 1 : null, bad429, detail: `${kind} ${answer.status} ${codeOf(answer.body)}` });
      } catch (error) {
        calls.push({ key, sentAt, ms: performance.now() - started, status: 0, serviceWindow: null, bad429: false, detail: `${kind} ${(error as Error).message}` });
      }
    };

    // Open loop at a steady pace: each call is sent on its schedule whether or not the ones
    // before it have answered, so a slower service does not lower the offered load.
    const interval = 1000 / CALLS_PER_SECOND;
    const load = async (key: number) => {
      const inFlight = new Set<Promise<void>>();
      // The second key's calls fall between the first key's.
      const start = firstWindow * WINDOW_MS + (key * interval) / 2;
      for (let seq = 0; ; seq++) {
        const at = start + seq * interval;
        if (at >= endAt) break;
        await sleep(at - Date.now());
        const pending = oneCall(key, seq);
        inFlight.add(pending);
        void pending.finally(() => inFlight.delete(pending));
      }
      await Promise.all(inFlight);
    };
    await Promise.all([load(0), load(1), sampler]);
    clients.forEach((c) => c.close());

    // Every committed event should reach the healthy receiver; it gets a while after the load.
    const drainUntil = Date.now() + DRAIN_MS;
    const receivedRequests = () => new Set([...healthy.receipts.values()].map((r) => r.requestId));
    while (Date.now() < drainUntil && [...created.keys()].some((id) => !receivedRequests().has(id))) await sleep(250);
    const received = receivedRequests();
    const missing = [...created.keys()].filter((id) => !received.has(id));
    const hangingDeliveries = await service.hangingDeliveries();

    report({ firstWindow, minutes, calls, rss, receipts: [...healthy.receipts.values()], created: created.size, missing: missing.length, healthy: healthy.counts(), hanging: hanging.counts(), hangingDeliveries });
  } finally {
    // The hanging receiver first: its open attempts then end at once instead of holding the service's stop for their timeout.
    await hanging.close();
    await service.stop();
    await healthy.close();
    await rm(outboxDir, { recursive: true, force: true });
  }
};

const report = (run: {
  firstWindow: number;
  minutes: number;
  calls: Call[];
  rss: Map<number, { service: ServiceMemory; engine: number | null; load: number }>;
  receipts: Receipt[];
  created: number;
  missing: number;
  healthy: { duplicates: number; unreadable: number };
  hanging: { attempts: number; open: number; maxOpen: number };
  hangingDeliveries: { byStatus: Record<string, number>; attempts: number };
}) => {
  const line = (cells: string[], widths: number[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  const widths = [6, 14, 14, 8, 13, 21, 21, 10, 34, 24, 6, 6];
  const admitted = (c: Call) => c.status === 200 || c.status === 201;
  const unexpected = run.calls.filter((c) => !admitted(c) && c.status !== 429);
  const windows = Array.from({ length: run.minutes }, (_, i) => run.firstWindow + i);
  let exactBySend = true;
  let exactByService = true;

  console.log(`\nSoak: two API keys of one organisation at ${CALLS_PER_SECOND} calls/s each for ${run.minutes} one-minute windows (fixed, on the wall clock).`);
  console.log('A call is counted in the window it was SENT in; the service counts it in the window it arrives in, so a call sent just');
  console.log('before a boundary can be admitted in the next window: "svc k1/k2" counts admitted calls by the window the service');
  console.log('reported (X-RateLimit-Reset). Deliveries are counted in the window they were received; latency = receipt - occurred_at.\n');
  console.log(line(['window', 'key1 200/429', 'key2 200/429', 'org 200', 'svc k1/k2', 'all p50 / p99', 'admitted p50 / p99', 'delivered', 'delivery p50 / p99 / max', 'RSS / heap used / total', 'load', 'other'], widths));
  for (const [index, w] of windows.entries()) {
    const inWindow = run.calls.filter((c) => windowOf(c.sentAt) === w);
    const ok = (key: number) => inWindow.filter((c) => c.key === key && admitted(c)).length;
    const refused = (key: number) => inWindow.filter((c) => c.key === key && c.status === 429).length;
    const byService = (key: number) => run.calls.filter((c) => c.key === key && admitted(c) && c.serviceWindow === w).length;
    if (ok(0) !== PER_KEY_LIMIT || ok(1) !== PER_KEY_LIMIT || ok(0) + ok(1) !== PER_ORG_LIMIT) exactBySend = false;
    if (byService(0) !== PER_KEY_LIMIT || byService(1) !== PER_KEY_LIMIT) exactByService = false;
    const delivered = run.receipts.filter((r) => windowOf(r.at) === w).map((r) => r.latency);
    const d = sorted(delivered);
    const memory = run.rss.get(w);
    console.log(
      line(
        [
          String(index + 1),
          `${ok(0)} / ${refused(0)}`,
          `${ok(1)} / ${refused(1)}`,
          String(ok(0) + ok(1)),
          `${byService(0)} / ${byService(1)}`,
          p50p99(inWindow.map((c) => c.ms)),
          p50p99(inWindow.filter(admitted).map((c) => c.ms)),
          String(d.length),
          d.length ? `${formatMs(percentile(d, 50))} / ${formatMs(percentile(d, 99))} / ${formatMs(d[d.length - 1])}` : '-',
          memory ? `${mb(memory.service.rss)} / ${mb(memory.service.heapUsed)} / ${mb(memory.service.heapTotal)}${memory.engine === null ? '' : ` (+${mb(memory.engine)})`}` : '-',
          memory ? memory.load.toFixed(2) : '-',
          String(inWindow.filter((c) => !admitted(c) && c.status !== 429).length),
        ],
        widths,
      ),
    );
  }

  const all = sorted(run.receipts.filter((r) => windows.includes(windowOf(r.at))).map((r) => r.latency));
  const second = run.rss.get(run.firstWindow + 1)?.service.rss;
  const last = run.rss.get(run.firstWindow + run.minutes - 1)?.service.rss;
  const secondHeap = run.rss.get(run.firstWindow + 1)?.service.heapUsed;
  const lastHeap = run.rss.get(run.firstWindow + run.minutes - 1)?.service.heapUsed;
  const bad429 = run.calls.filter((c) => c.bad429).length;
  const { byStatus, attempts } = run.hangingDeliveries;
  console.log('\nRSS / heap used / total, MB: the service\'s process (not the load or the receivers): its RSS, the JavaScript heap in use and the heap V8 holds, and in');
  console.log('brackets DynamoDB Local\'s RSS; load: the machine\'s');
  console.log(`1-minute load average (${cpus().length} CPUs), which includes anything else running. Both sampled at the end of each minute.`);
  console.log(
    `exact: every window admitted ${PER_KEY_LIMIT} per key and ${PER_ORG_LIMIT} for the organisation: ${exactBySend ? 'yes' : 'NO'} by the window sent in, ` +
      `${exactByService ? 'yes' : 'NO'} by the service's window` +
      `; RSS last minute / second minute: ${second && last ? `${mb(last)} / ${mb(second)} MB = ${(last / second).toFixed(2)}x` : 'n/a (fewer than 2 minutes)'}` +
      `, heap in use ${secondHeap && lastHeap ? `${mb(lastHeap)} / ${mb(secondHeap)} MB = ${(lastHeap / secondHeap).toFixed(2)}x` : 'n/a'}` +
      `; healthy delivery p99 ${all.length ? formatMs(percentile(all, 99)) : '-'} (max ${all.length ? formatMs(all[all.length - 1]) : '-'})`,
  );
  console.log(
    `events committed (201): ${run.created}; not received by the healthy receiver ${DRAIN_MS / 1000} s after the load: ${run.missing}; ` +
      `duplicates: ${run.healthy.duplicates}; unreadable bodies: ${run.healthy.unreadable}`,
  );
  console.log(
    `hanging subscription: ${Object.entries(byStatus).map(([status, n]) => `${n} ${status}`).join(', ') || 'no deliveries'} (${attempts} attempts recorded); ` +
      `its receiver saw ${run.hanging.attempts} attempts, at most ${run.hanging.maxOpen} connections open at once`,
  );
  console.log(`429s without Retry-After or with X-RateLimit-Remaining other than 0: ${bad429}; other statuses and errors: ${unexpected.length}`);
  const kinds = new Map<string, number>();
  for (const c of unexpected) kinds.set(c.detail, (kinds.get(c.detail) ?? 0) + 1);
  for (const [detail, n] of [...kinds.entries()].sort((a, b) => b[1] - a[1]).slice(0, 10)) console.log(`  ${n} x ${detail}`);
};

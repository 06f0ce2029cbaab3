/**
 * A loopback HTTP proxy in front of DynamoDB Local that fails chosen calls the way DynamoDB does:
 * a throttling error, a transaction cancelled by a conflicting transaction, or no answer at all
 * (before or after the call reached the table). Calls are matched by operation, the last part of
 * `X-Amz-Target` (`DynamoDB_20120810.TransactWriteItems`); everything else passes through as is.
 */
import { createServer, request as forward, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export type FaultKind =
  | 'ProvisionedThroughputExceededException'
  | 'ThrottlingException'
  | 'RequestLimitExceeded'
  /** TransactionCanceledException: TransactionConflict on the first item, None on the others. */
  | 'TransactionConflict'
  /** No answer, and the call never reaches the table: the client's timeout ends it (TimeoutError). */
  | 'hang'
  /** The call reaches the table and is applied; its answer never comes back. */
  | 'hang-after-apply'
  /** The connection drops before the call reaches the table (ECONNRESET, "socket hang up"). */
  | 'reset'
  /** The call reaches the table and is applied, then the connection drops before the answer. */
  | 'reset-after-apply';

export interface FaultRule {
  /** The operation, as in `TransactWriteItems`, `PutItem`, `GetItem`. */
  operation: string;
  fault: FaultKind;
  /** How many matching calls fail (default: every one until cleared). */
  times?: number;
  /** Matching calls let through before the first failure (default 0). */
  skip?: number;
}

export interface FaultProxy {
  endpoint: string;
  /** Replaces the rules; matching counts start again. */
  inject(...rules: FaultRule[]): void;
  clear(): void;
  /** How many calls of `operation` went through the proxy since the last inject or clear, failed or not. */
  calls(operation: string): number;
  /** How many calls a rule has failed since the last inject or clear. */
  failed(): number;
  stop(): Promise<void>;
}

const ERROR_TYPES: Record<string, string> = {
  ProvisionedThroughputExceededException: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
  ThrottlingException: 'com.amazon.coral.availability#ThrottlingException',
  RequestLimitExceeded: 'com.amazonaws.dynamodb.v20120810#RequestLimitExceeded',
  TransactionCanceledException: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
};

const readAll = (stream: IncomingMessage) =>
  new Promise<Buffer>((done, fail) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => done(Buffer.concat(chunks)));
    stream.on('error', fail);
  });

/** A DynamoDB JSON 1.0 error answer, as the real service sends it. */
const errorAnswer = (res: ServerResponse, type: string, body: Record<string, unknown>) => {
  const text = JSON.stringify({ __type: type, ...body });
  res.writeHead(400, { 'Content-Type': 'application/x-amz-json-1.0', 'Content-Length': Buffer.byteLength(text), 'x-amzn-RequestId': `fault-${Date.now()}` });
  res.end(text);
};

const cancelledAnswer = (res: ServerResponse, requestBody: Buffer) => {
  let count = 1;
  try {
    count = Math.max(1, (JSON.parse(requestBody.toString('utf8')) as { TransactItems?: unknown[] }).TransactItems?.length ?? 1);
  } catch {
    // not JSON: one reason
  }
  const reasons = Array.from({ length: count }, (_, index) =>
    index === 0 ? { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' } : { Code: 'None' },
  );
  errorAnswer(res, ERROR_TYPES.TransactionCanceledException, {
    Message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((reason) => reason.Code).join(', ')}]`,
    CancellationReasons: reasons,
  });
};

export const startFaultProxy = async (target: string): Promise<FaultProxy> => {
  const upstream = new URL(target);
  let rules: Array<FaultRule & { seen: number; done: number }> = [];
  let counts = new Map<string, number>();
  let failures = 0;
  const sockets = new Set<Socket>();

  const pass = (req: IncomingMessage, body: Buffer) =>
    new Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }>((done, fail) => {
      const outbound = forward(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } },
        async (answer) => done({ status: answer.statusCode ?? 502, headers: answer.headers, body: await readAll(answer) }),
      );
      outbound.on('error', fail);
      outbound.end(body);
    });

  const server = createServer(async (req, res) => {
    const body = await readAll(req);
    const operation = String(req.headers['x-amz-target'] ?? '').split('.').pop() ?? '';
    counts.set(operation, (counts.get(operation) ?? 0) + 1);
    const rule = rules.find((candidate) => candidate.operation === operation && candidate.done < (candidate.times ?? Infinity));
    let fault: FaultKind | null = null;
    if (rule) {
      rule.seen++;
      if (rule.seen > (rule.skip ?? 0)) {
        rule.done++;
        failures++;
        fault = rule.fault;
      }
    }
    if (fault === 'hang') return; // the client's timeout ends it
    if (fault === 'reset') return void req.socket.destroy();
    try {
      if (fault === 'TransactionConflict') return cancelledAnswer(res, body);
      if (fault && fault in ERROR_TYPES) return errorAnswer(res, ERROR_TYPES[fault], { message: 'Rate of requests exceeds the allowed throughput.' });
      const answer = await pass(req, body);
      if (fault === 'hang-after-apply') return; // applied; the answer is lost
      if (fault === 'reset-after-apply') return void req.socket.destroy();
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
    } catch {
      res.destroy();
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('the fault proxy has no port');

  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    inject: (...next) => {
      rules = next.map((rule) => ({ ...rule, seen: 0, done: 0 }));
      counts = new Map();
      failures = 0;
    },
    clear: () => {
      rules = [];
      counts = new Map();
      failures = 0;
    },
    calls: (operation) => counts.get(operation) ?? 0,
    failed: () => failures,
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
};

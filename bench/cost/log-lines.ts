/**
 * The log lines AWS writes beside the service's own, built here to be measured rather than
 * guessed: API Gateway's access log line for each request (the stage's format, lib/handoff-stack.ts),
 * and Lambda's platform lines for each invocation. The functions log in Lambda's JSON format,
 * which writes a `platform.start` and a `platform.report` line per invocation (the text format's
 * START, END and REPORT carry the same). Values that vary are given typical widths.
 */
import { randomUUID } from 'node:crypto';
import { ACCESS_LOG_FIELDS } from '../../lib/handoff-stack.ts';

/** CloudWatch Logs counts 26 bytes per event beside its message (PutLogEvents' batch size); priced here too, which leans high. */
export const LOG_EVENT_OVERHEAD_BYTES = 26;

const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');
const timestamp = () => new Date().toISOString();

export interface AccessLogRequest {
  method: string;
  routeKey: string;
  status: number;
  responseBytes: number;
  latencyMs: number;
}

/** API Gateway's request ids are 16 characters; an access log's time is in CLF form. */
const accessLogValues = (request: AccessLogRequest): Record<keyof typeof ACCESS_LOG_FIELDS, string> => ({
  requestId: 'Vx3Pq1ZaIAMEb2Q=',
  requestTime: '26/Nov/2026:11:03:29 +0000',
  sourceIp: '203.0.113.195',
  httpMethod: request.method,
  routeKey: request.routeKey,
  status: String(request.status),
  responseLength: String(request.responseBytes),
  responseLatency: String(Math.ceil(request.latencyMs)),
  integrationLatency: String(Math.max(1, Math.floor(request.latencyMs))),
  integrationStatus: String(request.status),
  error: '-',
});

export const accessLogLineBytes = (request: AccessLogRequest) => utf8(JSON.stringify(accessLogValues(request)));

/** The two platform lines of one invocation of `billedMs` on a function of `memoryMb`. */
export const platformLinesBytes = (billedMs: number, memoryMb: number) => {
  const requestId = randomUUID();
  const start = { time: timestamp(), type: 'platform.start', record: { requestId, version: '$LATEST' } };
  const report = {
    time: timestamp(),
    type: 'platform.report',
    record: { requestId, metrics: { durationMs: billedMs - 0.123, billedDurationMs: billedMs, memorySizeMB: memoryMb, maxMemoryUsedMB: 96 }, status: 'success' },
  };
  return utf8(JSON.stringify(start)) + utf8(JSON.stringify(report));
};

export const PLATFORM_LINES_PER_INVOCATION = 2;

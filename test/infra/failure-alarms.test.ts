import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FAILURE_LOG_MESSAGES, LINK_DELIVERY_FAILED, scheduleFailedMessage, SIGN_IN_EMAIL_FAILED, type FailureLogKind } from '../../lambdas/failure-logs.ts';
import { createLogger } from '../../lambdas/logger.ts';
import { routeList } from '../../lambdas/http/routes.ts';
import { PURGE_SCHEDULING_ROUTES, SCHEDULE_CANCELLING_ROUTES, SCHEDULING_ROUTES } from '../../lib/api-functions.ts';
import { HandoffStack } from '../../lib/handoff-stack.ts';
import { FAILURE_METRICS, failureMetricNamespace } from '../../lib/operations.ts';
import { flatTemplateJson } from '../support/flat-template.ts';
import { alarmNotifying } from '../support/alarm-shape.ts';

/**
 * The failures a call tolerates and only logs (lambdas/failure-logs.ts): an email or SMS not sent,
 * a schedule not armed or cancelled. Each log group that can hold one has a metric filter on the
 * JSON log's `message` matching exactly the messages the code logs, every filter of a kind counts
 * into one metric, and one alarm per kind notifies the alarm topic. Bundling skipped.
 */

type Json = Record<string, any>;
const STACK = 'FailureAlarms';
let outdir: string;
let resources: Record<string, Json>;

beforeAll(() => {
  outdir = mkdtempSync(path.join(tmpdir(), 'handoff-failure-alarms-'));
  const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': [], emailFrom: 'handoff@test.example' } });
  resources = flatTemplateJson(new HandoffStack(app, STACK)).Resources;
}, 180_000);

afterAll(() => {
  if (outdir) rmSync(outdir, { recursive: true, force: true });
});

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);

const functionIdOf = (route: { method: string; path: string }): string => {
  const found = ofType('AWS::ApiGatewayV2::Route').find(([, r]) => r.Properties.RouteKey === `${route.method} ${route.path}`)!;
  const integration = resources[found[1].Properties.Target['Fn::Join'][1][1].Ref]!;
  return integration.Properties.IntegrationUri['Fn::GetAtt'][0];
};
const logGroupOf = (functionId: string): string => resources[functionId]!.Properties.LoggingConfig.LogGroup.Ref;

/** A worker function, by its (unique) description. */
const workerFunctionId = (description: RegExp): string => {
  const found = ofType('AWS::Lambda::Function').filter(([, fn]) => description.test(fn.Properties.Description));
  expect(found, String(description)).toHaveLength(1);
  return found[0]![0];
};

/**
 * The log groups of the functions that may log each kind: those whose rows send; those that arm or
 * cancel schedules, which are the scheduling routes' and the two helpdesk workers' (a verified
 * ticket status completes a request or arms or cancels its purge, lib/helpdesk-checks.ts).
 */
const expectedGroups = (kind: FailureLogKind) => {
  const routes =
    kind === 'delivery'
      ? routeList().filter((route) => (route.sends ?? []).length > 0)
      : routeList().filter((route) => [...SCHEDULING_ROUTES, ...SCHEDULE_CANCELLING_ROUTES, ...PURGE_SCHEDULING_ROUTES].includes(route.name));
  const workers = kind === 'delivery' ? [] : [workerFunctionId(/^ticket check worker/), workerFunctionId(/^ticket reconciliation/)];
  return [...new Set([...routes.map((route) => functionIdOf(route)), ...workers].map(logGroupOf))].sort();
};

const filtersOf = (kind: FailureLogKind) =>
  ofType('AWS::Logs::MetricFilter').filter(([, f]) => (f.Properties.MetricTransformations as Json[]).some((t) => t.MetricName === FAILURE_METRICS[kind].metricName));

/**
 * CloudWatch Logs' JSON filter syntax, as far as these filters use it: `{ term || term ... }`,
 * each term `($.field = "value")`. Anything else fails the test, rather than being guessed at.
 */
const matches = (pattern: string, line: string): boolean => {
  const body = /^\{\s*(.*?)\s*\}$/.exec(pattern);
  if (!body) throw new Error(`not a JSON filter pattern: ${pattern}`);
  const terms = body[1]!.split(/\s*\|\|\s*(?=\()/);
  const event = JSON.parse(line) as Json;
  return terms.some((term) => {
    const parsed = /^\(\s*\$\.([A-Za-z_][A-Za-z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*\)$/.exec(term);
    if (!parsed) throw new Error(`a term this test cannot read: ${term}`);
    return event[parsed[1]!] === JSON.parse(`"${parsed[2]}"`);
  });
};

/** The line the functions' logger writes for `message` (Powertools JSON; the Lambda JSON log format keeps it as it is). */
const loggedLine = (level: 'error' | 'warn', message: string, attributes: Record<string, unknown>) => {
  const written: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => (written.push(String(chunk)), true));
  const errors = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: unknown) => (written.push(String(chunk)), true));
  try {
    const logger = createLogger();
    logger[level](message, attributes);
  } finally {
    spy.mockRestore();
    errors.mockRestore();
  }
  const line = written.join('').trim().split('\n').find((text) => text.includes(message));
  if (!line) throw new Error(`the logger wrote no line for ${message}`);
  return line;
};

describe('logged failures', () => {
  it('each kind names the exact messages the code logs', () => {
    expect(FAILURE_LOG_MESSAGES.delivery).toEqual([LINK_DELIVERY_FAILED, SIGN_IN_EMAIL_FAILED]);
    expect(FAILURE_LOG_MESSAGES.schedule).toEqual([scheduleFailedMessage('expire'), scheduleFailedMessage('purge')]);
  });

  for (const kind of ['delivery', 'schedule'] as const) {
    it(`${kind}: a metric filter on exactly the log groups of the functions that can log it, counting 1 per line into one metric`, () => {
      const filters = filtersOf(kind);
      expect(filters.map(([, f]) => f.Properties.LogGroupName.Ref).sort()).toEqual(expectedGroups(kind));
      expect(filters.length).toBeGreaterThanOrEqual(kind === 'delivery' ? 5 : 10);
      for (const [id, filter] of filters) {
        expect(filter.Properties.MetricTransformations, id).toEqual([
          { MetricName: FAILURE_METRICS[kind].metricName, MetricNamespace: failureMetricNamespace(STACK), MetricValue: '1' },
        ]);
      }
    });

    it(`${kind}: the filter matches each message as the logger writes it, and nothing near it`, () => {
      const patterns = new Set(filtersOf(kind).map(([, f]) => f.Properties.FilterPattern as string));
      expect(patterns.size).toBe(1);
      const [pattern] = [...patterns];
      for (const message of FAILURE_LOG_MESSAGES[kind]) {
        const line = loggedLine(kind === 'delivery' ? 'error' : 'warn', message, { requestId: 'req_1', errorName: 'ThrottlingException' });
        expect(matches(pattern!, line), `${pattern} against ${line}`).toBe(true);
      }
      const others = [
        'unhandled failure',
        'link delivery',
        `${LINK_DELIVERY_FAILED}.`,
        'delivery failed to run; SQS will redeliver',
        'schedule failed; the sweep will cover it',
        'rate limiter throttled; letting the call through',
      ];
      for (const message of others) expect(matches(pattern!, loggedLine('error', message, {})), message).toBe(false);
      // The other kind's messages are the other filter's.
      for (const message of FAILURE_LOG_MESSAGES[kind === 'delivery' ? 'schedule' : 'delivery']) expect(matches(pattern!, loggedLine('warn', message, {}))).toBe(false);
    });

    it(`${kind}: one alarm on the first failure in five minutes, notifying the alarm topic (and its return to OK)`, () => {
      const [topicId] = ofType('AWS::SNS::Topic').map(([id]) => id);
      const alarms = ofType('AWS::CloudWatch::Alarm').filter(([, a]) => a.Properties.MetricName === FAILURE_METRICS[kind].metricName);
      expect(alarms).toHaveLength(1);
      expect(alarms[0]![1].Properties).toMatchObject({
        Namespace: failureMetricNamespace(STACK),
        Statistic: 'Sum',
        Period: 300,
        ...alarmNotifying(topicId),
        AlarmDescription: FAILURE_METRICS[kind].description,
      });
      expect(alarms[0]![1].Properties.Dimensions).toBeUndefined();
    });
  }
});

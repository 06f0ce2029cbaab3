import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_READ_LINE_KIND, apiReadLine } from '../../lambdas/adapters/api-read-lines.ts';
import type { ApiRead } from '../../lambdas/core/api-reads.ts';
import { newId } from '../../lambdas/core/ids.ts';
import { ROUTES, routeList, type Route } from '../../lambdas/http/routes.ts';
import { REPO_ROOT } from '../../lib/api-functions.ts';
import { API_READ_RECORDER_ENTRY, API_READ_ROUTES, ApiReadRecords } from '../../lib/api-read-records.ts';
import { HandoffStack } from '../../lib/handoff-stack.ts';
import { flatTemplateJson } from '../support/flat-template.ts';
import { dlqAlarmOn } from '../support/alarm-shape.ts';

/**
 * The read records, off the request path (lib/api-read-records.ts): the log group of every
 * function that serves a read route hands its `api_read` lines to the recorder through one
 * subscription filter, CloudWatch Logs may invoke the recorder from those log groups only, a
 * delivery that still fails after Lambda's retries lands in an alarmed DLQ, and the reading
 * functions log at a level that keeps the record lines. The recorder's table rights are in
 * table-access.test.ts. Bundling skipped: only the template matters.
 */

type Json = Record<string, any>;
const outdirs: string[] = [];
const newApp = () => {
  const outdir = mkdtempSync(path.join(tmpdir(), 'handoff-api-read-records-'));
  outdirs.push(outdir);
  return new App({ outdir, context: { 'aws:cdk:bundling-stacks': [], emailFrom: 'handoff@test.example' } });
};
let resources: Record<string, Json>;

beforeAll(() => {
  resources = flatTemplateJson(new HandoffStack(newApp(), 'ApiReadRecords')).Resources;
}, 180_000);

afterAll(() => {
  for (const outdir of outdirs) rmSync(outdir, { recursive: true, force: true });
});

// ---- the template ----------------------------------------------------------------------------------

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const arn = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });
const byJson = (a: unknown, b: unknown) => JSON.stringify(a).localeCompare(JSON.stringify(b));

const functionIdOf = (route: Pick<Route, 'method' | 'path'>): string => {
  const found = ofType('AWS::ApiGatewayV2::Route').filter(([, r]) => r.Properties.RouteKey === `${route.method} ${route.path}`);
  expect(found, route.path).toHaveLength(1);
  return resources[found[0]![1].Properties.Target['Fn::Join'][1][1].Ref]!.Properties.IntegrationUri['Fn::GetAtt'][0];
};
const logGroupOf = (functionId: string): string => resources[functionId]!.Properties.LoggingConfig.LogGroup.Ref;
const recorderId = () => {
  const found = ofType('AWS::Lambda::Function').filter(([, fn]) => /^API read recorder/.test(fn.Properties.Description));
  expect(found).toHaveLength(1);
  return found[0]![0];
};
const roleIdOf = (functionId: string): string => resources[functionId]!.Properties.Role['Fn::GetAtt'][0];
const statementsOfRole = (roleId: string): Json[] =>
  ofType('AWS::IAM::Policy')
    .filter(([, p]) => (p.Properties.Roles as Json[]).some((role) => role.Ref === roleId))
    .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Json[]);
const actionsOf = (statement: Json): string[] => [statement.Action].flat();

/** The functions serving the read routes, one each (the certificate function serves two of them), and their log groups. */
const readFunctionIds = () => [...new Set(API_READ_ROUTES.map((name) => functionIdOf(ROUTES[name as keyof typeof ROUTES])))];
const readLogGroupIds = () => readFunctionIds().map(logGroupOf).sort();
/** The recorder's DLQ: its on-failure destination. */
const dlqId = (): string => {
  const [config] = ofType('AWS::Lambda::EventInvokeConfig').filter(([, c]) => c.Properties.FunctionName.Ref === recorderId());
  return config![1].Properties.DestinationConfig.OnFailure.Destination['Fn::GetAtt'][0];
};

// ---- which routes -----------------------------------------------------------------------------------

describe('the read routes', () => {
  it('are the six /v1 reads: the request lists and a request, the events, the webhooks, both certificates', () => {
    expect([...API_READ_ROUTES].sort()).toEqual(['getRequest', 'listEvents', 'listRequests', 'listWebhooks', 'requestCertificate', 'shareCertificate']);
    for (const name of API_READ_ROUTES) expect(ROUTES[name as keyof typeof ROUTES]?.path, name).toMatch(/^\/v1\//);
  });

  it('cover every handler that declares a read trace (`reads:`), and no other', () => {
    const entries = [...new Set(routeList().map((route) => route.entry))];
    const tracing = entries.filter((entry) => /\breads:\s*\{/.test(readFileSync(path.join(REPO_ROOT, entry), 'utf8'))).sort();
    expect(tracing.length).toBeGreaterThan(0);
    expect([...new Set(API_READ_ROUTES.map((name) => ROUTES[name as keyof typeof ROUTES].entry))].sort()).toEqual(tracing);
  });
});

// ---- the subscriptions ------------------------------------------------------------------------------

describe('subscription filters', () => {
  it('one on the log group of each reading function, passing its api_read lines to the recorder; none on any other log group', () => {
    const groups = readLogGroupIds();
    expect(groups).toHaveLength(5);
    const filters = ofType('AWS::Logs::SubscriptionFilter');
    expect(filters.map(([, f]) => f.Properties.LogGroupName.Ref).sort()).toEqual(groups);
    for (const [id, filter] of filters) {
      expect(filter.Properties, id).toEqual({
        LogGroupName: filter.Properties.LogGroupName,
        FilterPattern: `{ $.kind = "${API_READ_LINE_KIND}" }`,
        DestinationArn: arn(recorderId()),
      });
    }
  });

  it('pass a record line as the reading functions write it, and no line of another kind', () => {
    const pattern = ofType('AWS::Logs::SubscriptionFilter')[0]![1].Properties.FilterPattern as string;
    // One term, `{ $.field = "value" }`: anything else fails here rather than being guessed at.
    const [, field, value] = /^\{ \$\.(\w+) = "([^"\\]*)" \}$/.exec(pattern) ?? [];
    expect(field, pattern).toBeDefined();
    const passes = (line: string) => (JSON.parse(line) as Json)[field!] === value;
    const read: ApiRead = {
      id: newId(),
      orgId: newId(),
      occurredAt: '2025-01-02T03:04:05.000Z',
      key: { id: newId(), name: 'ticketing' },
      clientId: null,
      route: 'GET /v1/requests/{id}',
      status: 200,
      sourceIp: '203.0.113.7',
      records: { requests: [newId()] },
      expiresAtEpoch: 1_800_000_000,
    };
    const line = apiReadLine(read);
    expect(passes(line)).toBe(true);
    // INFO: Lambda keeps it at the reading functions' level (below).
    expect(JSON.parse(line).level).toBe('INFO');
    for (const other of [{ level: 'INFO', message: 'read records stored' }, { level: 'INFO', kind: 'audit' }, { level: 'WARN', apiRead: read }]) {
      expect(passes(JSON.stringify(other)), JSON.stringify(other)).toBe(false);
    }
  });

  it('let CloudWatch Logs invoke the recorder from those log groups only, each permission made before its filter; nothing else may invoke it', () => {
    const permissions = ofType('AWS::Lambda::Permission').filter(([, p]) => JSON.stringify(p.Properties.FunctionName) === JSON.stringify(arn(recorderId())));
    expect(permissions.map(([, p]) => p.Properties.SourceArn).sort(byJson)).toEqual(readLogGroupIds().map(arn).sort(byJson));
    for (const [id, permission] of permissions) {
      expect(permission.Properties, id).toMatchObject({ Action: 'lambda:InvokeFunction', Principal: 'logs.amazonaws.com' });
    }
    const permissionIds = new Set(permissions.map(([id]) => id));
    for (const [id, filter] of ofType('AWS::Logs::SubscriptionFilter')) {
      expect([filter.DependsOn ?? []].flat().some((dependency: string) => permissionIds.has(dependency)), id).toBe(true);
    }
    // No role may invoke it either.
    const invokers = ofType('AWS::IAM::Policy')
      .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Json[])
      .filter((s) => actionsOf(s).includes('lambda:InvokeFunction') && JSON.stringify(s.Resource).includes(`"${recorderId()}"`));
    expect(invokers).toEqual([]);
  });
});

// ---- the recorder -----------------------------------------------------------------------------------

describe('the recorder', () => {
  it('is built from its handler file, with the table name and logging settings alone, and a minute for a delivery', () => {
    expect(existsSync(path.join(REPO_ROOT, API_READ_RECORDER_ENTRY))).toBe(true);
    const [tableId] = ofType('AWS::DynamoDB::Table').find(([, t]) => t.Properties.StreamSpecification)!;
    const recorder = resources[recorderId()]!.Properties;
    expect(recorder.Environment.Variables).toEqual({ TABLE_NAME: { Ref: tableId }, LOG_LEVEL: 'INFO', POWERTOOLS_SERVICE_NAME: 'credential-handoff' });
    expect(recorder.Timeout).toBe(60);
    expect(recorder).toMatchObject({ Runtime: 'nodejs22.x', Handler: 'index.handler', LoggingConfig: { LogFormat: 'JSON' } });
  });

  it('retries a failed delivery twice, then sends it to its own DLQ: encrypted, TLS only, kept 14 days', () => {
    const configs = ofType('AWS::Lambda::EventInvokeConfig');
    expect(configs).toHaveLength(1);
    expect(configs[0]![1].Properties).toEqual({
      FunctionName: { Ref: recorderId() },
      Qualifier: '$LATEST',
      MaximumRetryAttempts: 2,
      DestinationConfig: { OnFailure: { Destination: arn(dlqId()) } },
    });
    const dlq = resources[dlqId()]!;
    expect(dlq.Type).toBe('AWS::SQS::Queue');
    expect(dlq.Properties).toEqual({ MessageRetentionPeriod: 14 * 24 * 3600, SqsManagedSseEnabled: true });
    const policies = ofType('AWS::SQS::QueuePolicy').filter(([, p]) => (p.Properties.Queues as Json[]).some((q) => q.Ref === dlqId()));
    expect(policies).toHaveLength(1);
    const statements = policies[0]![1].Properties.PolicyDocument.Statement as Json[];
    expect(statements.some((s) => s.Effect === 'Deny' && s.Condition?.Bool?.['aws:SecureTransport'] === 'false')).toBe(true);
  });

  it('has its logs, its table rights, sending to its DLQ and nothing else; no other role touches the DLQ', () => {
    const recorderRole = roleIdOf(recorderId());
    const statements = statementsOfRole(recorderRole);
    expect([...new Set(statements.flatMap(actionsOf).map((action) => action.split(':')[0]))].sort()).toEqual(['dynamodb', 'kms', 'logs', 'sqs']);
    const sqsStatements = statements.filter((s) => actionsOf(s).some((action) => action.startsWith('sqs:')));
    expect(sqsStatements.flatMap((s) => [s.Resource].flat())).toEqual([arn(dlqId())]);
    expect(sqsStatements.flatMap(actionsOf)).toContain('sqs:SendMessage');
    expect(sqsStatements.flatMap(actionsOf).filter((action) => /^sqs:(Receive|Delete|Purge)/.test(action))).toEqual([]);
    for (const [roleId] of ofType('AWS::IAM::Role').filter(([id]) => id !== recorderRole)) {
      expect(statementsOfRole(roleId).filter((s) => JSON.stringify(s.Resource).includes(`"${dlqId()}"`)), roleId).toEqual([]);
    }
  });

  it('alarms on the first message in its DLQ, notifying the alarm topic (and its return to OK)', () => {
    const [topicId] = ofType('AWS::SNS::Topic').map(([id]) => id);
    const alarms = ofType('AWS::CloudWatch::Alarm').filter(([, a]) =>
      ((a.Properties.Dimensions ?? []) as Json[]).some((d) => d.Name === 'QueueName' && d.Value['Fn::GetAtt']?.[0] === dlqId()),
    );
    expect(alarms).toHaveLength(1);
    expect(alarms[0]![1].Properties).toMatchObject(dlqAlarmOn(topicId));
    expect(alarms[0]![1].Properties.AlarmDescription).toMatch(/API read recorder DLQ/);
  });
});

// ---- the reading functions' log level ---------------------------------------------------------------

describe('the reading functions', () => {
  it('log JSON at INFO, so that Lambda keeps their INFO record lines', () => {
    const ids = readFunctionIds();
    expect(ids).toHaveLength(5);
    for (const id of ids) expect(resources[id]!.Properties.LoggingConfig, id).toMatchObject({ LogFormat: 'JSON', ApplicationLogLevel: 'INFO' });
  });

  /** ApiReadRecords alone, in a stack of its own, with every read route served by `reader`. */
  const recordsFor = (level: lambda.ApplicationLogLevel, names: readonly string[] = API_READ_ROUTES) => {
    const stack = new Stack(newApp(), 'Probe');
    const reader = new lambda.Function(stack, 'Reader', {
      runtime: lambda.Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline('export const handler = async () => ({})'),
      loggingFormat: lambda.LoggingFormat.JSON,
      applicationLogLevelV2: level,
    });
    const table = new dynamodb.Table(stack, 'Table', { partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING } });
    return () => new ApiReadRecords(stack, 'ApiReadRecords', { table, tableAccess: { grantAccess: () => undefined }, functions: { byRoute: new Map(names.map((name) => [name, reader])) } });
  };

  it('fail the synth when one logs above INFO (Lambda would drop its records), or when a read route has no function', () => {
    expect(recordsFor(lambda.ApplicationLogLevel.INFO)).not.toThrow();
    expect(recordsFor(lambda.ApplicationLogLevel.DEBUG)).not.toThrow();
    expect(recordsFor(lambda.ApplicationLogLevel.WARN)).toThrow(/Probe\/Reader logs above INFO: Lambda would drop its read records/);
    expect(recordsFor(lambda.ApplicationLogLevel.INFO, API_READ_ROUTES.slice(1))).toThrow(`API_READ_ROUTES names ${API_READ_ROUTES[0]}, which is not in the route table`);
  });
});

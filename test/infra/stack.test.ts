import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App, NestedStack, type Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { flatTemplate } from '../support/flat-template.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FALLBACK_ENTRY, ROUTES, routeList, type Route } from '../../lambdas/http/routes.ts';
import { INDEXES, indexList, TABLE_KEYS, TTL_ATTRIBUTE } from '../../lambdas/store/table.ts';
import { WEB_ASSET_NAMES } from '../../web/build.ts';
import { dlqAlarmOn } from '../support/alarm-shape.ts';
import {
  ADMIN_API_STACK,
  isStaticEntry,
  MEMBER_API_STACK,
  nestedStackOfRoute,
  KEY_PUBLISHING_ROUTES,
  PURGE_SCHEDULING_ROUTES,
  REPO_ROOT,
  SCHEDULING_ROUTES,
  SEALED_SECRET_ROUTES,
  SIGNING_ROUTES,
  WEB_ASSETS_DIR,
  WEBHOOK_SEALING_ROUTES,
  INTEGRATION_SEALING_ROUTES,
  CODE_HASH_ROUTES,
  TICKET_CHECK_ROUTES,
  TICKET_REPLY_ROUTES,
  HELPDESK_SEALING_ROUTES,
  HELPDESK_OPENING_ROUTES,
} from '../../lib/api-functions.ts';
import { EXPIRE_ENTRY, PURGE_ENTRY, SWEEP_ENTRY } from '../../lib/expiry.ts';
import { RECONCILE_ENTRY, TICKET_CHECK_ENTRY } from '../../lib/helpdesk-checks.ts';
import { API_READ_RECORDER_ENTRY } from '../../lib/api-read-records.ts';
import { HandoffStack } from '../../lib/handoff-stack.ts';
import { sdkClientsOfEntry } from '../../lib/function-clients.ts';
import { CERTIFICATE_BUNDLE_BUDGET_BYTES } from '../../bench/bundle-budget.ts';

/** The sender the main test stack is deployed with. */
const EMAIL_FROM = 'handoff@test.example';
import { DELIVER_ENTRY, DELIVERY_SWEEP_ENTRY, FAN_OUT_ENTRY } from '../../lib/webhooks.ts';

/**
 * CDK assertions on the synthesised template: named properties, not resource counts. The stack is
 * synthesised once per file (esbuild bundles every function, which takes a few seconds); a second,
 * unbundled stack checks the context settings.
 */

const SYNTH_TIMEOUT = 180_000;
/** Lambda has no hard limit this low; ours is a cold-start budget (see lib/api-functions.ts). */
const BUNDLE_LIMIT_BYTES = 1_000_000;

type Json = Record<string, any>;

let outdir: string;
let template: Template;
let resources: Record<string, Json>;
/** Resources in the main stack and in each nested stack, by the stack's path. */
let resourceCounts: Record<string, number>;

beforeAll(() => {
  outdir = mkdtempSync(path.join(tmpdir(), 'handoff-infra-'));
  const app = new App({ outdir });
  const stack = new HandoffStack(app, 'HandoffTest', { emailFrom: EMAIL_FROM });
  template = flatTemplate(stack);
  resources = template.toJSON().Resources;
  const stacks: Stack[] = [stack, ...stack.node.findAll().filter(NestedStack.isNestedStack)];
  resourceCounts = Object.fromEntries(stacks.map((s) => [s.node.path, Object.keys(Template.fromStack(s).toJSON().Resources).length]));
}, SYNTH_TIMEOUT);

afterAll(() => {
  if (outdir) rmSync(outdir, { recursive: true, force: true });
});

// ---- helpers over the template ------------------------------------------------------------------

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const onlyId = (type: string) => {
  const found = ofType(type);
  expect(found, type).toHaveLength(1);
  return found[0]![0];
};
/** The main table: the one with a stream (the other counts rate windows, lambdas/store/table.ts). */
const tableId = () => {
  const found = ofType('AWS::DynamoDB::Table').filter(([, t]) => t.Properties.StreamSpecification);
  expect(found).toHaveLength(1);
  return found[0]![0];
};
const apiId = () => onlyId('AWS::ApiGatewayV2::Api');

const routeByKey = (routeKey: string) => {
  const found = ofType('AWS::ApiGatewayV2::Route').filter(([, r]) => r.Properties.RouteKey === routeKey);
  expect(found, routeKey).toHaveLength(1);
  return found[0]![1];
};

/** Route key → integration → the function it invokes (logical id). */
const functionIdOfRoute = (routeKey: string): string => {
  const target = routeByKey(routeKey).Properties.Target;
  const integrationId: string = target['Fn::Join'][1][1].Ref;
  const integration = resources[integrationId]!;
  expect(integration.Type).toBe('AWS::ApiGatewayV2::Integration');
  const uri = integration.Properties.IntegrationUri;
  expect(uri['Fn::GetAtt'][1]).toBe('Arn');
  return uri['Fn::GetAtt'][0];
};

const routeKeyOf = (route: { method: string; path: string }) => `${route.method} ${route.path}`;

const roleIdOfFunction = (functionId: string): string => resources[functionId]!.Properties.Role['Fn::GetAtt'][0];

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: Json;
}

const statementsOfRole = (roleId: string): Statement[] =>
  ofType('AWS::IAM::Policy')
    .filter(([, p]) => (p.Properties.Roles as Json[]).some((role) => role.Ref === roleId))
    .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Statement[]);

const actionsOf = (statement: Statement) => [statement.Action].flat();
const resourcesOf = (statement: Statement) => [statement.Resource].flat();
const allStatements = () => ofType('AWS::IAM::Policy').flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Statement[]);

const fallbackFunctionId = () => functionIdOfRoute('$default');
const functionIdOf = (route: Route) => functionIdOfRoute(routeKeyOf(route));

/** The rows grouped by handler entry: one function each. */
const entries = () => [...new Set(routeList().map((route) => route.entry))];
const rowsOf = (entry: string) => routeList().filter((route) => route.entry === entry);
const functionIdOfEntry = (entry: string) => functionIdOf(rowsOf(entry)[0]!);
const staticEntries = () => entries().filter(isStaticEntry);
const dataEntries = () => entries().filter((entry) => !isStaticEntry(entry));
const schedulingRoutes = () => routeList().filter((route) => SCHEDULING_ROUTES.includes(route.name));
const purgeSchedulingRoutes = () => routeList().filter((route) => PURGE_SCHEDULING_ROUTES.includes(route.name));
const sealedSecretRoutes = () => routeList().filter((route) => SEALED_SECRET_ROUTES.includes(route.name));
/** The two KMS keys: the symmetric one sealing integration secrets, the Ed25519 one signing certificates. */
/** The table's own key (SSE), which table-access.test.ts covers. */
const tableKeyId = (): string => resources[tableId()]!.Properties.SSESpecification.KMSMasterKeyId['Fn::GetAtt'][0];
const kmsKeyIdBySpec = (spec: string | undefined) => {
  const found = ofType('AWS::KMS::Key').filter(([id, key]) => key.Properties.KeySpec === spec && id !== tableKeyId());
  expect(found, `KMS key of spec ${spec}`).toHaveLength(1);
  return found[0]![0];
};
const sealingKeyId = () => kmsKeyIdBySpec(undefined);
const signingKeyId = () => kmsKeyIdBySpec('ECC_NIST_EDWARDS25519');
/** The HMAC key the six-digit codes are hashed with. */
const codeHashKeyId = () => kmsKeyIdBySpec('HMAC_256');
/** The roles of the API functions serving any of `names`. */
const rolesOfRoutes = (names: readonly string[]) => new Set(routeList().filter((route) => names.includes(route.name)).map((route) => roleIdOfFunction(functionIdOf(route))));
/** A role's statements that name `keyId` as a resource. */
const statementsOnKey = (roleId: string, keyId: string) =>
  statementsOfRole(roleId).filter((s) => resourcesOf(s).some((r) => JSON.stringify(r) === JSON.stringify(arn(keyId))));
const signingRoutes = () => routeList().filter((route) => SIGNING_ROUTES.includes(route.name));
const sendersOf = (channel: 'email' | 'sms') => new Set(routeList().filter((route) => route.sends?.includes(channel)).map(functionIdOf));

/** The worker functions, by their (unique) handler description. */
const workerFunctionId = (description: RegExp) => {
  const found = ofType('AWS::Lambda::Function').filter(([, fn]) => description.test(fn.Properties.Description));
  expect(found, String(description)).toHaveLength(1);
  return found[0]![0];
};
const expiryFunctionId = () => workerFunctionId(/^expiry worker/);
const purgeFunctionId = () => workerFunctionId(/^purge worker/);
const sweepFunctionId = () => workerFunctionId(/^expiry sweep/);
const fanOutFunctionId = () => workerFunctionId(/^webhook fan-out/);
const deliverFunctionId = () => workerFunctionId(/^webhook delivery: /);
const deliverySweepFunctionId = () => workerFunctionId(/^webhook delivery sweep/);
const webhookFunctionIds = () => [fanOutFunctionId(), deliverFunctionId(), deliverySweepFunctionId()];
const ticketCheckFunctionId = () => workerFunctionId(/^ticket check worker/);
const reconcileFunctionId = () => workerFunctionId(/^ticket reconciliation/);
const helpdeskFunctionIds = () => [ticketCheckFunctionId(), reconcileFunctionId()];
/** Stores the read records the reading functions log (lib/api-read-records.ts, api-read-records.test.ts). */
const recorderFunctionId = () => workerFunctionId(/^API read recorder/);
/** The functions that post links in tickets by invoking the ticket check worker (TICKET_REPLY_FUNCTION): those that create requests. */
const ticketReplyRoutes = () => [ROUTES.createRequest, ROUTES.appCreateRequest, ROUTES.inboundTicketTrigger];
/** The member app's helpdesk connection: one route seals the credentials, the other opens them to read a ticket. */
const connectHelpdeskRoute = () => ROUTES.appConnectHelpdesk;
const checkHelpdeskRoute = () => ROUTES.appCheckHelpdesk;
/** The statement grantInvoke gives each of them: the worker, and its qualified ARNs (it publishes no version or alias). */
const invokesTicketCheck = () => ({
  Effect: 'Allow',
  Action: 'lambda:InvokeFunction',
  Resource: [arn(ticketCheckFunctionId()), { 'Fn::Join': ['', [arn(ticketCheckFunctionId()), ':*']] }],
});
const scheduleGroupId = () => onlyId('AWS::Scheduler::ScheduleGroup');
const scheduleGroupName = () => resources[scheduleGroupId()]!.Properties.Name as string;
/** The roles EventBridge Scheduler assumes (trusted by scheduler.amazonaws.com). */
const schedulerRoles = () =>
  ofType('AWS::IAM::Role').filter(([, role]) => JSON.stringify(role.Properties.AssumeRolePolicyDocument).includes('scheduler.amazonaws.com'));
/** The role the per-request schedules run as: the one SCHEDULER_ROLE_ARN names. */
const expirySchedulerRoleId = (): string =>
  resources[functionIdOf(schedulingRoutes()[0]!)]!.Properties.Environment.Variables.SCHEDULER_ROLE_ARN['Fn::GetAtt'][0];
const arn = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });

// ---- the table ------------------------------------------------------------------------------------

describe('table', () => {
  it('is retained on stack deletion and replacement, and protected against deletion', () => {
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({ DeletionProtectionEnabled: true }),
    });
  });

  it('uses the shared key schema, on demand', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' },
      ],
    });
  });

  it('streams new images', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      StreamSpecification: { StreamViewType: 'NEW_IMAGE' },
    });
  });

  it('expires items on the shared TTL attribute', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
    });
  });

  it("counts rate windows in a table of their own: the shared key schema and TTL, no stream or index, under the table's key", () => {
    const rate = ofType('AWS::DynamoDB::Table').filter(([id]) => id !== tableId());
    expect(rate).toHaveLength(1);
    const properties = rate[0]![1].Properties;
    expect(properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' },
      ],
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
    });
    expect(properties.StreamSpecification).toBeUndefined();
    expect(properties.GlobalSecondaryIndexes).toBeUndefined();
    expect(properties.SSESpecification.KMSMasterKeyId).toEqual(resources[tableId()]!.Properties.SSESpecification.KMSMasterKeyId);
  });

  it('has point-in-time recovery enabled for 7 days, the default period', () => {
    expect(resources[tableId()]!.Properties.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true, RecoveryPeriodInDays: 7 });
  });

  it.each(indexList().map((index) => [index.indexName, index] as const))('has the GSI %s with string keys, projecting all', (_name, index) => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      GlobalSecondaryIndexes: Match.arrayWith([
        {
          IndexName: index.indexName,
          KeySchema: [
            { AttributeName: index.partitionKey, KeyType: 'HASH' },
            { AttributeName: index.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ]),
      AttributeDefinitions: Match.arrayWith([
        { AttributeName: index.partitionKey, AttributeType: 'S' },
        { AttributeName: index.sortKey, AttributeType: 'S' },
      ]),
    });
  });

  it('has exactly the GSIs of the shared index list', () => {
    const names = resources[tableId()]!.Properties.GlobalSecondaryIndexes.map((gsi: Json) => gsi.IndexName);
    expect(names.sort()).toEqual(indexList().map((index) => index.indexName).sort());
  });
});

// ---- the API --------------------------------------------------------------------------------------

describe('HTTP API', () => {
  it('is an HTTP API with an auto-deployed $default stage writing JSON access logs', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', { ProtocolType: 'HTTP' });
    const stage = ofType('AWS::ApiGatewayV2::Stage');
    expect(stage).toHaveLength(1);
    const props = stage[0]![1].Properties;
    expect(props.StageName).toBe('$default');
    expect(props.AutoDeploy).toBe(true);
    const format = JSON.parse(props.AccessLogSettings.Format);
    expect(format).toMatchObject({ requestId: '$context.requestId', routeKey: '$context.routeKey', status: '$context.status' });
    const destination = props.AccessLogSettings.DestinationArn['Fn::GetAtt'];
    expect(resources[destination[0]]!.Type).toBe('AWS::Logs::LogGroup');
    expect(resources[destination[0]]!.Properties.RetentionInDays).toBeGreaterThan(0);
  });

  it('keeps every stack well under CloudFormation\'s 500 resources: the member app\'s endpoints in two nested stacks', () => {
    expect(Object.keys(resourceCounts)).toEqual(['HandoffTest', `HandoffTest/Routes/${MEMBER_API_STACK}`, `HandoffTest/Routes/${ADMIN_API_STACK}`]);
    for (const [path, count] of Object.entries(resourceCounts)) expect(count, path).toBeLessThanOrEqual(400);
    // Each route's function is where nestedStackOfRoute puts it.
    expect(nestedStackOfRoute(ROUTES.createRequest)).toBeNull();
    expect(nestedStackOfRoute(ROUTES.appCreateRequest)).toBe(MEMBER_API_STACK);
    expect(nestedStackOfRoute(ROUTES.appIntegrations)).toBe(ADMIN_API_STACK);
  });

  it('has one route per route-table row, with the exact route key, plus $default', () => {
    const keys = ofType('AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties.RouteKey);
    expect(keys.sort()).toEqual([...routeList().map(routeKeyOf), '$default'].sort());
    expect(keys).toContain('GET /v1/requests/{id}');
    expect(keys).toContain('POST /v1/requests/{id}/revoke');
  });

  it('integrates the rows of one handler entry with one function, and each entry with its own, Lambda proxy, payload 2.0', () => {
    for (const entry of entries()) {
      const ids = new Set(rowsOf(entry).map(functionIdOf));
      expect(ids.size, entry).toBe(1);
    }
    const perEntry = entries().map(functionIdOfEntry);
    expect(new Set([...perEntry, fallbackFunctionId()]).size).toBe(entries().length + 1);
    for (const id of perEntry) expect(resources[id]!.Type).toBe('AWS::Lambda::Function');
    for (const [, integration] of ofType('AWS::ApiGatewayV2::Integration')) {
      expect(integration.Properties).toMatchObject({ IntegrationType: 'AWS_PROXY', PayloadFormatVersion: '2.0' });
    }
  });

  it('serves the five page routes from one static function', () => {
    const pages = routeList().filter((route) => isStaticEntry(route.entry));
    expect(pages.map(routeKeyOf).sort()).toEqual(['GET /app', 'GET /app/{path+}', 'GET /assets/{file}', 'GET /r/{token}', 'GET /s/{token}']);
    expect(new Set(pages.map(functionIdOf)).size).toBe(1);
  });

  it('describes each function by the rows it serves', () => {
    for (const entry of entries()) {
      const description = resources[functionIdOfEntry(entry)]!.Properties.Description;
      expect(description).toBe(rowsOf(entry).map(routeKeyOf).join(', '));
    }
  });

  it('lets API Gateway invoke each function, from this API only', () => {
    const api = apiId();
    for (const id of [...routeList().map(routeKeyOf), '$default'].map(functionIdOfRoute)) {
      const permissions = ofType('AWS::Lambda::Permission').filter(([, p]) => p.Properties.FunctionName['Fn::GetAtt']?.[0] === id);
      expect(permissions.length, id).toBeGreaterThan(0);
      for (const [, permission] of permissions) {
        expect(permission.Properties.Principal).toBe('apigateway.amazonaws.com');
        expect(JSON.stringify(permission.Properties.SourceArn)).toContain(`"Ref":"${api}"`);
      }
    }
  });

  it('outputs the API root (…/v1) and the table name', () => {
    template.hasOutput('ApiUrl', {
      Value: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [apiId(), 'ApiEndpoint'] }, '/v1']] },
    });
    template.hasOutput('TableName', { Value: { Ref: tableId() } });
  });
});

// ---- the functions --------------------------------------------------------------------------------

describe('functions', () => {
  const allFunctionIds = () => ofType('AWS::Lambda::Function').map(([id]) => id);

  it('are exactly one per handler entry, the fallback, the expiry and purge workers and the sweep, the three webhook workers, the ticket check worker and reconciliation, and the API read recorder', () => {
    const expected = [
      ...entries().map(functionIdOfEntry),
      fallbackFunctionId(),
      expiryFunctionId(),
      purgeFunctionId(),
      sweepFunctionId(),
      ...webhookFunctionIds(),
      ...helpdeskFunctionIds(),
      recorderFunctionId(),
    ];
    expect(new Set(expected).size).toBe(expected.length);
    expect(allFunctionIds().sort()).toEqual(expected.sort());
  });

  it('run nodejs22.x, exporting handler from an ES module bundle', () => {
    for (const id of allFunctionIds()) {
      expect(resources[id]!.Properties).toMatchObject({ Runtime: 'nodejs22.x', Handler: 'index.handler' });
    }
  });

  it('log JSON into their own log group with a retention', () => {
    const groups = new Set<string>();
    for (const id of allFunctionIds()) {
      const logging = resources[id]!.Properties.LoggingConfig;
      expect(logging.LogFormat).toBe('JSON');
      const groupId: string = logging.LogGroup.Ref;
      expect(resources[groupId]!.Type).toBe('AWS::Logs::LogGroup');
      expect(resources[groupId]!.Properties.RetentionInDays).toBe(30);
      groups.add(groupId);
    }
    expect(groups.size).toBe(allFunctionIds().length);
  });

  const baseEnvironment = () => ({
    TABLE_NAME: { Ref: tableId() },
    RATE_TABLE_NAME: { Ref: ofType('AWS::DynamoDB::Table').find(([id]) => id !== tableId())![0] },
    BASE_URL: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [apiId(), 'ApiEndpoint'] }, '/v1']] },
    APP_URL: { 'Fn::GetAtt': [apiId(), 'ApiEndpoint'] },
    EMAIL_FROM_ADDRESS: EMAIL_FROM,
    LOG_LEVEL: 'INFO',
    POWERTOOLS_SERVICE_NAME: 'credential-handoff',
  });
  const schedulingEnvironment = () => ({
    SCHEDULE_GROUP: scheduleGroupName(),
    SCHEDULER_ROLE_ARN: arn(expirySchedulerRoleId()),
    EXPIRY_FUNCTION_ARN: arn(expiryFunctionId()),
  });

  it('give every API function the table, the URLs, the sender and logging settings, the scheduling ones the schedule settings, the inbound and helpdesk connection ones the sealing key, the ticket status ones the ticket-check queue, the request creating ones the ticket check worker', () => {
    // The lists the environment follows, pinned: what each names is the design, not whatever lib/ says.
    expect([...TICKET_REPLY_ROUTES].sort()).toEqual(ticketReplyRoutes().map((route) => route.name).sort());
    expect(HELPDESK_SEALING_ROUTES).toEqual([connectHelpdeskRoute().name]);
    expect(HELPDESK_OPENING_ROUTES).toEqual([checkHelpdeskRoute().name]);
    expect(routeKeyOf(connectHelpdeskRoute())).toBe('POST /app/api/integrations/{id}/helpdesk');
    expect(routeKeyOf(checkHelpdeskRoute())).toBe('POST /app/api/integrations/{id}/helpdesk/check');
    for (const entry of dataEntries()) {
      const variables = resources[functionIdOfEntry(entry)]!.Properties.Environment.Variables;
      const has = (names: readonly string[]) => rowsOf(entry).some((route) => names.includes(route.name));
      expect(variables, entry).toEqual({
        ...baseEnvironment(),
        ...(has(SCHEDULING_ROUTES) ? schedulingEnvironment() : {}),
        ...(has(PURGE_SCHEDULING_ROUTES) ? { PURGE_FUNCTION_ARN: arn(purgeFunctionId()) } : {}),
        ...(has(TICKET_CHECK_ROUTES) ? ticketCheckQueueUrl() : {}),
        // They post links in tickets by invoking the worker, which alone handles helpdesk replies.
        ...(has(TICKET_REPLY_ROUTES) ? { TICKET_REPLY_FUNCTION: arn(ticketCheckFunctionId()) } : {}),
        ...(has(SEALED_SECRET_ROUTES) || has(WEBHOOK_SEALING_ROUTES) || has(INTEGRATION_SEALING_ROUTES) || has(HELPDESK_SEALING_ROUTES) || has(HELPDESK_OPENING_ROUTES)
          ? { SEALING_KEY_ID: arn(sealingKeyId()) }
          : {}),
        ...(has(CODE_HASH_ROUTES) ? { CODE_HASH_KEY_ID: arn(codeHashKeyId()) } : {}),
        ...(has(SIGNING_ROUTES) || has(KEY_PUBLISHING_ROUTES) ? { SIGNING_KEY_ARN: arn(signingKeyId()), SIGNING_KEY_TAG: 'handoff-custody-signing=HandoffTest' } : {}),
        // The certificates state the table's point-in-time recovery period.
        ...(has(SIGNING_ROUTES) ? { POINT_IN_TIME_RECOVERY_DAYS: '7' } : {}),
      });
    }
  });

  it('give the expiry and purge workers and the sweep the table, the URLs and logging settings, and no schedule settings; the purge worker and the sweep the ticket-check queue', () => {
    expect(resources[expiryFunctionId()]!.Properties.Environment.Variables).toEqual(baseEnvironment());
    // The end of a grace period asks the helpdesk before destroying (lambdas/core/use-cases/tickets/purge-request.ts).
    for (const id of [purgeFunctionId(), sweepFunctionId()]) {
      expect(resources[id]!.Properties.Environment.Variables, id).toEqual({ ...baseEnvironment(), ...ticketCheckQueueUrl() });
    }
  });

  it('give the ticket check worker and the reconciliation the table, the URLs, logging settings, the sealing key and the expiry and purge schedule settings; the ticket check worker alone the ticket-check queue', () => {
    // A verified status completes a request (cancelling its expiry schedule) and arms or cancels a grace-period purge.
    const helpdeskWorker = { ...baseEnvironment(), SEALING_KEY_ID: arn(sealingKeyId()), ...schedulingEnvironment(), PURGE_FUNCTION_ARN: arn(purgeFunctionId()) };
    // The worker queues its own retries; the reconciliation queues nothing.
    expect(resources[ticketCheckFunctionId()]!.Properties.Environment.Variables).toEqual({ ...helpdeskWorker, ...ticketCheckQueueUrl() });
    expect(resources[reconcileFunctionId()]!.Properties.Environment.Variables).toEqual(helpdeskWorker);
  });

  it('give the webhook workers the table, the URLs, logging settings and the delivery queue, and no schedule settings', () => {
    const queues = { DELIVERY_QUEUE_URL: { Ref: onlyQueue('DeliveryQueue') }, SLOW_DELIVERY_QUEUE_URL: { Ref: onlyQueue('SlowDeliveryQueue') } };
    for (const id of webhookFunctionIds()) {
      // The delivery worker alone signs, so it alone knows the sealing key.
      const sealing = id === deliverFunctionId() ? { SEALING_KEY_ID: arn(sealingKeyId()) } : {};
      expect(resources[id]!.Properties.Environment.Variables, id).toEqual({ ...baseEnvironment(), ...queues, ...sealing });
    }
  });

  it('give the static function where its built files are, and nothing else', () => {
    for (const entry of staticEntries()) {
      expect(resources[functionIdOfEntry(entry)]!.Properties.Environment.Variables).toEqual({
        WEB_ASSETS_DIR,
        LOG_LEVEL: 'INFO',
        POWERTOOLS_SERVICE_NAME: 'credential-handoff',
      });
    }
  });

  it('give the worker functions time for their work', () => {
    expect(resources[expiryFunctionId()]!.Properties.Timeout).toBe(30);
    expect(resources[sweepFunctionId()]!.Properties.Timeout).toBe(120);
    expect(resources[deliverFunctionId()]!.Properties.Timeout).toBeGreaterThan(10); // a 10 s POST and its bookkeeping
    expect(resources[ticketCheckFunctionId()]!.Properties.Timeout).toBe(60);
    // Shorter than the reconciliation's two-minute period, so one run ends before the next starts.
    expect(resources[reconcileFunctionId()]!.Properties.Timeout).toBe(110);
    expect(resources[reconcileFunctionId()]!.Properties.Timeout).toBeLessThan(120);
  });

  it('give the fallback function no table name', () => {
    const variables = resources[fallbackFunctionId()]!.Properties.Environment.Variables;
    expect(variables).not.toHaveProperty('TABLE_NAME');
    expect(variables).toMatchObject({ LOG_LEVEL: 'INFO' });
  });

  it('each have a role of their own', () => {
    const roles = allFunctionIds().map(roleIdOfFunction);
    expect(new Set(roles).size).toBe(roles.length);
  });
});

// ---- least privilege ------------------------------------------------------------------------------

describe('IAM', () => {
  it('has no wildcard action and no service-wide DynamoDB grant', () => {
    for (const statement of allStatements()) {
      for (const action of actionsOf(statement)) {
        expect(action).not.toBe('*');
        expect(action).not.toMatch(/^dynamodb:\*$/);
        expect(action).not.toMatch(/\*/);
      }
    }
  });

  it('scopes every DynamoDB action to the table and its indexes (or the rate table, for UpdateItem on rate windows only), and the stream actions to its stream', () => {
    const tableArn = { 'Fn::GetAtt': [tableId(), 'Arn'] };
    const rateTableArn = { 'Fn::GetAtt': [ofType('AWS::DynamoDB::Table').find(([id]) => id !== tableId())![0], 'Arn'] };
    const indexArns = indexList().map((index) => ({ 'Fn::Join': ['', [tableArn, `/index/${index.indexName}`]] }));
    const streamArn = { 'Fn::GetAtt': [tableId(), 'StreamArn'] };
    // (CDK's table read grant names GetRecords and GetShardIterator too, on the table: harmless.)
    const streamActions = ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'];
    for (const statement of allStatements().filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')))) {
      const onStream = resourcesOf(statement).some((r) => JSON.stringify(r) === JSON.stringify(streamArn));
      if (onStream) expect(actionsOf(statement).every((a) => streamActions.includes(a))).toBe(true);
      for (const resource of resourcesOf(statement)) {
        expect(resource).not.toBe('*');
        if (JSON.stringify(resource) === JSON.stringify(rateTableArn)) {
          expect(actionsOf(statement)).toEqual(['dynamodb:UpdateItem']);
          expect(statement.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [expect.stringMatching(/^RATE#/)] } });
          continue;
        }
        expect(onStream ? [streamArn] : [tableArn, ...indexArns]).toContainEqual(resource);
      }
    }
  });

  it('grants no table administration', () => {
    const actions = allStatements().flatMap(actionsOf);
    for (const forbidden of ['dynamodb:DeleteTable', 'dynamodb:UpdateTable', 'dynamodb:CreateTable', 'dynamodb:UpdateTimeToLive', 'dynamodb:RestoreTableToPointInTime']) {
      expect(actions).not.toContain(forbidden);
    }
  });

  it('gives the fallback and the static function no DynamoDB access at all', () => {
    for (const id of [fallbackFunctionId(), ...staticEntries().map(functionIdOfEntry)]) {
      const statements = statementsOfRole(roleIdOfFunction(id));
      expect(statements.flatMap(actionsOf).filter((a) => a.startsWith('dynamodb:')), id).toEqual([]);
      // Only its own logs.
      expect(statements.flatMap(actionsOf).every((a) => a.startsWith('logs:')), id).toBe(true);
    }
  });

  it('lets exactly the functions whose rows send email use SES, and those that send SMS use SNS', () => {
    const email = sendersOf('email');
    const sms = sendersOf('sms');
    expect(email.size).toBeGreaterThan(0);
    expect(email).toContain(functionIdOf(routeList().find((route) => route.name === 'createRequest')!));
    const emailRoles = new Set([...email].map(roleIdOfFunction));
    const smsRoles = new Set([...sms].map(roleIdOfFunction));
    for (const [roleId] of ofType('AWS::IAM::Role')) {
      const allowed = statementsOfRole(roleId).filter((s) => s.Effect === 'Allow').flatMap(actionsOf);
      // SESv2 SendEmail with simple content is all the adapter sends: never raw MIME.
      expect(allowed.filter((a) => a.startsWith('ses:')).sort(), roleId).toEqual(emailRoles.has(roleId) ? ['ses:SendEmail'] : []);
      expect(allowed.filter((a) => a.startsWith('sns:')), roleId).toEqual(smsRoles.has(roleId) ? ['sns:Publish'] : []);
    }
    expect(allStatements().flatMap(actionsOf)).not.toContain('ses:SendRawEmail');
  });

  it('lets the SMS senders publish to phone numbers only: sns:Publish is denied on every topic ARN', () => {
    const sms = sendersOf('sms');
    expect(sms.size).toBe(3);
    for (const roleId of new Set([...sms].map(roleIdOfFunction))) {
      const publish = statementsOfRole(roleId).filter((s) => actionsOf(s).includes('sns:Publish'));
      expect(publish, roleId).toEqual([
        { Sid: 'SendSms', Effect: 'Allow', Action: 'sns:Publish', Resource: '*' },
        { Sid: 'PublishToNoTopic', Effect: 'Deny', Action: 'sns:Publish', Resource: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':sns:*:*:*']] } },
      ]);
    }
  });

  it('pins every email sender with ses:FromAddress, on this account\'s identities', () => {
    for (const id of sendersOf('email')) {
      const ses = statementsOfRole(roleIdOfFunction(id)).filter((s) => actionsOf(s).includes('ses:SendEmail'));
      expect(ses, id).toHaveLength(1);
      expect(ses[0]!.Condition).toEqual({ StringEquals: { 'ses:FromAddress': EMAIL_FROM } });
      const resource = JSON.stringify(ses[0]!.Resource);
      expect(resource).toContain(':ses:');
      expect(resource).toContain('{"Ref":"AWS::AccountId"}');
      expect(resource).toContain(':identity/*');
    }
  });

  it('lets each function role write logs only to its own function\'s log group', () => {
    for (const [functionId, fn] of ofType('AWS::Lambda::Function')) {
      const roleId = roleIdOfFunction(functionId);
      const groupId = fn.Properties.LoggingConfig.LogGroup.Ref;
      const logStatements = statementsOfRole(roleId).filter((s) => actionsOf(s).some((a) => a.startsWith('logs:')));
      expect(logStatements.length).toBeGreaterThan(0);
      for (const statement of logStatements) {
        expect(resourcesOf(statement)).toEqual([{ 'Fn::GetAtt': [groupId, 'Arn'] }]);
      }
    }
  });

  it('attaches no managed policies; function roles trust Lambda, scheduler roles trust Scheduler for this account only', () => {
    const functionRoles = new Set(ofType('AWS::Lambda::Function').map(([id]) => roleIdOfFunction(id)));
    const scheduler = new Set(schedulerRoles().map(([id]) => id));
    expect(scheduler.size).toBe(4); // per-request expiries, the expiry sweep, the delivery sweep, the ticket reconciliation
    for (const [roleId, role] of ofType('AWS::IAM::Role')) {
      expect(role.Properties.ManagedPolicyArns, roleId).toBeUndefined();
      const trust = role.Properties.AssumeRolePolicyDocument.Statement;
      if (functionRoles.has(roleId)) {
        expect(trust).toEqual([{ Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' } }]);
      } else {
        expect(scheduler.has(roleId), roleId).toBe(true);
        expect(trust).toHaveLength(1);
        expect(trust[0]).toMatchObject({
          Action: 'sts:AssumeRole',
          Effect: 'Allow',
          Principal: { Service: 'scheduler.amazonaws.com' },
          Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
        });
      }
    }
  });
});

// ---- expiry -----------------------------------------------------------------------------------------

describe('expiry', () => {
  it('keeps TTL on the table and the byDue index the sweep reads', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
      GlobalSecondaryIndexes: Match.arrayWith([
        Match.objectLike({
          IndexName: INDEXES.byDue.indexName,
          KeySchema: [
            { AttributeName: INDEXES.byDue.partitionKey, KeyType: 'HASH' },
            { AttributeName: INDEXES.byDue.sortKey, KeyType: 'RANGE' },
          ],
        }),
      ]),
    });
  });

  it('has one schedule group for the per-request schedules, deleted with the stack', () => {
    const group = resources[scheduleGroupId()]!;
    expect(group.DeletionPolicy).toBe('Delete');
    expect(scheduleGroupName()).toMatch(/^[0-9a-zA-Z-_.]{1,64}$/);
    template.hasOutput('ExpiryScheduleGroup', { Value: scheduleGroupName() });
  });

  it('builds the expiry and purge workers and the sweep from their handler files', () => {
    for (const [id, entry] of [[expiryFunctionId(), EXPIRE_ENTRY], [purgeFunctionId(), PURGE_ENTRY], [sweepFunctionId(), SWEEP_ENTRY]] as const) {
      expect(existsSync(path.join(REPO_ROOT, entry)), entry).toBe(true);
      expect(resources[id]!.Properties).toMatchObject({ Runtime: 'nodejs22.x', Handler: 'index.handler' });
    }
  });

  it('the scheduler role is assumed only by Scheduler, for schedules of this account and this group', () => {
    const trust = resources[expirySchedulerRoleId()]!.Properties.AssumeRolePolicyDocument.Statement;
    expect(trust).toEqual([
      {
        Action: 'sts:AssumeRole',
        Effect: 'Allow',
        Principal: { Service: 'scheduler.amazonaws.com' },
        Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' }, 'aws:SourceArn': arn(scheduleGroupId()) } },
      },
    ]);
  });

  it('the scheduler role may only invoke the expiry and purge workers', () => {
    expect(statementsOfRole(expirySchedulerRoleId())).toEqual([
      { Sid: 'InvokeExpiryWorker', Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: arn(expiryFunctionId()) },
      { Sid: 'InvokePurgeWorker', Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: arn(purgeFunctionId()) },
    ]);
  });

  it('lets exactly the scheduling routes\' functions and the two helpdesk workers manage expire-* schedules in the group, and the ticket status routes\' and the helpdesk workers\' purge-* too', () => {
    // The ticket check worker and the reconciliation apply verified statuses as the ticket status routes do.
    const helpdeskWorkers = helpdeskFunctionIds().map(roleIdOfFunction);
    const schedulingRoles = new Set([...schedulingRoutes().map((route) => roleIdOfFunction(functionIdOf(route))), ...helpdeskWorkers]);
    const purgingRoles = new Set([...purgeSchedulingRoutes().map((route) => roleIdOfFunction(functionIdOf(route))), ...helpdeskWorkers]);
    expect(schedulingRoles.size).toBe(SCHEDULING_ROUTES.length + 2);
    expect(purgingRoles.size).toBe(PURGE_SCHEDULING_ROUTES.length + 2);
    const manage = (sid: string, kind: string) => ({
      Sid: sid,
      Effect: 'Allow',
      Action: ['scheduler:CreateSchedule', 'scheduler:UpdateSchedule', 'scheduler:DeleteSchedule'],
      Resource: {
        'Fn::Join': [
          '',
          ['arn:', { Ref: 'AWS::Partition' }, ':scheduler:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, `:schedule/${scheduleGroupName()}/${kind}-*`],
        ],
      },
    });
    for (const [roleId] of ofType('AWS::IAM::Role')) {
      const statements = statementsOfRole(roleId).filter((s) => actionsOf(s).some((a) => a.startsWith('scheduler:')));
      if (!schedulingRoles.has(roleId)) {
        expect(statements, roleId).toEqual([]);
        continue;
      }
      expect(statements).toEqual([
        manage('ManageExpirySchedules', 'expire'),
        ...(purgingRoles.has(roleId) ? [manage('ManagePurgeSchedules', 'purge')] : []),
      ]);
    }
  });

  it('lets exactly the inbound URL functions open sealed integration secrets, the delivery worker webhook secrets, and the ticket check worker, the reconciliation and the member app\'s helpdesk check helpdesk credentials, with kms:Decrypt for that purpose only', () => {
    const openers = new Set(sealedSecretRoutes().map((route) => roleIdOfFunction(functionIdOf(route))));
    expect(openers.size).toBe(SEALED_SECRET_ROUTES.length);
    const signer = roleIdOfFunction(deliverFunctionId());
    const helpdeskReaders = new Set([...helpdeskFunctionIds(), functionIdOf(checkHelpdeskRoute())].map(roleIdOfFunction));
    expect(helpdeskReaders.size).toBe(3);
    const opens = (sid: string, purpose: string) => ({
      Sid: sid,
      Effect: 'Allow',
      Action: 'kms:Decrypt',
      Resource: arn(sealingKeyId()),
      Condition: { StringEquals: { 'kms:EncryptionContext:purpose': purpose } },
    });
    for (const [roleId] of ofType('AWS::IAM::Role')) {
      // (The table key's statements, through DynamoDB only, are table-access.test.ts's.)
      const statements = statementsOfRole(roleId).filter((s) => actionsOf(s).some((a) => a === 'kms:Decrypt') && !resourcesOf(s).some((r) => JSON.stringify(r) === JSON.stringify(arn(tableKeyId()))));
      expect(statements, roleId).toEqual(
        openers.has(roleId)
          ? [opens('OpenSealedIntegrationSecrets', 'inbound_auth')]
          : roleId === signer
            ? [opens('OpenWebhookSigningSecrets', 'webhook_signing')]
            : helpdeskReaders.has(roleId)
              ? [opens('OpenHelpdeskCredentials', 'helpdesk_credentials')]
              : [],
      );
    }
  });

  it('lets only the webhook creations and the member app rotation seal webhook signing secrets, the member app integration settings integration secrets, and the member app helpdesk connection helpdesk credentials (GenerateDataKey for that purpose), and nothing else use the sealing key', () => {
    const sealers = rolesOfRoutes(WEBHOOK_SEALING_ROUTES);
    expect(sealers.size).toBe(WEBHOOK_SEALING_ROUTES.length);
    // The member app's integration settings seal a shared header value or signing secret, for the inbound URLs to open.
    const integrationSealers = rolesOfRoutes(INTEGRATION_SEALING_ROUTES);
    expect(integrationSealers.size).toBe(INTEGRATION_SEALING_ROUTES.length);
    // Connecting an integration to its helpdesk seals the helpdesk credentials, for the helpdesk readers to open.
    const helpdeskSealer = roleIdOfFunction(functionIdOf(connectHelpdeskRoute()));
    expect([...sealers, ...integrationSealers]).not.toContain(helpdeskSealer);
    const openers = rolesOfRoutes(SEALED_SECRET_ROUTES);
    const signer = roleIdOfFunction(deliverFunctionId());
    const helpdeskReaders = new Set([...helpdeskFunctionIds(), functionIdOf(checkHelpdeskRoute())].map(roleIdOfFunction));
    for (const [roleId] of ofType('AWS::IAM::Role')) {
      const onKey = statementsOnKey(roleId, sealingKeyId());
      const expected = sealers.has(roleId)
        ? [{ Sid: 'SealWebhookSigningSecrets', Effect: 'Allow', Action: 'kms:GenerateDataKey', Resource: arn(sealingKeyId()), Condition: { StringEquals: { 'kms:EncryptionContext:purpose': 'webhook_signing' } } }]
        : integrationSealers.has(roleId)
          ? [{ Sid: 'SealIntegrationSecrets', Effect: 'Allow', Action: 'kms:GenerateDataKey', Resource: arn(sealingKeyId()), Condition: { StringEquals: { 'kms:EncryptionContext:purpose': 'inbound_auth' } } }]
          : roleId === helpdeskSealer
            ? [{ Sid: 'SealHelpdeskCredentials', Effect: 'Allow', Action: 'kms:GenerateDataKey', Resource: arn(sealingKeyId()), Condition: { StringEquals: { 'kms:EncryptionContext:purpose': 'helpdesk_credentials' } } }]
            : [];
      expect(onKey.filter((s) => actionsOf(s).some((a) => a !== 'kms:Decrypt')), roleId).toEqual(expected);
      // Sealing is not opening: the create function cannot read a secret back; only the signer, the inbound URLs and the helpdesk readers decrypt.
      if (!openers.has(roleId) && roleId !== signer && !helpdeskReaders.has(roleId)) expect(onKey.flatMap(actionsOf), roleId).not.toContain('kms:Decrypt');
    }
  });

  it('hashes codes with a KMS HMAC key that outlives the stack, usable (GenerateMac, HMAC-SHA-256) only by the functions that hash or check codes', () => {
    const key = resources[codeHashKeyId()]!;
    expect(key.Properties.KeyUsage).toBe('GENERATE_VERIFY_MAC');
    expect(key.DeletionPolicy).toBe('Retain');
    expect(template.findOutputs('CodeHashKeyArn').CodeHashKeyArn.Value).toEqual(arn(codeHashKeyId()));
    const hashers = rolesOfRoutes(CODE_HASH_ROUTES);
    // Creating a request (by the API and in the member app), its ticket trigger, sending an email
    // code and checking one: five functions.
    expect(hashers.size).toBe(5);
    for (const [roleId] of ofType('AWS::IAM::Role')) {
      expect(statementsOnKey(roleId, codeHashKeyId()), roleId).toEqual(
        hashers.has(roleId)
          ? [{ Sid: 'HashCodes', Effect: 'Allow', Action: 'kms:GenerateMac', Resource: arn(codeHashKeyId()), Condition: { StringEquals: { 'kms:MacAlgorithm': 'HMAC_SHA_256' } } }]
          : [],
      );
    }
  });

  it('seals with a customer-managed key that rotates and outlives the stack', () => {
    const key = resources[sealingKeyId()]!;
    expect(key.Properties.EnableKeyRotation).toBe(true);
    expect(key.DeletionPolicy).toBe('Retain');
    expect(template.findOutputs('SealingKeyArn').SealingKeyArn.Value).toEqual(arn(sealingKeyId()));
  });

  it('signs certificates with an Ed25519 KMS key that outlives the stack, tagged so rotated keys share its rights', () => {
    const key = resources[signingKeyId()]!;
    expect(key.Properties.KeyUsage).toBe('SIGN_VERIFY');
    expect(key.DeletionPolicy).toBe('Retain');
    expect(key.Properties.Tags).toEqual([{ Key: 'handoff-custody-signing', Value: 'HandoffTest' }]);
    expect(template.findOutputs('SigningKeyArn').SigningKeyArn.Value).toEqual(arn(signingKeyId()));
  });

  it('lets only the certificate function sign (pure Ed25519, by tag), and the key-publishing one read public keys', () => {
    const signers = new Set(signingRoutes().map((route) => roleIdOfFunction(functionIdOf(route))));
    expect(signers.size).toBe(1);
    const publishers = new Set(routeList().filter((route) => KEY_PUBLISHING_ROUTES.includes(route.name)).map((route) => roleIdOfFunction(functionIdOf(route))));
    const tagged = { 'aws:ResourceTag/handoff-custody-signing': 'HandoffTest' };
    const keys = { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':kms:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':key/*']] };
    const readPublicKeys = { Sid: 'ReadSigningPublicKeys', Effect: 'Allow', Action: 'kms:GetPublicKey', Resource: keys, Condition: { StringEquals: tagged } };
    for (const [roleId] of ofType('AWS::IAM::Role')) {
      const statements = statementsOfRole(roleId).filter((s) => actionsOf(s).some((a) => a === 'kms:Sign' || a === 'kms:GetPublicKey'));
      const expected = signers.has(roleId)
        ? [
            {
              Sid: 'SignCustodyCertificates',
              Effect: 'Allow',
              Action: 'kms:Sign',
              Resource: keys,
              Condition: { StringEquals: { ...tagged, 'kms:SigningAlgorithm': 'ED25519_SHA_512', 'kms:MessageType': 'RAW' } },
            },
            readPublicKeys,
          ]
        : publishers.has(roleId)
          ? [readPublicKeys]
          : [];
      expect(statements, roleId).toEqual(expected);
    }
  });

  it('keeps paths (link tokens, inbound URL secrets) out of the access log', () => {
    const format = ofType('AWS::ApiGatewayV2::Stage')[0]![1].Properties.AccessLogSettings.Format as string;
    expect(format).not.toContain('$context.path');
    expect(format).not.toContain('$context.resourcePath');
  });

  it('lets exactly those functions (the scheduling routes\' and the two helpdesk workers) pass exactly the scheduler role, and only to Scheduler', () => {
    const schedulingRoles = new Set([...schedulingRoutes().map((route) => roleIdOfFunction(functionIdOf(route))), ...helpdeskFunctionIds().map(roleIdOfFunction)]);
    expect(schedulingRoles.size).toBe(SCHEDULING_ROUTES.length + 2);
    for (const [roleId] of ofType('AWS::IAM::Role')) {
      const passing = statementsOfRole(roleId).filter((s) => actionsOf(s).some((a) => a.startsWith('iam:')));
      if (!schedulingRoles.has(roleId)) {
        expect(passing, roleId).toEqual([]);
        continue;
      }
      expect(passing).toEqual([
        {
          Sid: 'PassExpirySchedulerRole',
          Effect: 'Allow',
          Action: 'iam:PassRole',
          Resource: arn(expirySchedulerRoleId()),
          Condition: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
        },
      ]);
    }
    for (const statement of allStatements().filter((s) => actionsOf(s).includes('iam:PassRole'))) {
      expect(resourcesOf(statement)).not.toContain('*');
    }
  });

  it('runs the sweep every five minutes from a recurring schedule in the default group, as a role that may only invoke the sweep', () => {
    const schedules = ofType('AWS::Scheduler::Schedule').filter(([, s]) => s.Properties.Target.Arn['Fn::GetAtt'][0] === sweepFunctionId());
    const sweep = schedules[0]![1].Properties;
    expect(sweep).toMatchObject({
      ScheduleExpression: 'rate(5 minutes)',
      FlexibleTimeWindow: { Mode: 'OFF' },
      State: 'ENABLED',
      Target: { Arn: arn(sweepFunctionId()), Input: '{}' },
    });
    expect(sweep.GroupName).toBeUndefined(); // the default group: out of the scheduling functions' reach
    expect(sweep.Target.RetryPolicy.MaximumEventAgeInSeconds).toBeLessThan(300);
    const roleId: string = sweep.Target.RoleArn['Fn::GetAtt'][0];
    expect(roleId).not.toBe(expirySchedulerRoleId());
    expect(resources[roleId]!.Properties.AssumeRolePolicyDocument.Statement[0].Condition.StringEquals['aws:SourceArn']).toEqual({
      'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':scheduler:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':schedule-group/default']],
    });
    expect(statementsOfRole(roleId)).toEqual([
      { Sid: 'InvokeExpirySweep', Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: arn(sweepFunctionId()) },
    ]);
  });

  it('gives the workers no sending and no scheduling rights, and no one else a way to invoke them', () => {
    for (const id of [expiryFunctionId(), purgeFunctionId(), sweepFunctionId()]) {
      const actions = statementsOfRole(roleIdOfFunction(id)).flatMap(actionsOf);
      expect(actions.filter((a) => /^(ses|sns|scheduler|iam|lambda):/.test(a)), id).toEqual([]);
      const permissions = ofType('AWS::Lambda::Permission').filter(([, p]) => p.Properties.FunctionName['Fn::GetAtt']?.[0] === id);
      expect(permissions, id).toEqual([]);
    }
    const invokers = allStatements().filter((s) => actionsOf(s).includes('lambda:InvokeFunction'));
    // The schedules' roles, and the three functions that post links in tickets through the ticket check worker (grantInvoke: the function and its qualified ARNs).
    const replies = ticketReplyRoutes().map(() => invokesTicketCheck().Resource);
    expect(invokers.map((s) => s.Resource).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))).toEqual(
      [arn(expiryFunctionId()), arn(purgeFunctionId()), arn(sweepFunctionId()), arn(deliverySweepFunctionId()), arn(reconcileFunctionId()), ...replies].sort((a, b) =>
        JSON.stringify(a).localeCompare(JSON.stringify(b)),
      ),
    );
  });
});

// ---- webhooks ---------------------------------------------------------------------------------------

/** The queue whose logical id starts with the Webhooks construct's id for it. */
const onlyQueue = (name: string) => {
  const found = ofType('AWS::SQS::Queue').filter(([id]) => id.startsWith(`Webhooks${name}`));
  expect(found, name).toHaveLength(1);
  return found[0]![0];
};
const queueArn = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });
const mappingOf = (functionId: string) => {
  const found = ofType('AWS::Lambda::EventSourceMapping').filter(([, m]) => m.Properties.FunctionName.Ref === functionId);
  expect(found, functionId).toHaveLength(1);
  return found[0]![1].Properties;
};

describe('webhooks', () => {
  it('feeds the fan-out from the table stream, filtered to new audit items, with batch item failures, bisection, bounded retries and a DLQ', () => {
    const mapping = mappingOf(fanOutFunctionId());
    expect(mapping.EventSourceArn).toEqual({ 'Fn::GetAtt': [tableId(), 'StreamArn'] });
    expect(mapping.FilterCriteria.Filters.map((f: Json) => JSON.parse(f.Pattern))).toEqual([
      { eventName: ['INSERT'], dynamodb: { NewImage: { kind: { S: ['audit'] } } } },
    ]);
    expect(mapping).toMatchObject({
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: true,
      StartingPosition: 'TRIM_HORIZON',
      DestinationConfig: { OnFailure: { Destination: queueArn(onlyQueue('FanOutDlq')) } },
    });
    expect(mapping.BatchSize).toBeGreaterThan(0);
    expect(mapping.MaximumRetryAttempts).toBeGreaterThan(0);
    expect(mapping.MaximumRetryAttempts).toBeLessThanOrEqual(10);
  });

  it('feeds the delivery worker from both lanes, each under a concurrency of its own, reporting batch item failures', () => {
    const mappings = ofType('AWS::Lambda::EventSourceMapping')
      .filter(([, m]) => m.Properties.FunctionName.Ref === deliverFunctionId())
      .map(([, m]) => m.Properties);
    expect(mappings.map((m) => m.EventSourceArn)).toEqual([queueArn(onlyQueue('DeliveryQueue')), queueArn(onlyQueue('SlowDeliveryQueue'))]);
    for (const mapping of mappings) {
      expect(mapping).toMatchObject({ FunctionResponseTypes: ['ReportBatchItemFailures'], ScalingConfig: { MaximumConcurrency: 16 } });
    }
  });

  it('gives the delivery queues a visibility timeout above the worker timeout and a DLQ after a few receives', () => {
    for (const name of ['DeliveryQueue', 'SlowDeliveryQueue']) {
      const queue = resources[onlyQueue(name)]!.Properties;
      expect(queue.VisibilityTimeout, name).toBeGreaterThan(resources[deliverFunctionId()]!.Properties.Timeout);
      expect(queue.RedrivePolicy, name).toEqual({ deadLetterTargetArn: queueArn(onlyQueue('DeliveryDlq')), maxReceiveCount: 5 });
    }
    for (const name of ['DeliveryQueue', 'SlowDeliveryQueue', 'DeliveryDlq', 'FanOutDlq']) {
      expect(resources[onlyQueue(name)]!.Properties.SqsManagedSseEnabled, name).toBe(true);
    }
  });

  it('alarms as soon as either DLQ holds a message', () => {
    for (const name of ['FanOutDlq', 'DeliveryDlq']) {
      const alarms = ofType('AWS::CloudWatch::Alarm').filter(([, a]) =>
        ((a.Properties.Dimensions ?? []) as Json[]).some((d) => d.Name === 'QueueName' && d.Value['Fn::GetAtt']?.[0] === onlyQueue(name)),
      );
      expect(alarms, name).toHaveLength(1);
      expect(alarms[0]![1].Properties).toMatchObject({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        ComparisonOperator: 'GreaterThanThreshold',
        Threshold: 0,
        EvaluationPeriods: 1,
      });
    }
  });

  it('runs the delivery sweep every five minutes, as a role that may only invoke it', () => {
    const schedules = ofType('AWS::Scheduler::Schedule').filter(([, s]) => s.Properties.Target.Arn['Fn::GetAtt'][0] === deliverySweepFunctionId());
    expect(schedules).toHaveLength(1);
    const sweep = schedules[0]![1].Properties;
    expect(sweep).toMatchObject({ ScheduleExpression: 'rate(5 minutes)', State: 'ENABLED', FlexibleTimeWindow: { Mode: 'OFF' } });
    expect(statementsOfRole(sweep.Target.RoleArn['Fn::GetAtt'][0])).toEqual([
      { Sid: 'InvokeDeliverySweep', Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: arn(deliverySweepFunctionId()) },
    ]);
  });

  it('grants least privilege: stream read to the fan-out only, sending to the delivery queue, consuming to the worker only', () => {
    const deliveryQueue = queueArn(onlyQueue('DeliveryQueue'));
    const byJson = (a: unknown, b: unknown) => JSON.stringify(a).localeCompare(JSON.stringify(b));
    for (const [roleId] of ofType('AWS::IAM::Role')) {
      const statements = statementsOfRole(roleId);
      const stream = statements.filter((s) => JSON.stringify(resourcesOf(s)).includes('StreamArn'));
      expect(stream.length > 0, roleId).toBe(roleId === roleIdOfFunction(fanOutFunctionId()));
      const receive = statements.filter((s) => actionsOf(s).includes('sqs:ReceiveMessage'));
      // The delivery worker consumes both lanes; the ticket check worker its own queue (helpdesk checks); no one else consumes any queue.
      const consumed =
        roleId === roleIdOfFunction(deliverFunctionId())
          ? [deliveryQueue, queueArn(onlyQueue('SlowDeliveryQueue'))]
          : roleId === roleIdOfFunction(ticketCheckFunctionId())
            ? [queueArn(helpdeskQueue('TicketCheckQueue'))]
            : [];
      expect(receive.flatMap(resourcesOf).sort(byJson), roleId).toEqual(consumed.sort(byJson));
      for (const statement of statements.filter((s) => actionsOf(s).some((a) => a.startsWith('sqs:')))) {
        expect(resourcesOf(statement)).not.toContain('*');
      }
    }
    for (const id of webhookFunctionIds()) {
      const sends = statementsOfRole(roleIdOfFunction(id)).filter((s) => actionsOf(s).includes('sqs:SendMessage'));
      expect(sends.flatMap(resourcesOf), id).toContainEqual(deliveryQueue);
      expect(sends.flatMap(resourcesOf), id).toContainEqual(queueArn(onlyQueue('SlowDeliveryQueue')));
      const actions = statementsOfRole(roleIdOfFunction(id)).flatMap(actionsOf);
      expect(actions.filter((a) => /^(ses|sns|scheduler|iam|lambda):/.test(a)), id).toEqual([]);
    }
    const fanOutSends = statementsOfRole(roleIdOfFunction(fanOutFunctionId())).filter((s) => actionsOf(s).includes('sqs:SendMessage'));
    expect(fanOutSends.flatMap(resourcesOf)).toContainEqual(queueArn(onlyQueue('FanOutDlq')));
  });
});

// ---- helpdesk checks --------------------------------------------------------------------------------

/** The queue whose logical id starts with the HelpdeskChecks construct's id for it. */
const helpdeskQueue = (name: 'TicketCheckQueue' | 'TicketCheckDlq') => {
  const found = ofType('AWS::SQS::Queue').filter(([id]) => id.startsWith(`HelpdeskChecks${name}`));
  expect(found, name).toHaveLength(1);
  return found[0]![0];
};
const ticketCheckQueueUrl = () => ({ TICKET_CHECK_QUEUE_URL: { Ref: helpdeskQueue('TicketCheckQueue') } });

describe('helpdesk checks', () => {
  const checkRole = () => roleIdOfFunction(ticketCheckFunctionId());
  const reconcileRole = () => roleIdOfFunction(reconcileFunctionId());
  /** What grantSendMessages gives: send, and the two reads the SDK may make first. */
  const sends = (queueId: string) => ({ Effect: 'Allow', Action: ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'], Resource: queueArn(queueId) });
  /** What an SQS event source gives its function. */
  const consumes = (queueId: string) => ({
    Effect: 'Allow',
    Action: ['sqs:ReceiveMessage', 'sqs:ChangeMessageVisibility', 'sqs:GetQueueUrl', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'],
    Resource: queueArn(queueId),
  });
  const opensHelpdeskCredentials = () => ({
    Sid: 'OpenHelpdeskCredentials',
    Effect: 'Allow',
    Action: 'kms:Decrypt',
    Resource: arn(sealingKeyId()),
    Condition: { StringEquals: { 'kms:EncryptionContext:purpose': 'helpdesk_credentials' } },
  });
  const sealsHelpdeskCredentials = () => ({
    Sid: 'SealHelpdeskCredentials',
    Effect: 'Allow',
    Action: 'kms:GenerateDataKey',
    Resource: arn(sealingKeyId()),
    Condition: { StringEquals: { 'kms:EncryptionContext:purpose': 'helpdesk_credentials' } },
  });
  /** What expiry.grantScheduling and grantPurgeScheduling give: expire-* and purge-* schedules in the group, and the scheduler role to pass to Scheduler only. */
  const schedules = (sid: 'ManageExpirySchedules' | 'ManagePurgeSchedules', kind: 'expire' | 'purge') => ({
    Sid: sid,
    Effect: 'Allow',
    Action: ['scheduler:CreateSchedule', 'scheduler:UpdateSchedule', 'scheduler:DeleteSchedule'],
    Resource: {
      'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':scheduler:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, `:schedule/${scheduleGroupName()}/${kind}-*`]],
    },
  });
  const passesSchedulerRole = () => ({
    Sid: 'PassExpirySchedulerRole',
    Effect: 'Allow',
    Action: 'iam:PassRole',
    Resource: arn(expirySchedulerRoleId()),
    Condition: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
  });

  it('builds the ticket check worker and the reconciliation from their handler files', () => {
    for (const [id, entry] of [[ticketCheckFunctionId(), TICKET_CHECK_ENTRY], [reconcileFunctionId(), RECONCILE_ENTRY]] as const) {
      expect(existsSync(path.join(REPO_ROOT, entry)), entry).toBe(true);
      expect(resources[id]!.Properties).toMatchObject({ Runtime: 'nodejs22.x', Handler: 'index.handler' });
    }
  });

  it('describes the ticket check worker by both its jobs (checks from the queue, replies when invoked), and the reconciliation by its own', () => {
    expect(resources[ticketCheckFunctionId()]!.Properties.Description).toBe(
      'ticket check worker: reads one linked ticket from its helpdesk and applies the verified status, or posts a link in it',
    );
    expect(resources[reconcileFunctionId()]!.Properties.Description).toBe('ticket reconciliation: reads the linked tickets of live requests from their helpdesks');
  });

  it('queues checks in an encrypted queue with a 6x visibility timeout and a DLQ after five receives, both taking only TLS', () => {
    // The stack's queues: the four of the webhooks, these two, and the API read recorder's DLQ (api-read-records.test.ts).
    const [recorderDlqId] = ofType('AWS::Lambda::EventInvokeConfig')
      .filter(([, c]) => c.Properties.FunctionName.Ref === recorderFunctionId())
      .map(([, c]) => c.Properties.DestinationConfig.OnFailure.Destination['Fn::GetAtt'][0] as string);
    expect(recorderDlqId).toBeDefined();
    expect(ofType('AWS::SQS::Queue').map(([id]) => id).sort()).toEqual(
      [...['DeliveryQueue', 'SlowDeliveryQueue', 'DeliveryDlq', 'FanOutDlq'].map(onlyQueue), helpdeskQueue('TicketCheckQueue'), helpdeskQueue('TicketCheckDlq'), recorderDlqId].sort(),
    );
    expect(resources[helpdeskQueue('TicketCheckQueue')]!.Properties).toEqual({
      MessageRetentionPeriod: 4 * 24 * 3600,
      RedrivePolicy: { deadLetterTargetArn: queueArn(helpdeskQueue('TicketCheckDlq')), maxReceiveCount: 5 },
      SqsManagedSseEnabled: true,
      VisibilityTimeout: 6 * resources[ticketCheckFunctionId()]!.Properties.Timeout,
    });
    expect(resources[helpdeskQueue('TicketCheckDlq')]!.Properties).toEqual({ MessageRetentionPeriod: 14 * 24 * 3600, SqsManagedSseEnabled: true });
    for (const name of ['TicketCheckQueue', 'TicketCheckDlq'] as const) {
      const policies = ofType('AWS::SQS::QueuePolicy').filter(([, p]) => (p.Properties.Queues as Json[]).some((q) => q.Ref === helpdeskQueue(name)));
      expect(policies, name).toHaveLength(1);
      expect(policies[0]![1].Properties.PolicyDocument.Statement, name).toEqual([
        { Action: 'sqs:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } }, Effect: 'Deny', Principal: { AWS: '*' }, Resource: queueArn(helpdeskQueue(name)) },
      ]);
    }
  });

  it('feeds the ticket check worker from the queue, five at a time at most, reporting batch item failures; nothing else reads the queue', () => {
    expect(mappingOf(ticketCheckFunctionId())).toEqual({
      BatchSize: 5,
      EventSourceArn: queueArn(helpdeskQueue('TicketCheckQueue')),
      FunctionName: { Ref: ticketCheckFunctionId() },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 5 },
    });
    const fromQueue = ofType('AWS::Lambda::EventSourceMapping').filter(([, m]) => JSON.stringify(m.Properties.EventSourceArn).includes(`"${helpdeskQueue('TicketCheckQueue')}"`));
    expect(fromQueue).toHaveLength(1);
    const fromDlq = ofType('AWS::Lambda::EventSourceMapping').filter(([, m]) => JSON.stringify(m.Properties.EventSourceArn).includes(`"${helpdeskQueue('TicketCheckDlq')}"`));
    expect(fromDlq).toEqual([]);
    expect(ofType('AWS::Lambda::EventSourceMapping').filter(([, m]) => m.Properties.FunctionName.Ref === reconcileFunctionId())).toEqual([]);
  });

  it("lets exactly the ticket status routes' functions, the purge worker, the sweep and the ticket check worker send to the queue, the ticket check worker alone consume it, and no one touch its DLQ", () => {
    const senders = new Set([...rolesOfRoutes(TICKET_CHECK_ROUTES), roleIdOfFunction(purgeFunctionId()), roleIdOfFunction(sweepFunctionId()), checkRole()]);
    // markTicketStatus and inboundTicketStatus have a function each.
    expect(rolesOfRoutes(TICKET_CHECK_ROUTES).size).toBe(TICKET_CHECK_ROUTES.length);
    expect(senders.size).toBe(TICKET_CHECK_ROUTES.length + 3);
    const queue = helpdeskQueue('TicketCheckQueue');
    const dlq = helpdeskQueue('TicketCheckDlq');
    for (const [roleId] of ofType('AWS::IAM::Role')) {
      const onQueue = statementsOfRole(roleId).filter((s) => resourcesOf(s).some((r) => JSON.stringify(r).includes(`"${queue}"`)));
      expect(onQueue, roleId).toEqual([...(senders.has(roleId) ? [sends(queue)] : []), ...(roleId === checkRole() ? [consumes(queue)] : [])]);
      const onDlq = statementsOfRole(roleId).filter((s) => resourcesOf(s).some((r) => JSON.stringify(r).includes(`"${dlq}"`)));
      expect(onDlq, roleId).toEqual([]);
    }
  });

  it('lets exactly the ticket check worker, the reconciliation and the member app\'s helpdesk check open helpdesk credentials, and the member app\'s helpdesk connection alone seal them (each its KMS use for that purpose, and its principal tag)', () => {
    const readers = [checkRole(), reconcileRole(), roleIdOfFunction(functionIdOf(checkHelpdeskRoute()))];
    const sealer = roleIdOfFunction(functionIdOf(connectHelpdeskRoute()));
    expect(new Set([...readers, sealer]).size).toBe(4);
    for (const roleId of readers) {
      expect(statementsOnKey(roleId, sealingKeyId()), roleId).toEqual([opensHelpdeskCredentials()]);
      expect(resources[roleId]!.Properties.Tags, roleId).toContainEqual({ Key: 'handoff-open-helpdesk-credentials', Value: 'HandoffTest' });
    }
    // Sealing is not opening: the connection cannot read the credentials back.
    expect(statementsOnKey(sealer, sealingKeyId())).toEqual([sealsHelpdeskCredentials()]);
    expect(resources[sealer]!.Properties.Tags).toContainEqual({ Key: 'handoff-seal-helpdesk-credentials', Value: 'HandoffTest' });
    const byJson = (a: unknown, b: unknown) => JSON.stringify(a).localeCompare(JSON.stringify(b));
    const purposeHelpdesk = allStatements().filter((s) => JSON.stringify(s.Condition ?? {}).includes('helpdesk_credentials'));
    expect(purposeHelpdesk.sort(byJson)).toEqual([opensHelpdeskCredentials(), opensHelpdeskCredentials(), opensHelpdeskCredentials(), sealsHelpdeskCredentials()].sort(byJson));
    const tagged = (key: string) =>
      ofType('AWS::IAM::Role')
        .filter(([, role]) => ((role.Properties.Tags ?? []) as Json[]).some((tag) => tag.Key === key))
        .map(([id]) => id)
        .sort();
    expect(tagged('handoff-open-helpdesk-credentials')).toEqual([...readers].sort());
    expect(tagged('handoff-seal-helpdesk-credentials')).toEqual([sealer]);
  });

  it('gives the two workers their logs, the table (table-access.test.ts), the helpdesk credentials and the expiry and purge schedules, the worker the queue, nothing else (no sending or invoking); lets exactly the request creating functions invoke the worker, and no one but its schedule the reconciliation', () => {
    const beyondTheTable = (roleId: string) =>
      statementsOfRole(roleId).filter((s) => !actionsOf(s).every((a) => a.startsWith('dynamodb:')) && (s as Json).Sid !== 'TableKeyThroughDynamoDB');
    const logs = (functionId: string) => ({
      Effect: 'Allow',
      Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
      Resource: { 'Fn::GetAtt': [resources[functionId]!.Properties.LoggingConfig.LogGroup.Ref, 'Arn'] },
    });
    const queue = helpdeskQueue('TicketCheckQueue');
    // Both apply verified statuses: a completion cancels the expiry schedule, a close arms a purge, a reopen cancels it.
    const scheduling = [schedules('ManageExpirySchedules', 'expire'), passesSchedulerRole(), schedules('ManagePurgeSchedules', 'purge')];
    // The worker queues its own next attempt after a failed read; the reconciliation queues nothing.
    expect(beyondTheTable(checkRole())).toEqual([logs(ticketCheckFunctionId()), opensHelpdeskCredentials(), ...scheduling, sends(queue), consumes(queue)]);
    expect(beyondTheTable(reconcileRole())).toEqual([logs(reconcileFunctionId()), opensHelpdeskCredentials(), ...scheduling]);
    for (const id of helpdeskFunctionIds()) {
      const permissions = ofType('AWS::Lambda::Permission').filter(([, p]) => JSON.stringify(p.Properties.FunctionName).includes(`"${id}"`));
      expect(permissions, id).toEqual([]);
    }
    const invoking = (id: string) =>
      ofType('AWS::IAM::Role')
        .filter(([roleId]) => statementsOfRole(roleId).some((s) => actionsOf(s).includes('lambda:InvokeFunction') && resourcesOf(s).some((r) => JSON.stringify(r).includes(`"${id}"`))))
        .map(([roleId]) => roleId)
        .sort();
    // The functions that create requests post links in tickets through the worker (besides its queue mapping, nothing else runs it).
    const replyRoles = ticketReplyRoutes().map((route) => roleIdOfFunction(functionIdOf(route)));
    expect(new Set(replyRoles).size).toBe(3);
    expect(invoking(ticketCheckFunctionId())).toEqual([...replyRoles].sort());
    for (const roleId of replyRoles) {
      expect(statementsOfRole(roleId).filter((s) => actionsOf(s).some((a) => a.startsWith('lambda:'))), roleId).toEqual([invokesTicketCheck()]);
    }
    expect(ofType('AWS::Lambda::EventSourceMapping').filter(([, m]) => m.Properties.FunctionName.Ref === ticketCheckFunctionId())).toHaveLength(1);
    // Only the reconciliation's schedule role invokes the reconciliation.
    const reconcileSchedule = ofType('AWS::Scheduler::Schedule').filter(([, s]) => s.Properties.Target.Arn['Fn::GetAtt'][0] === reconcileFunctionId());
    expect(reconcileSchedule).toHaveLength(1);
    expect(invoking(reconcileFunctionId())).toEqual([reconcileSchedule[0]![1].Properties.Target.RoleArn['Fn::GetAtt'][0]]);
  });

  it('runs the reconciliation every two minutes from a recurring schedule in the default group, as a role of its own that Scheduler assumes for this account and that group only, and that may only invoke the reconciliation', () => {
    const schedules = ofType('AWS::Scheduler::Schedule').filter(([, s]) => s.Properties.Target.Arn['Fn::GetAtt'][0] === reconcileFunctionId());
    expect(schedules).toHaveLength(1);
    const schedule = schedules[0]![1].Properties;
    const roleId: string = schedule.Target.RoleArn['Fn::GetAtt'][0];
    expect(schedule).toEqual({
      Description: 'Credential Handoff Service: ticket reconciliation',
      ScheduleExpression: 'rate(2 minutes)',
      FlexibleTimeWindow: { Mode: 'OFF' },
      State: 'ENABLED',
      // A run that cannot start within a period is superseded by the next one.
      Target: { Arn: arn(reconcileFunctionId()), RoleArn: arn(roleId), Input: '{}', RetryPolicy: { MaximumRetryAttempts: 1, MaximumEventAgeInSeconds: 110 } },
    });
    // No GroupName: the default group, out of the scheduling functions' reach.
    const otherSchedulerRoles = ofType('AWS::Scheduler::Schedule')
      .filter(([id]) => id !== schedules[0]![0])
      .map(([, s]) => s.Properties.Target.RoleArn['Fn::GetAtt'][0]);
    expect([...otherSchedulerRoles, expirySchedulerRoleId()]).not.toContain(roleId);
    expect(schedulerRoles().map(([id]) => id)).toContain(roleId);
    expect(resources[roleId]!.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      {
        Action: 'sts:AssumeRole',
        Effect: 'Allow',
        Principal: { Service: 'scheduler.amazonaws.com' },
        Condition: {
          StringEquals: {
            'aws:SourceAccount': { Ref: 'AWS::AccountId' },
            'aws:SourceArn': {
              'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':scheduler:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':schedule-group/default']],
            },
          },
        },
      },
    ]);
    expect(resources[roleId]!.Properties.ManagedPolicyArns).toBeUndefined();
    expect(statementsOfRole(roleId)).toEqual([
      { Sid: 'InvokeTicketReconciliation', Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: arn(reconcileFunctionId()) },
    ]);
  });

  it('alarms on any error of the ticket check worker and of the reconciliation', () => {
    const topic = onlyId('AWS::SNS::Topic');
    for (const id of helpdeskFunctionIds()) {
      const alarms = ofType('AWS::CloudWatch::Alarm').filter(
        ([, a]) => a.Properties.MetricName === 'Errors' && ((a.Properties.Dimensions ?? []) as Json[]).some((d) => d.Name === 'FunctionName' && d.Value.Ref === id),
      );
      expect(alarms, id).toHaveLength(1);
      expect(alarms[0]![1].Properties, id).toMatchObject({ Namespace: 'AWS/Lambda', Statistic: 'Sum', Threshold: 0, ComparisonOperator: 'GreaterThanThreshold', EvaluationPeriods: 1 });
      expect(JSON.stringify(alarms[0]![1].Properties.AlarmActions), id).toContain(`"${topic}"`);
    }
  });

  it('alarms as soon as the ticket-check DLQ holds a message, notifying the alarm topic (and its return to OK), as the webhook DLQs do', () => {
    const topic = onlyId('AWS::SNS::Topic');
    const onDlq = (queueId: string) =>
      ofType('AWS::CloudWatch::Alarm').filter(([, a]) => ((a.Properties.Dimensions ?? []) as Json[]).some((d) => d.Name === 'QueueName' && d.Value['Fn::GetAtt']?.[0] === queueId));
    const alarms = onDlq(helpdeskQueue('TicketCheckDlq'));
    expect(alarms).toHaveLength(1);
    expect(alarms[0]![0]).toMatch(/^HelpdeskChecksTicketCheckDlqAlarm/);
    const { AlarmDescription, ...properties } = alarms[0]![1].Properties;
    expect(AlarmDescription).toMatch(/ticket-check DLQ/);
    expect(properties).toEqual({
      ...dlqAlarmOn(topic),
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [helpdeskQueue('TicketCheckDlq'), 'QueueName'] } }],
    });
    // The same alarm as each webhook DLQ's, on another queue.
    for (const name of ['FanOutDlq', 'DeliveryDlq']) {
      const [webhookAlarm] = onDlq(onlyQueue(name));
      const { AlarmDescription: _description, Dimensions: _dimensions, ...same } = webhookAlarm![1].Properties;
      const { Dimensions: _ours, ...ours } = properties;
      expect(ours, name).toEqual(same);
    }
  });
});

// ---- region and account agnostic ------------------------------------------------------------------

describe('environment', () => {
  it('names no region, account or physical table name', () => {
    const text = JSON.stringify(template.toJSON());
    expect(text).not.toMatch(/\b(us|eu|ap|sa|ca|me|af|il|mx)-(east|west|north|south|central|northeast|southeast)-\d\b/);
    expect(text).not.toMatch(/\b\d{12}\b/);
    expect(resources[tableId()]!.Properties.TableName).toBeUndefined();
  });
});

// ---- the bundles ----------------------------------------------------------------------------------

describe('bundles', () => {
  const bundleOf = (functionId: string) => {
    const code = resources[functionId]!.Properties.Code;
    const hash = String(code.S3Key).replace(/\.zip$/, '');
    return path.join(outdir, `asset.${hash}`, 'index.mjs');
  };
  /** Every file of a function's code in its asset: index.mjs and the chunks beside it (the certificate function's). */
  const codeFilesOf = (functionId: string) => {
    const folder = path.dirname(bundleOf(functionId));
    return readdirSync(folder).filter((file) => file.endsWith('.mjs')).map((file) => path.join(folder, file));
  };
  /** The AWS SDK packages a function's code imports, statically or not, in any of its files. */
  const sdkImportsOf = (functionId: string) => {
    const names = new Set<string>();
    for (const file of codeFilesOf(functionId)) {
      for (const match of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*["'](@aws-sdk\/[^"']+)["']/g)) names.add(match[1]!);
    }
    return [...names].sort();
  };
  /** Where the Lambda service itself sends a function's failed events (an asynchronous invocation's or an event source mapping's on-failure destination). */
  const failureDestinationsOf = (functionId: string) =>
    Object.values(resources)
      .filter((r) => ['AWS::Lambda::EventInvokeConfig', 'AWS::Lambda::EventSourceMapping'].includes(r.Type) && r.Properties.FunctionName?.Ref === functionId)
      .map((r) => JSON.stringify(r.Properties.DestinationConfig?.OnFailure?.Destination ?? null));
  /**
   * The SDK packages a role's Allow statement lets the function's own code call. Not the code's:
   * what the Lambda service does with the role (logs, the event source mappings' stream and queue
   * reads, failed events sent to their destination, DynamoDB's use of the table key) and
   * iam:PassRole, which comes with scheduling.
   */
  const clientsOfStatement = (functionId: string) => (statement: Statement): string[] => {
    if (statement.Effect !== 'Allow') return [];
    const viaService = JSON.stringify(statement.Condition ?? {}).includes('kms:ViaService');
    const toFailureDestination = resourcesOf(statement).every((resource) => failureDestinationsOf(functionId).includes(JSON.stringify(resource)));
    return actionsOf(statement).flatMap((action) => {
      const [service, name] = action.split(':') as [string, string];
      if (service === 'dynamodb') return ['DescribeStream', 'GetRecords', 'GetShardIterator', 'ListStreams'].includes(name) ? [] : ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb'];
      if (service === 'kms') return viaService ? [] : ['@aws-sdk/client-kms'];
      if (service === 'sqs') return name === 'SendMessage' && !toFailureDestination ? ['@aws-sdk/client-sqs'] : [];
      const client = { lambda: 'client-lambda', scheduler: 'client-scheduler', ses: 'client-sesv2', sns: 'client-sns' }[service];
      return client ? [`@aws-sdk/${client}`] : [];
    });
  };
  const clientsOfRole = (functionId: string) => [...new Set(statementsOfRole(roleIdOfFunction(functionId)).flatMap(clientsOfStatement(functionId)))].sort();

  const bundles = () => [
    ...entries().map((entry) => ({ name: rowsOf(entry).map((route) => route.name).join('+'), entry, functionId: functionIdOfEntry(entry) })),
    { name: 'fallback', entry: FALLBACK_ENTRY, functionId: fallbackFunctionId() },
    { name: 'expire', entry: EXPIRE_ENTRY, functionId: expiryFunctionId() },
    { name: 'sweep', entry: SWEEP_ENTRY, functionId: sweepFunctionId() },
    { name: 'fan-out', entry: FAN_OUT_ENTRY, functionId: fanOutFunctionId() },
    { name: 'deliver', entry: DELIVER_ENTRY, functionId: deliverFunctionId() },
    { name: 'delivery-sweep', entry: DELIVERY_SWEEP_ENTRY, functionId: deliverySweepFunctionId() },
    { name: 'ticket-check', entry: TICKET_CHECK_ENTRY, functionId: ticketCheckFunctionId() },
    { name: 'reconcile', entry: RECONCILE_ENTRY, functionId: reconcileFunctionId() },
    { name: 'api-read-recorder', entry: API_READ_RECORDER_ENTRY, functionId: recorderFunctionId() },
  ];

  it('every route, the fallback and the workers point at an existing handler file', () => {
    for (const { entry } of bundles()) expect(existsSync(path.join(REPO_ROOT, entry)), entry).toBe(true);
  });

  it('ship the built pages beside the static handler', () => {
    for (const entry of staticEntries()) {
      const folder = path.join(path.dirname(bundleOf(functionIdOfEntry(entry))), WEB_ASSETS_DIR);
      for (const name of WEB_ASSET_NAMES) expect(existsSync(path.join(folder, name)), `${folder}/${name}`).toBe(true);
      expect(readFileSync(path.join(folder, 'subject.html'), 'utf8')).toMatch(/<html/i);
    }
  });

  it(`are each under ${BUNDLE_LIMIT_BYTES} bytes, the certificate function's files together within ${CERTIFICATE_BUNDLE_BUDGET_BYTES}`, () => {
    const sizes: Record<string, number> = {};
    for (const { name, functionId } of bundles()) {
      const file = bundleOf(functionId);
      expect(existsSync(file), file).toBe(true);
      sizes[name] = statSync(file).size;
      expect(sizes[name], name).toBeLessThan(BUNDLE_LIMIT_BYTES);
    }
    console.info('bundle sizes (bytes):', sizes);
    const certificateFiles = codeFilesOf(functionIdOf(signingRoutes()[0]!));
    expect(certificateFiles.reduce((sum, file) => sum + statSync(file).size, 0)).toBeLessThanOrEqual(CERTIFICATE_BUNDLE_BUDGET_BYTES);
  });

  it('carry the PDF renderer in the certificate function only, in a file of its asset that index.mjs imports only when a PDF is asked for', () => {
    const certificateFunction = functionIdOf(signingRoutes()[0]!);
    for (const { name, functionId } of bundles()) {
      expect(readFileSync(bundleOf(functionId), 'utf8').includes('PDFKit'), name).toBe(false);
      const carriers = codeFilesOf(functionId).filter((file) => readFileSync(file, 'utf8').includes('PDFKit'));
      expect(carriers.length > 0, name).toBe(functionId === certificateFunction);
    }
    const index = readFileSync(bundleOf(certificateFunction), 'utf8');
    const renderer = [...index.matchAll(/\bimport\("\.\/([^"]+\.mjs)"\)/g)].map((match) => match[1]);
    expect(renderer).toHaveLength(1);
    expect(readFileSync(path.join(path.dirname(bundleOf(certificateFunction)), renderer[0]!), 'utf8')).toContain('PDFKit');
  });

  it("import exactly the AWS SDK clients their role lets them call, as lib/function-clients.ts declares them", () => {
    for (const { name, entry, functionId } of bundles()) {
      const granted = clientsOfRole(functionId);
      expect({ bundle: sdkImportsOf(functionId), declared: sdkClientsOfEntry(entry) }, name).toEqual({ bundle: granted, declared: granted });
    }
  });

  it('start with the createRequire banner and leave the AWS SDK to the runtime', () => {
    for (const { name, functionId } of bundles()) {
      const code = readFileSync(bundleOf(functionId), 'utf8');
      expect(code.split('\n')[0], name).toMatch(/^import \{ createRequire as \w+ \} from 'module'; const require = \w+\(import\.meta\.url\);$/);
      expect(code, name).not.toMatch(/node_modules\/@aws-sdk\//);
    }
  });

  it('load as ES modules exporting a handler', () => {
    // The SDK is external, as in Lambda, where the runtime provides it: resolve it from the repo.
    const modules = path.join(outdir, 'node_modules');
    if (!existsSync(modules)) symlinkSync(path.join(REPO_ROOT, 'node_modules'), modules, 'dir');
    for (const { name, functionId } of bundles()) {
      const script = `const m = await import(${JSON.stringify(bundleOf(functionId))}); process.stdout.write(typeof m.handler);`;
      const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
        env: { PATH: process.env.PATH, AWS_REGION: 'eu-west-2' },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(output, name).toBe('function');
    }
  }, 120_000);
});

// ---- context settings -----------------------------------------------------------------------------

describe('context', () => {
  /** Bundling skipped: only the template matters here. */
  const synth = (context: Record<string, unknown>) => {
    const app = new App({ outdir: mkdtempSync(path.join(tmpdir(), 'handoff-infra-ctx-')), context: { 'aws:cdk:bundling-stacks': [], emailFrom: 'links@mail.example.org', ...context } });
    try {
      return flatTemplate(new HandoffStack(app, 'HandoffContext'));
    } finally {
      rmSync(app.outdir, { recursive: true, force: true });
    }
  };

  it('sets APP_URL and the sender from context', () => {
    const t = synth({ appUrl: 'https://handoff.example.org/', emailFrom: 'links@mail.example.org' });
    const json = t.toJSON().Resources as Record<string, Json>;
    const functions = Object.values(json).filter((r) => r.Type === 'AWS::Lambda::Function');
    // The API read recorder has the table name and nothing of the application (api-read-records.test.ts).
    const apiFunctions = functions.filter((fn) => fn.Properties.Environment.Variables.APP_URL);
    expect(apiFunctions).toHaveLength(dataEntries().length + 8); // and the expiry and purge workers, the sweep, the three webhook workers, the ticket check worker and the reconciliation
    for (const fn of apiFunctions) {
      expect(fn.Properties.Environment.Variables).toMatchObject({
        APP_URL: 'https://handoff.example.org',
        EMAIL_FROM_ADDRESS: 'links@mail.example.org',
      });
    }
    t.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Condition: { StringEquals: { 'ses:FromAddress': 'links@mail.example.org' } } }),
        ]),
      },
    });
  }, SYNTH_TIMEOUT);

  it('reserves 20 executions for each of the expiry and purge workers and one for each sweep and the ticket reconciliation with -c reservedConcurrency=on: 43 in all', () => {
    const reservedOf = (t: Template) =>
      Object.fromEntries(
        Object.values(t.toJSON().Resources as Record<string, Json>)
          .filter((r) => r.Type === 'AWS::Lambda::Function' && r.Properties.ReservedConcurrentExecutions !== undefined)
          .map((fn) => [(fn.Properties.Description as string).split(':')[0], fn.Properties.ReservedConcurrentExecutions as number]),
      );
    const on = reservedOf(synth({ reservedConcurrency: 'on' }));
    // One reconciliation at a time.
    expect(on).toEqual({ 'expiry worker': 20, 'purge worker': 20, 'expiry sweep': 1, 'webhook delivery sweep': 1, 'ticket reconciliation': 1 });
    // Lambda keeps 100 of an account's executions unreserved: this needs a concurrency quota of at least 143 (docs/deploying.md).
    expect(Object.values(on).reduce((sum, n) => sum + n, 0)).toBe(43);
    expect(reservedOf(synth({ reservedConcurrency: true }))).toEqual(on);
    expect(reservedOf(synth({ reservedConcurrency: 'off' }))).toEqual({});
  }, SYNTH_TIMEOUT);

  it('keeps point-in-time recovery for -c pointInTimeRecoveryDays days, and tells the certificate function', () => {
    const periodOf = (t: Template) => {
      const json = t.toJSON().Resources as Record<string, Json>;
      const [table] = Object.values(json).filter((r) => r.Type === 'AWS::DynamoDB::Table' && r.Properties.StreamSpecification);
      const stated = Object.values(json)
        .filter((r) => r.Type === 'AWS::Lambda::Function' && r.Properties.Environment.Variables.POINT_IN_TIME_RECOVERY_DAYS !== undefined)
        .map((fn) => fn.Properties.Environment.Variables.POINT_IN_TIME_RECOVERY_DAYS);
      return { table: table!.Properties.PointInTimeRecoverySpecification, stated };
    };
    // One function issues every certificate (both kinds, API and app).
    expect(periodOf(synth({}))).toEqual({ table: { PointInTimeRecoveryEnabled: true, RecoveryPeriodInDays: 7 }, stated: ['7'] });
    expect(periodOf(synth({ pointInTimeRecoveryDays: '14' }))).toEqual({ table: { PointInTimeRecoveryEnabled: true, RecoveryPeriodInDays: 14 }, stated: ['14'] });
    // cdk.json may hold a number.
    expect(periodOf(synth({ pointInTimeRecoveryDays: 35 })).table.RecoveryPeriodInDays).toBe(35);
    expect(periodOf(synth({ pointInTimeRecoveryDays: '1' })).stated).toEqual(['1']);
  }, SYNTH_TIMEOUT);

  it('refuses a pointInTimeRecoveryDays setting that is not a whole number of days from 1 to 35', () => {
    for (const value of ['0', '36', 'seven', '7.5', '-1', 0, 36, 2.5, true]) {
      expect(() => synth({ pointInTimeRecoveryDays: value }), String(value)).toThrow(/pointInTimeRecoveryDays must be a whole number of days from 1 to 35 /);
    }
  }, SYNTH_TIMEOUT);

  it('refuses a reservedConcurrency setting other than on or off', () => {
    expect(() => synth({ reservedConcurrency: '42' })).toThrow(/reservedConcurrency must be on or off/);
  }, SYNTH_TIMEOUT);

  it('refuses a sender that is not an email address, and an appUrl that is not https', () => {
    expect(() => synth({ emailFrom: 'not-an-address' })).toThrow(/emailFrom/);
    // No sender at all fails the synth with what to do, rather than deploying a service that sends nothing.
    expect(() => synth({ emailFrom: undefined })).toThrow(/emailFrom is required: .* -c emailFrom=/);
    expect(() => synth({ appUrl: 'http://handoff.example.org' })).toThrow(/appUrl/);
  }, SYNTH_TIMEOUT);
});

describe('operations', () => {
  const topicId = () => onlyId('AWS::SNS::Topic');
  const alarmsNotifying = () => ofType('AWS::CloudWatch::Alarm').filter(([, a]) => JSON.stringify(a.Properties.AlarmActions ?? []).includes(topicId()));
  const alarmOn = (metricName: string, functionId?: string) =>
    ofType('AWS::CloudWatch::Alarm').filter(
      ([, a]) => a.Properties.MetricName === metricName && (!functionId || (a.Properties.Dimensions as Json[] | undefined)?.some((d) => d.Name === 'FunctionName' && d.Value.Ref === functionId)),
    );

  it('sends every alarm, and its return to OK, to one topic that takes only TLS', () => {
    const alarms = ofType('AWS::CloudWatch::Alarm');
    expect(alarms.length).toBeGreaterThanOrEqual(12);
    expect(alarmsNotifying()).toHaveLength(alarms.length);
    for (const [id, alarm] of alarms) expect(JSON.stringify(alarm.Properties.OKActions ?? []), id).toContain(topicId());
    const policy = ofType('AWS::SNS::TopicPolicy')[0]![1].Properties.PolicyDocument.Statement as Json[];
    expect(policy.some((s) => s.Effect === 'Deny' && s.Condition?.Bool?.['aws:SecureTransport'] === 'false')).toBe(true);
    expect(template.findOutputs('AlarmTopicArn').AlarmTopicArn.Value).toEqual({ Ref: topicId() });
  });

  it('alarms on any error of the expiry and purge workers and both sweeps, and on throttles of the expiry worker and sweep', () => {
    for (const id of [expiryFunctionId(), purgeFunctionId(), sweepFunctionId(), deliverySweepFunctionId()]) {
      const [alarm] = alarmOn('Errors', id);
      expect(alarm?.[1].Properties, id).toMatchObject({ Namespace: 'AWS/Lambda', Statistic: 'Sum', Threshold: 0, ComparisonOperator: 'GreaterThanThreshold', EvaluationPeriods: 1 });
    }
    for (const id of [expiryFunctionId(), sweepFunctionId()]) expect(alarmOn('Throttles', id), id).toHaveLength(1);
  });

  it('alarms on schedule target errors and dropped invocations of the expiry group, API 5xx, the stream iterator age and the oldest delivery message', () => {
    const scheduler = ofType('AWS::CloudWatch::Alarm').filter(([, a]) => JSON.stringify(a.Properties.Metrics ?? []).includes('TargetErrorCount'));
    expect(scheduler).toHaveLength(1);
    expect(JSON.stringify(scheduler[0]![1].Properties.Metrics)).toContain('InvocationDroppedCount');
    expect(alarmOn('5xx')[0]![1].Properties).toMatchObject({ Namespace: 'AWS/ApiGateway', Threshold: 5 });
    expect(alarmOn('IteratorAge', fanOutFunctionId())[0]![1].Properties).toMatchObject({ Statistic: 'Maximum', Threshold: 300_000 });
    expect(alarmOn('ApproximateAgeOfOldestMessage')[0]![1].Properties).toMatchObject({ Namespace: 'AWS/SQS', Threshold: 1800 });
  });

  it('subscribes an email address only when one is given by context', () => {
    expect(ofType('AWS::SNS::Subscription')).toHaveLength(0);
    // Bundling skipped (as the context tests do): only the template matters here.
    const app = new App({ outdir: mkdtempSync(path.join(tmpdir(), 'handoff-infra-alarm-')), context: { 'aws:cdk:bundling-stacks': [], emailFrom: EMAIL_FROM, alarmEmail: 'oncall@example.com' } });
    try {
      const withEmail = flatTemplate(new HandoffStack(app, 'WithAlarmEmail'));
      withEmail.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'oncall@example.com' });
    } finally {
      rmSync(app.outdir, { recursive: true, force: true });
    }
  });

  it('throttles the stage, and each route anyone may call more tightly', () => {
    const stage = ofType('AWS::ApiGatewayV2::Stage')[0]![1].Properties;
    expect(stage.DefaultRouteSettings).toMatchObject({ ThrottlingRateLimit: 200, ThrottlingBurstLimit: 400 });
    const publicRoutes = routeList().filter((route) => ['public', 'link', 'share_link'].includes(route.scope));
    expect(Object.keys(stage.RouteSettings).sort()).toEqual(publicRoutes.map(routeKeyOf).sort());
    for (const setting of Object.values(stage.RouteSettings as Record<string, Json>)) expect(setting).toEqual({ ThrottlingRateLimit: 20, ThrottlingBurstLimit: 40 });
  });

  it('reserves no concurrency by default, which any account can deploy; caps delivery concurrency; a 6x visibility timeout', () => {
    const reserved = ofType('AWS::Lambda::Function').filter(([, fn]) => fn.Properties.ReservedConcurrentExecutions !== undefined);
    expect(reserved.map(([id]) => id)).toEqual([]);
    const mapping = ofType('AWS::Lambda::EventSourceMapping').find(([, m]) => m.Properties.FunctionName.Ref === deliverFunctionId())![1].Properties;
    expect(mapping.ScalingConfig).toEqual({ MaximumConcurrency: 16 });
    expect(resources[onlyQueue('DeliveryQueue')]!.Properties.VisibilityTimeout).toBe(6 * resources[deliverFunctionId()]!.Properties.Timeout);
  });
});

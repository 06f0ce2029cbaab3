import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, expect } from 'vitest';
import { ROUTES, routeList, type Route } from '../../lambdas/http/routes.ts';
import { isStaticEntry, SCHEDULING_ROUTES, SIGNING_ROUTES } from '../../lib/api-functions.ts';
import { bundledStack, SYNTH_TIMEOUT } from './synthesised-stack.ts';

/**
 * The bundled test stack as the files in test/infra/bundled-stack/ assert on it (CDK assertions on the
 * synthesised template: named properties, not resource counts), and the functions that read it.
 * The stack is synthesised once per run (synthesised-stack.ts): each file that calls
 * useBundledStack() loads it before its tests, into the bindings below.
 */

export type Json = Record<string, any>;

/** The cloud assembly the functions were bundled into. */
export let outdir: string;
export let template: Template;
export let resources: Record<string, Json>;
/** Resources in the main stack and in each nested stack, by the stack's path. */
export let resourceCounts: Record<string, number>;

export const useBundledStack = () => {
  beforeAll(async () => {
    const stack = await bundledStack();
    outdir = stack.outdir;
    template = Template.fromJSON(stack.template);
    resources = template.toJSON().Resources;
    resourceCounts = stack.resourceCounts;
  }, SYNTH_TIMEOUT);
};

// ---- reading the template -----------------------------------------------------------------------

export const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
export const onlyId = (type: string) => {
  const found = ofType(type);
  expect(found, type).toHaveLength(1);
  return found[0]![0];
};
/** The main table: the one with a stream (the other counts rate windows, lambdas/store/table.ts). */
export const tableId = () => {
  const found = ofType('AWS::DynamoDB::Table').filter(([, t]) => t.Properties.StreamSpecification);
  expect(found).toHaveLength(1);
  return found[0]![0];
};
export const apiId = () => onlyId('AWS::ApiGatewayV2::Api');

export const routeByKey = (routeKey: string) => {
  const found = ofType('AWS::ApiGatewayV2::Route').filter(([, r]) => r.Properties.RouteKey === routeKey);
  expect(found, routeKey).toHaveLength(1);
  return found[0]![1];
};

/** Route key → integration → the function it invokes (logical id). */
export const functionIdOfRoute = (routeKey: string): string => {
  const target = routeByKey(routeKey).Properties.Target;
  const integrationId: string = target['Fn::Join'][1][1].Ref;
  const integration = resources[integrationId]!;
  expect(integration.Type).toBe('AWS::ApiGatewayV2::Integration');
  const uri = integration.Properties.IntegrationUri;
  expect(uri['Fn::GetAtt'][1]).toBe('Arn');
  return uri['Fn::GetAtt'][0];
};

export const routeKeyOf = (route: { method: string; path: string }) => `${route.method} ${route.path}`;

export const roleIdOfFunction = (functionId: string): string => resources[functionId]!.Properties.Role['Fn::GetAtt'][0];

export interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: Json;
}

export const statementsOfRole = (roleId: string): Statement[] =>
  ofType('AWS::IAM::Policy')
    .filter(([, p]) => (p.Properties.Roles as Json[]).some((role) => role.Ref === roleId))
    .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Statement[]);

export const actionsOf = (statement: Statement) => [statement.Action].flat();
export const resourcesOf = (statement: Statement) => [statement.Resource].flat();
export const allStatements = () => ofType('AWS::IAM::Policy').flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Statement[]);

export const fallbackFunctionId = () => functionIdOfRoute('$default');
export const functionIdOf = (route: Route) => functionIdOfRoute(routeKeyOf(route));

/** The rows grouped by handler entry: one function each. */
export const entries = () => [...new Set(routeList().map((route) => route.entry))];
export const rowsOf = (entry: string) => routeList().filter((route) => route.entry === entry);
export const functionIdOfEntry = (entry: string) => functionIdOf(rowsOf(entry)[0]!);
export const staticEntries = () => entries().filter(isStaticEntry);
export const dataEntries = () => entries().filter((entry) => !isStaticEntry(entry));
export const schedulingRoutes = () => routeList().filter((route) => SCHEDULING_ROUTES.includes(route.name));
/** The table's own key (SSE), which table-access.test.ts covers. */
export const tableKeyId = (): string => resources[tableId()]!.Properties.SSESpecification.KMSMasterKeyId['Fn::GetAtt'][0];
/** A KMS key other than the table's, by its spec: the symmetric sealing key, the Ed25519 signing key, the HMAC code key. */
export const kmsKeyIdBySpec = (spec: string | undefined) => {
  const found = ofType('AWS::KMS::Key').filter(([id, key]) => key.Properties.KeySpec === spec && id !== tableKeyId());
  expect(found, `KMS key of spec ${spec}`).toHaveLength(1);
  return found[0]![0];
};
export const sealingKeyId = () => kmsKeyIdBySpec(undefined);
export const signingKeyId = () => kmsKeyIdBySpec('ECC_NIST_EDWARDS25519');
/** The HMAC key the six-digit codes are hashed with. */
export const codeHashKeyId = () => kmsKeyIdBySpec('HMAC_256');
/** The roles of the API functions serving any of `names`. */
export const rolesOfRoutes = (names: readonly string[]) => new Set(routeList().filter((route) => names.includes(route.name)).map((route) => roleIdOfFunction(functionIdOf(route))));
/** A role's statements that name `keyId` as a resource. */
export const statementsOnKey = (roleId: string, keyId: string) =>
  statementsOfRole(roleId).filter((s) => resourcesOf(s).some((r) => JSON.stringify(r) === JSON.stringify(arn(keyId))));
export const signingRoutes = () => routeList().filter((route) => SIGNING_ROUTES.includes(route.name));

/** The worker functions, by their (unique) handler description. */
export const workerFunctionId = (description: RegExp) => {
  const found = ofType('AWS::Lambda::Function').filter(([, fn]) => description.test(fn.Properties.Description));
  expect(found, String(description)).toHaveLength(1);
  return found[0]![0];
};
export const expiryFunctionId = () => workerFunctionId(/^expiry worker/);
export const purgeFunctionId = () => workerFunctionId(/^purge worker/);
export const sweepFunctionId = () => workerFunctionId(/^expiry sweep/);
export const fanOutFunctionId = () => workerFunctionId(/^webhook fan-out/);
export const deliverFunctionId = () => workerFunctionId(/^webhook delivery: /);
export const deliverySweepFunctionId = () => workerFunctionId(/^webhook delivery sweep/);
export const webhookFunctionIds = () => [fanOutFunctionId(), deliverFunctionId(), deliverySweepFunctionId()];
export const ticketCheckFunctionId = () => workerFunctionId(/^ticket check worker/);
export const reconcileFunctionId = () => workerFunctionId(/^ticket reconciliation/);
export const helpdeskFunctionIds = () => [ticketCheckFunctionId(), reconcileFunctionId()];
/** Stores the read records the reading functions log (lib/api-read-records.ts, api-read-records.test.ts). */
export const recorderFunctionId = () => workerFunctionId(/^API read recorder/);
/** The functions that post links in tickets by invoking the ticket check worker (TICKET_REPLY_FUNCTION): those that create requests. */
export const ticketReplyRoutes = () => [ROUTES.createRequest, ROUTES.appCreateRequest, ROUTES.inboundTicketTrigger];
/** The member app's helpdesk connection: one route seals the credentials, the other opens them to read a ticket. */
export const connectHelpdeskRoute = () => ROUTES.appConnectHelpdesk;
export const checkHelpdeskRoute = () => ROUTES.appCheckHelpdesk;
/** The statement grantInvoke gives each of them: the worker, and its qualified ARNs (it publishes no version or alias). */
export const invokesTicketCheck = () => ({
  Effect: 'Allow',
  Action: 'lambda:InvokeFunction',
  Resource: [arn(ticketCheckFunctionId()), { 'Fn::Join': ['', [arn(ticketCheckFunctionId()), ':*']] }],
});
export const scheduleGroupId = () => onlyId('AWS::Scheduler::ScheduleGroup');
export const scheduleGroupName = () => resources[scheduleGroupId()]!.Properties.Name as string;
/** The roles EventBridge Scheduler assumes (trusted by scheduler.amazonaws.com). */
export const schedulerRoles = () =>
  ofType('AWS::IAM::Role').filter(([, role]) => JSON.stringify(role.Properties.AssumeRolePolicyDocument).includes('scheduler.amazonaws.com'));
/** The role the per-request schedules run as: the one SCHEDULER_ROLE_ARN names. */
export const expirySchedulerRoleId = (): string =>
  resources[functionIdOf(schedulingRoutes()[0]!)]!.Properties.Environment.Variables.SCHEDULER_ROLE_ARN['Fn::GetAtt'][0];
export const arn = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });

/** The queue whose logical id starts with the Webhooks construct's id for it. */
export const onlyQueue = (name: string) => {
  const found = ofType('AWS::SQS::Queue').filter(([id]) => id.startsWith(`Webhooks${name}`));
  expect(found, name).toHaveLength(1);
  return found[0]![0];
};
export const mappingOf = (functionId: string) => {
  const found = ofType('AWS::Lambda::EventSourceMapping').filter(([, m]) => m.Properties.FunctionName.Ref === functionId);
  expect(found, functionId).toHaveLength(1);
  return found[0]![1].Properties;
};

/** The queue whose logical id starts with the HelpdeskChecks construct's id for it. */
export const helpdeskQueue = (name: 'TicketCheckQueue' | 'TicketCheckDlq') => {
  const found = ofType('AWS::SQS::Queue').filter(([id]) => id.startsWith(`HelpdeskChecks${name}`));
  expect(found, name).toHaveLength(1);
  return found[0]![0];
};

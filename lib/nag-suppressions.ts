import { Names, Stack, Validations } from 'aws-cdk-lib';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import type { IConstruct } from 'constructs';
import { flattenCfnReference } from 'cdk-nag/lib/utils/flatten-cfn-reference.js';
import { routeList, type Route } from '../lambdas/http/routes.ts';
import { KEY_PUBLISHING_ROUTES, PURGE_SCHEDULING_ROUTES, routeKeyOf, SCHEDULE_CANCELLING_ROUTES, SCHEDULING_ROUTES, SIGNING_ROUTES, TICKET_REPLY_ROUTES } from './api-functions.ts';
import type { HandoffStack } from './handoff-stack.ts';

/**
 * The cdk-nag findings (AwsSolutions and Serverless packs) this stack keeps on purpose, each
 * acknowledged on the one resource it concerns with the reason it stands. IAM5 (wildcard)
 * findings name the exact resource pattern (`AwsSolutions-IAM5[Resource::...]`), never the rule
 * alone. test/infra/nag.test.ts fails on any finding left over, and on any acknowledgment that no
 * longer matches a finding. The table's own grants (lib/table-access.ts) name the table, each
 * queried index and the stream exactly, so they need none.
 */
export const applyNagSuppressions = (stack: HandoffStack) => {
  const functions = functionsOf(stack);
  for (const { fn, invocation } of functions) {
    acknowledge(fn, RUNTIME_RULES, RUNTIME_REASON);
    acknowledge(fn, ['Serverless-LambdaTracing'], TRACING_REASON);
    acknowledge(fn, ['Serverless-LambdaDLQ'], NO_DLQ_REASON[invocation]);
  }
  acknowledgeRouteAuthorization(stack);
  acknowledgeDeadLetters(stack);
  acknowledgeRateTable(stack);
  acknowledgeScopedWildcards(stack, functions);
};

type Invocation = 'api' | 'scheduledWorker' | 'sweep' | 'stream' | 'queue' | 'ticketCheckQueue' | 'reconciliation' | 'logSubscription';

interface StackFunction {
  fn: lambda.IFunction;
  invocation: Invocation;
  /** The route-table rows it serves (API functions only). */
  routes: Route[];
}

const functionsOf = (stack: HandoffStack): StackFunction[] => {
  const api = new Map<lambda.IFunction, Route[]>();
  for (const route of routeList()) {
    const fn = stack.functions.byRoute.get(route.name);
    if (!fn) throw new Error(`route ${route.name} has no function`);
    api.set(fn, [...(api.get(fn) ?? []), route]);
  }
  return [
    ...[...api].map(([fn, routes]) => ({ fn, invocation: 'api' as const, routes })),
    { fn: stack.functions.fallback, invocation: 'api', routes: [] },
    { fn: stack.expiry.expiryFunction, invocation: 'scheduledWorker', routes: [] },
    { fn: stack.expiry.purgeFunction, invocation: 'scheduledWorker', routes: [] },
    { fn: stack.expiry.sweepFunction, invocation: 'sweep', routes: [] },
    { fn: stack.webhooks.sweepFunction, invocation: 'sweep', routes: [] },
    { fn: stack.webhooks.fanOutFunction, invocation: 'stream', routes: [] },
    { fn: stack.webhooks.deliverFunction, invocation: 'queue', routes: [] },
    { fn: stack.helpdeskChecks.checkFunction, invocation: 'ticketCheckQueue', routes: [] },
    { fn: stack.helpdeskChecks.reconcileFunction, invocation: 'reconciliation', routes: [] },
    { fn: stack.apiReadRecords.recorderFunction, invocation: 'logSubscription', routes: [] },
  ];
};

const acknowledge = (scope: IConstruct, ids: readonly string[], reason: string) => {
  for (const id of ids) Validations.of(scope).acknowledge({ id, reason });
};

/** The finding id of an IAM5 wildcard on `resource` (an ARN, tokens allowed), as cdk-nag writes it. */
const wildcardOn = (stack: Stack, resource: string) => `AwsSolutions-IAM5[Resource::${flattenCfnReference(stack.resolve(resource))}]`;

/**
 * The finding id of an IAM5 wildcard on `target`'s qualified ARNs (`<function ARN>:*`, what
 * grantInvoke adds for versions and aliases) in a policy of `consumer`'s stack. In the target's own
 * stack the ARN is its GetAtt; a nested stack receives it as the parameter CDK names
 * `reference-to-<the target's unique id>Arn` when it resolves cross-stack references at synth.
 */
const invokeWildcardOn = (consumer: IConstruct, target: lambda.IFunction) => {
  const consumerStack = Stack.of(consumer);
  const targetStack = Stack.of(target);
  if (consumerStack === targetStack) return wildcardOn(targetStack, `${target.functionArn}:*`);
  if (consumerStack.nestedStackParent !== targetStack) throw new Error(`${consumer.node.path}: a wildcard on ${target.node.path} from a stack that is not nested in its own`);
  const resource = target.node.defaultChild;
  if (!resource) throw new Error(`${target.node.path} has no resource`);
  return `AwsSolutions-IAM5[Resource::<referenceto${Names.nodeUniqueId(resource.node)}Arn>:*]`;
};

const roleOf = (fn: lambda.IFunction) => {
  if (!fn.role) throw new Error(`${fn.node.path} has no role`);
  return fn.role;
};

// ---- functions ----------------------------------------------------------------------------------

const RUNTIME_RULES = ['AwsSolutions-L1', 'Serverless-LambdaLatestVersion'];
const RUNTIME_REASON =
  'nodejs22.x is a supported LTS runtime (deprecated April 2027) and the bundles target it; moving to nodejs24.x is an upgrade of its own (build target, the SDK the runtime ships), made and tested on purpose';

const TRACING_REASON =
  'HTTP APIs emit no X-Ray segments, so a trace would show only this function, whose duration and errors its REPORT lines, metrics and alarms already give; active tracing would add xray:Put* on Resource::* to every role';

const NO_DLQ_REASON: Record<Invocation, string> = {
  api: 'Invoked synchronously by API Gateway: a failure is answered to the caller at once; a dead-letter queue only receives failed asynchronous invocations',
  scheduledWorker:
    'A failed expiry or purge run raises an alarm, and the five-minute sweep finds the due request in the table and settles it; a dead-letter queue would only hold a request id the sweep already has',
  sweep: 'A failed sweep raises an alarm, and the next run five minutes later redoes the whole sweep from the table',
  stream: 'Invoked by the table stream mapping, whose on-failure destination is the fan-out DLQ (after bisecting and 10 retries); a function DLQ applies only to asynchronous invocations',
  queue: "Invoked by the delivery queue mapping; a message failed 5 times moves to the delivery DLQ by the queue's redrive policy",
  ticketCheckQueue:
    "Invoked by the ticket-check queue mapping (a message failed 5 times moves to the ticket-check DLQ by the queue's redrive policy, and the two-minute reconciliation reads the live linked tickets again anyway) and synchronously by the functions that create requests, to post a link, whose failure is answered to them; a dead-letter queue only receives failed asynchronous invocations",
  reconciliation: 'A failed reconciliation raises an alarm, and the next run two minutes later reads the live linked tickets again from the table and their helpdesks',
  logSubscription:
    "Invoked asynchronously by CloudWatch Logs: a delivery still failing after two retries goes to the recorder's on-failure destination (the recorder DLQ, with an alarm), which carries the error beside the delivery; a function DLQ would be a second copy without it",
};

// ---- routes -------------------------------------------------------------------------------------

/** Why a route has no API Gateway authorizer: its handler authenticates the caller itself (SPEC.md), by the route's scope. */
const authorizationReason = (scope: Route['scope'] | 'fallback'): string => {
  switch (scope) {
    case 'link':
      return 'Authenticated by the subject link token (X-Link-Token), which the handler checks against its stored hash; an authorizer cannot read the request store';
    case 'share_link':
      return 'Authenticated by the share link token, which the handler checks against its stored hash; an authorizer cannot read the share store';
    case 'session':
      return 'Authenticated by the member session cookie and its CSRF token, which the handler checks against the stored session hash';
    case 'url_secret':
      return 'Authenticated by the secret in the inbound URL (kept as a hash) and the integration header or signature, which the handler checks';
    case 'public':
      return 'Public by design (sign-in, the session exchange, the JWKS, the pages): nothing to authorize; the route is throttled more tightly than the stage';
    case 'fallback':
      return 'Answers unmatched paths with 404 or 405 and touches nothing';
    default:
      return 'Authenticated by an organisation API key (Bearer), which the handler checks by hash with its scopes, expiry and IP allowlist (SPEC Authentication)';
  }
};

const acknowledgeRouteAuthorization = (stack: HandoffStack) => {
  const scopeByKey = new Map<string, Route['scope'] | 'fallback'>(routeList().map((route) => [routeKeyOf(route), route.scope]));
  scopeByKey.set('$default', 'fallback');
  for (const route of stack.functions.node.findAll().filter((child): child is apigwv2.CfnRoute => child instanceof apigwv2.CfnRoute)) {
    const scope = scopeByKey.get(route.routeKey);
    if (!scope) throw new Error(`${route.node.path}: route ${route.routeKey} is not in the route table`);
    acknowledge(route, ['AwsSolutions-APIG4'], authorizationReason(scope));
  }
};

// ---- dead letters (queues, the alarm email) -------------------------------------------------------------------------------------

/** The rate windows' table keeps counters of the current and the last minute: nothing to recover. */
const acknowledgeRateTable = (stack: HandoffStack) => {
  acknowledge(stack.table.rateTable, ['AwsSolutions-DDB3'], 'Rate-limit counters of the current and the previous minute, expired by TTL: there is nothing a point-in-time restore could bring back');
};

const acknowledgeDeadLetters = (stack: HandoffStack) => {
  const { fanOutDlq, deliveryDlq, deliverFunction } = stack.webhooks;
  acknowledge(fanOutDlq, ['AwsSolutions-SQS3'], 'This queue is a DLQ: the on-failure destination of the fan-out stream mapping, which the rule does not recognise as one');
  for (const dlq of [fanOutDlq, deliveryDlq]) {
    acknowledge(dlq, ['Serverless-SQSRedrivePolicy'], 'A dead-letter queue itself: its messages stay 14 days and the first one raises an alarm; a DLQ of a DLQ adds nothing');
  }
  // The alarm email (context alarmEmail), when there is one.
  for (const subscription of stack.operations.topic.node.findAll().filter((child) => child instanceof sns.Subscription)) {
    acknowledge(
      subscription,
      ['Serverless-SNSRedrivePolicy'],
      'An alarm email SNS cannot deliver has no better place to go: a DLQ would need an alarm of its own, notifying this same topic; the alarm state stays in CloudWatch',
    );
  }
  const mappings = deliverFunction.node.children.filter((child) => child instanceof lambda.EventSourceMapping);
  if (mappings.length === 0) throw new Error('the delivery function has no event source mapping');
  // One mapping per delivery lane (core/delivery-lanes.ts).
  for (const mapping of mappings) {
    acknowledge(
      mapping,
      ['Serverless-LambdaEventSourceMappingDestination'],
      "SQS event source mappings take no on-failure destination: a message failed 5 times moves to the delivery DLQ by the queue's redrive policy",
    );
  }
  // The read records' recorder (lib/api-read-records.ts): its DLQ is an on-failure destination, as the fan-out's.
  const recorderDlq = stack.apiReadRecords.dlq;
  acknowledge(recorderDlq, ['AwsSolutions-SQS3'], "This queue is a DLQ: the on-failure destination of the API read recorder's asynchronous invocations, which the rule does not recognise as one");
  acknowledge(
    recorderDlq,
    ['Serverless-SQSRedrivePolicy'],
    "A dead-letter queue itself: its messages stay 14 days and the first one raises an alarm (the lines stay in the reading functions' log groups too); a DLQ of a DLQ adds nothing",
  );
  // The ticket-check queue (lib/helpdesk-checks.ts): its DLQ, and the worker's mapping, as the delivery lanes'.
  const { dlq: ticketCheckDlq, checkFunction } = stack.helpdeskChecks;
  acknowledge(
    ticketCheckDlq,
    ['Serverless-SQSRedrivePolicy'],
    'A dead-letter queue itself: its messages stay 14 days, and the two-minute reconciliation reads the live linked tickets again, so a check that ends here is made good; a DLQ of a DLQ adds nothing',
  );
  const checkMappings = checkFunction.node.children.filter((child) => child instanceof lambda.EventSourceMapping);
  if (checkMappings.length === 0) throw new Error('the ticket check function has no event source mapping');
  for (const mapping of checkMappings) {
    acknowledge(
      mapping,
      ['Serverless-LambdaEventSourceMappingDestination'],
      "SQS event source mappings take no on-failure destination: a message failed 5 times moves to the ticket-check DLQ by the queue's redrive policy",
    );
  }
};

// ---- IAM wildcards that name a pattern on purpose -------------------------------------------------

const EXPIRY_SCHEDULES_REASON = "One schedule per request, named expire-<request id> at run time: only the name prefix in the stack's own schedule group can be named in advance";
const PURGE_SCHEDULES_REASON = "One schedule per closed ticket, named purge-<request id> at run time: only the name prefix in the stack's own schedule group can be named in advance";

const acknowledgeScopedWildcards = (stack: HandoffStack, functions: StackFunction[]) => {
  const sesIdentities = wildcardOn(stack, stack.formatArn({ service: 'ses', resource: 'identity', resourceName: '*' }));
  const expirySchedules = wildcardOn(stack, stack.expiry.expirySchedulesArn);
  const purgeSchedules = wildcardOn(stack, stack.expiry.purgeSchedulesArn);
  const taggedKeys = wildcardOn(stack, stack.formatArn({ service: 'kms', resource: 'key', resourceName: '*' }));

  for (const { fn, routes } of functions) {
    const role = roleOf(fn);
    const names = new Set(routes.map((route) => route.name));
    const sends = new Set(routes.flatMap((route) => route.sends ?? []));
    if (sends.has('email')) {
      acknowledge(role, [sesIdentities], 'The ses:FromAddress condition pins the sender to EMAIL_FROM_ADDRESS; in the SES sandbox recipient identities are authorised against this policy too, so no identity list can be named');
    }
    if (sends.has('sms')) {
      acknowledge(role, ['AwsSolutions-IAM5[Resource::*]'], 'SMS is sns:Publish straight to a phone number, which has no resource ARN (SNS requires "*" for it); a Deny of sns:Publish on every topic ARN in the same role leaves direct SMS as the only publish allowed');
    }
    if ([...SCHEDULING_ROUTES, ...SCHEDULE_CANCELLING_ROUTES].some((name) => names.has(name))) {
      acknowledge(role, [expirySchedules], EXPIRY_SCHEDULES_REASON);
    }
    if (PURGE_SCHEDULING_ROUTES.some((name) => names.has(name))) {
      acknowledge(role, [purgeSchedules], PURGE_SCHEDULES_REASON);
    }
    if ([...SIGNING_ROUTES, ...KEY_PUBLISHING_ROUTES].some((name) => names.has(name))) {
      acknowledge(
        role,
        [taggedKeys],
        "Limited by an aws:ResourceTag condition to this stack's signing keys, including those rotate-signing-key makes after the deploy, which no ARN can name in advance",
      );
    }
    if (TICKET_REPLY_ROUTES.some((name) => names.has(name))) {
      const { checkFunction } = stack.helpdeskChecks;
      acknowledge(
        role,
        [invokeWildcardOn(role, checkFunction)],
        'lambda:InvokeFunction on the ticket check worker (a reply in a ticket), as grantInvoke writes it: the function and its qualified ARNs; the worker publishes no version or alias, so the pattern reaches only its own code',
      );
    }
  }
  // The helpdesk workers apply verified ticket statuses, which arm and cancel the same schedules (lib/helpdesk-checks.ts).
  for (const fn of [stack.helpdeskChecks.checkFunction, stack.helpdeskChecks.reconcileFunction]) {
    acknowledge(roleOf(fn), [expirySchedules], EXPIRY_SCHEDULES_REASON);
    acknowledge(roleOf(fn), [purgeSchedules], PURGE_SCHEDULES_REASON);
  }
};

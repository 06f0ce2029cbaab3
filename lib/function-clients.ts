import { tableAccessOfEntry, touchesTable } from '../lambdas/access/table-access.ts';
import { routeList, type Route } from '../lambdas/http/routes.ts';
import {
  CODE_HASH_ROUTES,
  HELPDESK_OPENING_ROUTES,
  HELPDESK_SEALING_ROUTES,
  INTEGRATION_SEALING_ROUTES,
  KEY_PUBLISHING_ROUTES,
  PURGE_SCHEDULING_ROUTES,
  SCHEDULE_CANCELLING_ROUTES,
  SCHEDULING_ROUTES,
  SEALED_SECRET_ROUTES,
  SIGNING_ROUTES,
  TICKET_CHECK_ROUTES,
  TICKET_REPLY_ROUTES,
  WEBHOOK_SEALING_ROUTES,
} from './api-functions.ts';
import { API_READ_RECORDER_ENTRY } from './api-read-records.ts';
import { EXPIRE_ENTRY, PURGE_ENTRY, SWEEP_ENTRY } from './expiry.ts';
import { RECONCILE_ENTRY, TICKET_CHECK_ENTRY } from './helpdesk-checks.ts';
import { DELIVER_ENTRY, DELIVERY_SWEEP_ENTRY, FAN_OUT_ENTRY } from './webhooks.ts';

/**
 * The AWS SDK packages each function's code calls, as the stack's grants say: what its bundle
 * should import, no more (each client is tens of milliseconds of a cold start), and what the
 * bench's per-function cold-start baseline holds. bundle-budget.test.ts holds every bundle to it,
 * and the stack test holds it to the synthesised roles.
 */

/** The DynamoDB document client: two packages. */
export const DYNAMODB_CLIENTS = ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb'] as const;
const KMS = '@aws-sdk/client-kms';
const LAMBDA = '@aws-sdk/client-lambda';
const SCHEDULER = '@aws-sdk/client-scheduler';
const SES = '@aws-sdk/client-sesv2';
const SNS = '@aws-sdk/client-sns';
const SQS = '@aws-sdk/client-sqs';

/** The routes whose functions use a KMS key: sealing or opening secrets, hashing codes, signing or publishing certificate keys. */
const KMS_ROUTES = [
  ...SEALED_SECRET_ROUTES,
  ...WEBHOOK_SEALING_ROUTES,
  ...INTEGRATION_SEALING_ROUTES,
  ...HELPDESK_SEALING_ROUTES,
  ...HELPDESK_OPENING_ROUTES,
  ...CODE_HASH_ROUTES,
  ...SIGNING_ROUTES,
  ...KEY_PUBLISHING_ROUTES,
];

/** An API function's services besides DynamoDB, from the route lists and `sends` the stack grants rights by (lib/api-functions.ts). */
const servicesOfRoutes = (routes: Route[]): string[] => {
  const any = (names: readonly string[]) => routes.some((route) => names.includes(route.name));
  const sends = (channel: 'email' | 'sms') => routes.some((route) => route.sends?.includes(channel));
  return [
    ...(any(KMS_ROUTES) ? [KMS] : []),
    ...(any(TICKET_REPLY_ROUTES) ? [LAMBDA] : []),
    ...(any(SCHEDULING_ROUTES) || any(SCHEDULE_CANCELLING_ROUTES) || any(PURGE_SCHEDULING_ROUTES) ? [SCHEDULER] : []),
    ...(sends('email') ? [SES] : []),
    ...(sends('sms') ? [SNS] : []),
    ...(any(TICKET_CHECK_ROUTES) ? [SQS] : []),
  ];
};

/** The workers' services besides DynamoDB (each uses the table), as their constructs grant them. */
const WORKER_SERVICES: Readonly<Record<string, readonly string[]>> = {
  [EXPIRE_ENTRY]: [],
  // The ticket-check queue (lib/handoff-stack.ts).
  [PURGE_ENTRY]: [SQS],
  [SWEEP_ENTRY]: [SQS],
  // The delivery lanes' queues (lib/webhooks.ts); only the delivery worker opens signing secrets.
  [FAN_OUT_ENTRY]: [SQS],
  [DELIVER_ENTRY]: [KMS, SQS],
  [DELIVERY_SWEEP_ENTRY]: [SQS],
  // Helpdesk credentials opened, statuses applied with their schedules, the check worker's retries queued (lib/helpdesk-checks.ts).
  [TICKET_CHECK_ENTRY]: [KMS, SCHEDULER, SQS],
  [RECONCILE_ENTRY]: [KMS, SCHEDULER],
  [API_READ_RECORDER_ENTRY]: [],
};

/** The SDK packages the function of a handler entry calls, sorted; none for a function without a table or a grant (the pages, the fallback, openapi). */
export const sdkClientsOfEntry = (entry: string): string[] => {
  const worker = WORKER_SERVICES[entry];
  if (worker) return [...DYNAMODB_CLIENTS, ...worker].sort();
  const routes = routeList().filter((route) => route.entry === entry);
  const table = touchesTable(tableAccessOfEntry(entry));
  return [...(table ? DYNAMODB_CLIENTS : []), ...servicesOfRoutes(routes)].sort();
};

import { describe, expect, it } from 'vitest';
import {
  KEY_PUBLISHING_ROUTES,
  PURGE_SCHEDULING_ROUTES,
  SCHEDULE_CANCELLING_ROUTES,
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
} from '../../../lib/api-functions.ts';
import { EMAIL_FROM } from '../../support/synthesised-stack.ts';
import {
  resources,
  useBundledStack,
  apiId,
  arn,
  checkHelpdeskRoute,
  codeHashKeyId,
  connectHelpdeskRoute,
  dataEntries,
  deliverFunctionId,
  entries,
  expiryFunctionId,
  expirySchedulerRoleId,
  fallbackFunctionId,
  functionIdOfEntry,
  helpdeskFunctionIds,
  helpdeskQueue,
  ofType,
  onlyQueue,
  purgeFunctionId,
  reconcileFunctionId,
  recorderFunctionId,
  roleIdOfFunction,
  routeKeyOf,
  rowsOf,
  scheduleGroupName,
  sealingKeyId,
  signingKeyId,
  staticEntries,
  sweepFunctionId,
  tableId,
  ticketCheckFunctionId,
  ticketReplyRoutes,
  webhookFunctionIds,
} from '../../support/stack-template.ts';

/**
 * The functions of the bundled test stack (test/support/stack-template.ts): one per handler entry
 * and worker, their runtime, logs, environment and timeouts.
 */

useBundledStack();

const ticketCheckQueueUrl = () => ({ TICKET_CHECK_QUEUE_URL: { Ref: helpdeskQueue('TicketCheckQueue') } });

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
        ...(has(SCHEDULING_ROUTES) || has(SCHEDULE_CANCELLING_ROUTES) ? schedulingEnvironment() : {}),
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

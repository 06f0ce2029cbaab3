import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, TICKET_CHECK_ROUTES } from '../../../lib/api-functions.ts';
import { RECONCILE_ENTRY, TICKET_CHECK_ENTRY } from '../../../lib/helpdesk-checks.ts';
import { dlqAlarmOn } from '../../support/alarm-shape.ts';
import {
  resources,
  useBundledStack,
  type Json,
  actionsOf,
  allStatements,
  arn,
  checkHelpdeskRoute,
  connectHelpdeskRoute,
  expirySchedulerRoleId,
  functionIdOf,
  helpdeskFunctionIds,
  helpdeskQueue,
  invokesTicketCheck,
  mappingOf,
  ofType,
  onlyId,
  onlyQueue,
  purgeFunctionId,
  reconcileFunctionId,
  recorderFunctionId,
  resourcesOf,
  roleIdOfFunction,
  rolesOfRoutes,
  scheduleGroupName,
  schedulerRoles,
  sealingKeyId,
  statementsOfRole,
  statementsOnKey,
  sweepFunctionId,
  ticketCheckFunctionId,
  ticketReplyRoutes,
} from '../../support/stack-template.ts';

/**
 * The helpdesk checks of the bundled test stack (test/support/stack-template.ts): the ticket-check
 * queue and worker, the reconciliation, their rights and alarms.
 */

useBundledStack();

describe('helpdesk checks', () => {
  const checkRole = () => roleIdOfFunction(ticketCheckFunctionId());
  const reconcileRole = () => roleIdOfFunction(reconcileFunctionId());
  /** What grantSendMessages gives: send, and the two reads the SDK may make first. */
  const sends = (queueId: string) => ({ Effect: 'Allow', Action: ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'], Resource: arn(queueId) });
  /** What an SQS event source gives its function. */
  const consumes = (queueId: string) => ({
    Effect: 'Allow',
    Action: ['sqs:ReceiveMessage', 'sqs:ChangeMessageVisibility', 'sqs:GetQueueUrl', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'],
    Resource: arn(queueId),
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
      RedrivePolicy: { deadLetterTargetArn: arn(helpdeskQueue('TicketCheckDlq')), maxReceiveCount: 5 },
      SqsManagedSseEnabled: true,
      VisibilityTimeout: 6 * resources[ticketCheckFunctionId()]!.Properties.Timeout,
    });
    expect(resources[helpdeskQueue('TicketCheckDlq')]!.Properties).toEqual({ MessageRetentionPeriod: 14 * 24 * 3600, SqsManagedSseEnabled: true });
    for (const name of ['TicketCheckQueue', 'TicketCheckDlq'] as const) {
      const policies = ofType('AWS::SQS::QueuePolicy').filter(([, p]) => (p.Properties.Queues as Json[]).some((q) => q.Ref === helpdeskQueue(name)));
      expect(policies, name).toHaveLength(1);
      expect(policies[0]![1].Properties.PolicyDocument.Statement, name).toEqual([
        { Action: 'sqs:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } }, Effect: 'Deny', Principal: { AWS: '*' }, Resource: arn(helpdeskQueue(name)) },
      ]);
    }
  });

  it('feeds the ticket check worker from the queue, five at a time at most, reporting batch item failures; nothing else reads the queue', () => {
    expect(mappingOf(ticketCheckFunctionId())).toEqual({
      BatchSize: 5,
      EventSourceArn: arn(helpdeskQueue('TicketCheckQueue')),
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

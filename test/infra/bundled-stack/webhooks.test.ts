import { describe, expect, it } from 'vitest';
import {
  resources,
  useBundledStack,
  type Json,
  actionsOf,
  arn,
  deliverFunctionId,
  deliverySweepFunctionId,
  fanOutFunctionId,
  helpdeskQueue,
  mappingOf,
  ofType,
  onlyQueue,
  resourcesOf,
  roleIdOfFunction,
  statementsOfRole,
  tableId,
  ticketCheckFunctionId,
  webhookFunctionIds,
} from '../../support/stack-template.ts';

/**
 * The webhooks of the bundled test stack (test/support/stack-template.ts): the fan-out from the
 * table stream, the delivery lanes, their DLQs and rights.
 */

useBundledStack();

describe('webhooks', () => {
  it('feeds the fan-out from the table stream, filtered to new audit items, with batch item failures, bisection, bounded retries and a DLQ', () => {
    const mapping = mappingOf(fanOutFunctionId());
    expect(mapping.EventSourceArn).toEqual({ 'Fn::GetAtt': [tableId(), 'StreamArn'] });
    expect(mapping.FilterCriteria.Filters.map((f: Json) => JSON.parse(f.Pattern))).toEqual([
      { eventName: ['INSERT'], dynamodb: { Keys: { pk: { S: [{ prefix: 'AUDIT#' }] }, sk: { S: [{ prefix: 'SEQ#' }] } } } },
    ]);
    expect(mapping).toMatchObject({
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: true,
      StartingPosition: 'TRIM_HORIZON',
      DestinationConfig: { OnFailure: { Destination: arn(onlyQueue('FanOutDlq')) } },
    });
    expect(mapping.BatchSize).toBeGreaterThan(0);
    expect(mapping.MaximumRetryAttempts).toBeGreaterThan(0);
    expect(mapping.MaximumRetryAttempts).toBeLessThanOrEqual(10);
  });

  it('feeds the delivery worker from both lanes, each under a concurrency of its own, reporting batch item failures', () => {
    const mappings = ofType('AWS::Lambda::EventSourceMapping')
      .filter(([, m]) => m.Properties.FunctionName.Ref === deliverFunctionId())
      .map(([, m]) => m.Properties);
    expect(mappings.map((m) => m.EventSourceArn)).toEqual([arn(onlyQueue('DeliveryQueue')), arn(onlyQueue('SlowDeliveryQueue'))]);
    for (const mapping of mappings) {
      expect(mapping).toMatchObject({ FunctionResponseTypes: ['ReportBatchItemFailures'], ScalingConfig: { MaximumConcurrency: 16 } });
    }
  });

  it('gives the delivery queues a visibility timeout above the worker timeout and a DLQ after a few receives', () => {
    for (const name of ['DeliveryQueue', 'SlowDeliveryQueue']) {
      const queue = resources[onlyQueue(name)]!.Properties;
      expect(queue.VisibilityTimeout, name).toBeGreaterThan(resources[deliverFunctionId()]!.Properties.Timeout);
      expect(queue.RedrivePolicy, name).toEqual({ deadLetterTargetArn: arn(onlyQueue('DeliveryDlq')), maxReceiveCount: 5 });
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
    const deliveryQueue = arn(onlyQueue('DeliveryQueue'));
    const byJson = (a: unknown, b: unknown) => JSON.stringify(a).localeCompare(JSON.stringify(b));
    for (const [roleId] of ofType('AWS::IAM::Role')) {
      const statements = statementsOfRole(roleId);
      const stream = statements.filter((s) => JSON.stringify(resourcesOf(s)).includes('StreamArn'));
      expect(stream.length > 0, roleId).toBe(roleId === roleIdOfFunction(fanOutFunctionId()));
      const receive = statements.filter((s) => actionsOf(s).includes('sqs:ReceiveMessage'));
      // The delivery worker consumes both lanes; the ticket check worker its own queue (helpdesk checks); no one else consumes any queue.
      const consumed =
        roleId === roleIdOfFunction(deliverFunctionId())
          ? [deliveryQueue, arn(onlyQueue('SlowDeliveryQueue'))]
          : roleId === roleIdOfFunction(ticketCheckFunctionId())
            ? [arn(helpdeskQueue('TicketCheckQueue'))]
            : [];
      expect(receive.flatMap(resourcesOf).sort(byJson), roleId).toEqual(consumed.sort(byJson));
      for (const statement of statements.filter((s) => actionsOf(s).some((a) => a.startsWith('sqs:')))) {
        expect(resourcesOf(statement)).not.toContain('*');
      }
    }
    for (const id of webhookFunctionIds()) {
      const sends = statementsOfRole(roleIdOfFunction(id)).filter((s) => actionsOf(s).includes('sqs:SendMessage'));
      expect(sends.flatMap(resourcesOf), id).toContainEqual(deliveryQueue);
      expect(sends.flatMap(resourcesOf), id).toContainEqual(arn(onlyQueue('SlowDeliveryQueue')));
      const actions = statementsOfRole(roleIdOfFunction(id)).flatMap(actionsOf);
      expect(actions.filter((a) => /^(ses|sns|scheduler|iam|lambda):/.test(a)), id).toEqual([]);
    }
    const fanOutSends = statementsOfRole(roleIdOfFunction(fanOutFunctionId())).filter((s) => actionsOf(s).includes('sqs:SendMessage'));
    expect(fanOutSends.flatMap(resourcesOf)).toContainEqual(arn(onlyQueue('FanOutDlq')));
  });
});

import { Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { handlerFunction, type AppEnvironment } from './api-functions.ts';
import { dlqAlarm } from './dlq-alarm.ts';
import { tableAccessOfWorker } from '../lambdas/access/table-access.ts';
import { AUDIT_ENTRY_PREFIX, AUDIT_PARTITION_PREFIX } from '../lambdas/store/keys.ts';
import type { TableAccessGranter } from './table-access.ts';
import { schedulerRole } from './expiry.ts';
import { WEBHOOK_SIGNING_PURPOSE } from '../lambdas/core/webhooks.ts';
import { DELIVERY_BATCH_SIZE } from '../lambdas/core/delivery-lanes.ts';

export const FAN_OUT_ENTRY = 'lambdas/workers/fan-out.ts';
export const DELIVER_ENTRY = 'lambdas/workers/deliver.ts';
export const DELIVERY_SWEEP_ENTRY = 'lambdas/workers/delivery-sweep.ts';
export const DELIVERY_SWEEP_RATE = 'rate(5 minutes)';
/** Each POST may take 10 s; a batch of deliveries runs in parallel. */
const DELIVER_TIMEOUT = Duration.seconds(60);
/** Delivery workers at once in each lane (core/delivery-lanes.ts; the local runtime delivers 16 at a time in each too). */
export const DELIVERY_CONCURRENCY = 16;

export interface WebhooksProps {
  table: dynamodb.ITable;
  /** Each worker's table rights (the fan-out's stream included), from its declaration (lambdas/access/table-access.ts). */
  tableAccess: TableAccessGranter;
  appEnvironment: AppEnvironment;
  /** The key that seals webhook signing secrets: the delivery worker alone may open them (SEALING_KEY_ID and kms:Decrypt for webhook_signing). */
  sealing: { readonly environment: Readonly<Record<string, string>>; grantOpen(fn: lambda.IFunction, purpose: typeof WEBHOOK_SIGNING_PURPOSE): void };
  logRetention?: logs.RetentionDays;
  /** Reserve one execution for the delivery sweep, so that it runs alone (lib/handoff-stack.ts, reservedConcurrency). */
  reserveConcurrency?: boolean;
}

/**
 * Outbound webhooks, deployed (DESIGN.md, Decisions: outbound webhooks):
 *
 * - the fan-out, on the table's stream (keys only) through an event source mapping FILTERED to
 *   new audit entries (`eventName` INSERT, `Keys.pk` AUDIT#..., `Keys.sk` SEQ#...), reporting batch item failures,
 *   bisecting a failing batch, a bounded number of retries, then the record to its own DLQ;
 * - the delivery queues of the two lanes (SQS, visibility timeout above the worker's timeout) with
 *   their DLQ, each feeding the delivery worker under its own concurrency, which reports batch item
 *   failures (core/delivery-lanes.ts);
 * - the delivery sweep every five minutes (EventBridge Scheduler, default group, a role that may
 *   only invoke it) for deliveries whose message was lost;
 * - an alarm on each DLQ as soon as it holds a message.
 *
 * Grants, least privilege: each of the three functions gets the table rights its declaration
 * names (lambdas/access/table-access.ts) and may send to the delivery queue; only the fan-out
 * reads this table's stream; the delivery worker consumes only its queue.
 */
export class Webhooks extends Construct {
  readonly fanOutFunction: NodejsFunction;
  readonly deliverFunction: NodejsFunction;
  readonly sweepFunction: NodejsFunction;
  readonly deliveryQueue: sqs.Queue;
  /** The slow lane: deliveries to receivers that did not answer within the fast lane's budget. */
  readonly slowDeliveryQueue: sqs.Queue;
  readonly deliveryDlq: sqs.Queue;
  readonly fanOutDlq: sqs.Queue;
  readonly fanOutMapping: lambda.EventSourceMapping;
  readonly sweepSchedule: scheduler.CfnSchedule;
  readonly alarms: cloudwatch.Alarm[];

  constructor(scope: Construct, id: string, props: WebhooksProps) {
    super(scope, id);
    const retention = props.logRetention ?? logs.RetentionDays.ONE_MONTH;
    const queueDefaults = { encryption: sqs.QueueEncryption.SQS_MANAGED, enforceSSL: true };

    this.fanOutDlq = new sqs.Queue(this, 'FanOutDlq', { ...queueDefaults, retentionPeriod: Duration.days(14) });
    this.deliveryDlq = new sqs.Queue(this, 'DeliveryDlq', { ...queueDefaults, retentionPeriod: Duration.days(14) });
    const deliveryQueueProps = {
      ...queueDefaults,
      // Six times the worker's timeout, as AWS advises for a Lambda event source (retries and batching).
      visibilityTimeout: Duration.seconds(DELIVER_TIMEOUT.toSeconds() * 6),
      retentionPeriod: Duration.days(4),
      deadLetterQueue: { queue: this.deliveryDlq, maxReceiveCount: 5 },
    };
    this.deliveryQueue = new sqs.Queue(this, 'DeliveryQueue', deliveryQueueProps);
    this.slowDeliveryQueue = new sqs.Queue(this, 'SlowDeliveryQueue', deliveryQueueProps);

    const environment = {
      TABLE_NAME: props.table.tableName,
      ...props.appEnvironment,
      DELIVERY_QUEUE_URL: this.deliveryQueue.queueUrl,
      SLOW_DELIVERY_QUEUE_URL: this.slowDeliveryQueue.queueUrl,
      LOG_LEVEL: 'INFO',
      POWERTOOLS_SERVICE_NAME: 'credential-handoff',
    };
    this.fanOutFunction = handlerFunction(new Construct(this, 'FanOut'), {
      entry: FAN_OUT_ENTRY,
      description: 'webhook fan-out: one delivery per subscription for each new audit event',
      retention,
      environment,
      timeout: Duration.seconds(60),
    });
    this.deliverFunction = handlerFunction(new Construct(this, 'Deliver'), {
      entry: DELIVER_ENTRY,
      description: 'webhook delivery: signs and POSTs one event to one subscription',
      retention,
      environment: { ...environment, ...props.sealing.environment },
      timeout: DELIVER_TIMEOUT,
    });
    this.sweepFunction = handlerFunction(new Construct(this, 'Sweep'), {
      entry: DELIVERY_SWEEP_ENTRY,
      description: 'webhook delivery sweep: re-enqueues deliveries whose message was lost',
      retention,
      environment,
      timeout: Duration.minutes(2),
      // Unreserved, two sweeps may overlap: a delivery enqueued twice is harmless, as the worker claims it.
      reservedConcurrency: props.reserveConcurrency ? 1 : undefined,
    });
    props.tableAccess.grantAccess(this.fanOutFunction, tableAccessOfWorker('fanOut'));
    props.tableAccess.grantAccess(this.deliverFunction, tableAccessOfWorker('deliver'));
    props.tableAccess.grantAccess(this.sweepFunction, tableAccessOfWorker('deliverySweep'));
    for (const fn of [this.fanOutFunction, this.deliverFunction, this.sweepFunction]) {
      this.deliveryQueue.grantSendMessages(fn);
      this.slowDeliveryQueue.grantSendMessages(fn);
    }
    // Signing is the delivery worker's alone: the fan-out and the sweep read subscriptions but never open their secrets.
    props.sealing.grantOpen(this.deliverFunction, WEBHOOK_SIGNING_PURPOSE);

    // The stream, read by the fan-out only (its declaration's stream rights, on this table's stream ARN).
    const streamArn = props.table.tableStreamArn;
    if (!streamArn) throw new Error('the table has no stream: the webhook fan-out needs one');
    this.fanOutMapping = new lambda.EventSourceMapping(this, 'FanOutMapping', {
      target: this.fanOutFunction,
      eventSourceArn: streamArn,
      startingPosition: lambda.StartingPosition.TRIM_HORIZON,
      batchSize: 25,
      maxBatchingWindow: Duration.seconds(1),
      bisectBatchOnError: true,
      retryAttempts: 10,
      maxRecordAge: Duration.hours(24),
      reportBatchItemFailures: true,
      onFailure: new SqsDlq(this.fanOutDlq),
      filters: [
        lambda.FilterCriteria.filter({
          eventName: lambda.FilterRule.isEqual('INSERT'),
          // The stream holds keys only (lambdas/store/table.ts): an entry, not the chain's head.
          dynamodb: { Keys: { pk: { S: lambda.FilterRule.beginsWith(AUDIT_PARTITION_PREFIX) }, sk: { S: lambda.FilterRule.beginsWith(AUDIT_ENTRY_PREFIX) } } },
        }),
      ],
    });
    // SqsDlq binds through the mapping's target: the fan-out may send to its DLQ.
    this.fanOutDlq.grantSendMessages(this.fanOutFunction);

    // At most DELIVERY_CONCURRENCY workers at once in each lane, as locally: a burst of events never
    // floods the receivers or the account, and slow receivers never take the fast lane's workers
    // (a fast-lane attempt ends at its 2-second budget; the slow lane has the full 10 seconds).
    for (const queue of [this.deliveryQueue, this.slowDeliveryQueue]) {
      this.deliverFunction.addEventSource(new SqsEventSource(queue, { batchSize: DELIVERY_BATCH_SIZE, reportBatchItemFailures: true, maxConcurrency: DELIVERY_CONCURRENCY }));
    }

    const defaultGroupArn = Stack.of(this).formatArn({ service: 'scheduler', resource: 'schedule-group', resourceName: 'default' });
    const sweepRole = schedulerRole(this, 'SweepScheduleRole', defaultGroupArn, this.sweepFunction, 'InvokeDeliverySweep');
    this.sweepSchedule = new scheduler.CfnSchedule(this, 'SweepSchedule', {
      description: 'Credential Handoff Service: webhook delivery sweep',
      scheduleExpression: DELIVERY_SWEEP_RATE,
      flexibleTimeWindow: { mode: 'OFF' },
      state: 'ENABLED',
      target: {
        arn: this.sweepFunction.functionArn,
        roleArn: sweepRole.roleArn,
        input: '{}',
        retryPolicy: { maximumRetryAttempts: 2, maximumEventAgeInSeconds: 240 },
      },
    });

    this.alarms = [
      dlqAlarm(this, 'FanOutDlqAlarm', this.fanOutDlq, 'Webhook fan-out gave up on stream records (see the fan-out DLQ)'),
      dlqAlarm(this, 'DeliveryDlqAlarm', this.deliveryDlq, 'Webhook delivery messages failed repeatedly (see the delivery DLQ)'),
    ];
  }
}

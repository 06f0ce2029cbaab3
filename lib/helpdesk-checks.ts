import { Duration, Stack } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { tableAccessOfWorker } from '../lambdas/access/table-access.ts';
import { handlerFunction, type AppEnvironment } from './api-functions.ts';
import { dlqAlarm } from './dlq-alarm.ts';
import { schedulerRole, type Expiry } from './expiry.ts';
import { HELPDESK_CREDENTIALS_PURPOSE, type SealingPurpose } from './sealing.ts';
import type { TableAccessGranter } from './table-access.ts';

export const TICKET_CHECK_ENTRY = 'lambdas/workers/ticket-check.ts';
export const RECONCILE_ENTRY = 'lambdas/workers/reconcile.ts';
/** How often the reconciliation reads linked tickets deployed (docs/tickets-and-helpdesks.md, Helpdesk adapters). */
export const RECONCILE_RATE = 'rate(2 minutes)';
const CHECK_TIMEOUT = Duration.seconds(60);
/** Shorter than the schedule's period, so one run ends before the next starts and the read budget holds. */
const RECONCILE_TIMEOUT = Duration.seconds(110);
/** Ticket checks at once: each is a helpdesk call or two; a burst of closes waits in the queue rather than in the helpdesks' rate limits. */
export const TICKET_CHECK_CONCURRENCY = 5;

export interface HelpdeskChecksProps {
  table: dynamodb.ITable;
  tableAccess: TableAccessGranter;
  appEnvironment: AppEnvironment;
  sealing: { readonly environment: Readonly<Record<string, string>>; grantOpen(fn: lambda.IFunction, purpose: SealingPurpose): void };
  /** A verified status completes (cancelling the expiry schedule), schedules or cancels a grace-period purge, as the ticket status routes do. */
  expiry: Pick<Expiry, 'schedulingEnvironment' | 'purgeSchedulingEnvironment' | 'grantScheduling' | 'grantPurgeScheduling'>;
  /** One reconciliation at a time (lib/handoff-stack.ts, reservedConcurrency). */
  reserveConcurrency?: boolean;
  logRetention?: logs.RetentionDays;
}

/**
 * Helpdesk reads, deployed (docs/tickets-and-helpdesks.md, Helpdesk adapters):
 *
 * - the ticket-check queue (SQS, a dead-letter queue after five failed receives): a closing hint or
 *   a grace period's end queues one read of a linked ticket; a failed read queues its next attempt
 *   with a delay (backoff, at least the helpdesk's Retry-After);
 * - the ticket-check worker, at most TICKET_CHECK_CONCURRENCY at once, which opens the
 *   integration's sealed helpdesk credentials (kms:Decrypt for `helpdesk_credentials` only);
 * - the reconciliation every two minutes (an EventBridge Scheduler recurring schedule, as the
 *   expiry sweep), reading the linked tickets of live requests within a budget per integration.
 *
 * Both apply verified statuses as the ticket status routes do, so they arm and cancel the expiry and
 * purge schedules (their log groups count toward the ScheduleFailures alarm). Functions that ask for
 * checks (the ticket status routes, the purge worker and the sweep) get the queue's URL and
 * sqs:SendMessage on it through `grantQueue`; the functions that create requests may invoke the
 * check worker directly to post a link in a ticket (`grantReplies`), so that only the worker opens
 * helpdesk credentials. A message in the DLQ raises an alarm.
 */
export class HelpdeskChecks extends Construct {
  readonly queue: sqs.Queue;
  readonly dlq: sqs.Queue;
  readonly checkFunction: NodejsFunction;
  readonly reconcileFunction: NodejsFunction;
  readonly reconcileSchedule: scheduler.CfnSchedule;
  readonly environment: Readonly<Record<string, string>>;
  readonly alarms: cloudwatch.Alarm[];

  constructor(scope: Construct, id: string, props: HelpdeskChecksProps) {
    super(scope, id);
    const retention = props.logRetention ?? logs.RetentionDays.ONE_MONTH;
    const queueDefaults = { encryption: sqs.QueueEncryption.SQS_MANAGED, enforceSSL: true };
    this.dlq = new sqs.Queue(this, 'TicketCheckDlq', { ...queueDefaults, retentionPeriod: Duration.days(14) });
    this.queue = new sqs.Queue(this, 'TicketCheckQueue', {
      ...queueDefaults,
      // Six times the worker's timeout, as AWS advises for a Lambda event source.
      visibilityTimeout: Duration.seconds(CHECK_TIMEOUT.toSeconds() * 6),
      retentionPeriod: Duration.days(4),
      deadLetterQueue: { queue: this.dlq, maxReceiveCount: 5 },
    });
    this.environment = { TICKET_CHECK_QUEUE_URL: this.queue.queueUrl };
    const environment = {
      TABLE_NAME: props.table.tableName,
      ...props.appEnvironment,
      ...props.sealing.environment,
      ...props.expiry.schedulingEnvironment,
      ...props.expiry.purgeSchedulingEnvironment,
      LOG_LEVEL: 'INFO',
      POWERTOOLS_SERVICE_NAME: 'credential-handoff',
    };
    this.checkFunction = handlerFunction(new Construct(this, 'TicketCheck'), {
      entry: TICKET_CHECK_ENTRY,
      description: 'ticket check worker: reads one linked ticket from its helpdesk and applies the verified status, or posts a link in it',
      retention,
      // The worker queues its own retries; the reconciliation queues nothing.
      environment: { ...environment, ...this.environment },
      timeout: CHECK_TIMEOUT,
    });
    this.reconcileFunction = handlerFunction(new Construct(this, 'Reconcile'), {
      entry: RECONCILE_ENTRY,
      description: 'ticket reconciliation: reads the linked tickets of live requests from their helpdesks',
      retention,
      environment,
      timeout: RECONCILE_TIMEOUT,
      reservedConcurrency: props.reserveConcurrency ? 1 : undefined,
    });
    props.tableAccess.grantAccess(this.checkFunction, tableAccessOfWorker('ticketCheck'));
    props.tableAccess.grantAccess(this.reconcileFunction, tableAccessOfWorker('reconcile'));
    for (const fn of [this.checkFunction, this.reconcileFunction]) {
      props.sealing.grantOpen(fn, HELPDESK_CREDENTIALS_PURPOSE);
      props.expiry.grantScheduling(fn);
      props.expiry.grantPurgeScheduling(fn);
    }
    // The worker queues its own retries.
    this.queue.grantSendMessages(this.checkFunction);
    this.checkFunction.addEventSource(new SqsEventSource(this.queue, { batchSize: 5, reportBatchItemFailures: true, maxConcurrency: TICKET_CHECK_CONCURRENCY }));

    const defaultGroupArn = Stack.of(this).formatArn({ service: 'scheduler', resource: 'schedule-group', resourceName: 'default' });
    const role = schedulerRole(this, 'ReconcileScheduleRole', defaultGroupArn, this.reconcileFunction, 'InvokeTicketReconciliation');
    this.reconcileSchedule = new scheduler.CfnSchedule(this, 'ReconcileSchedule', {
      description: 'Credential Handoff Service: ticket reconciliation',
      scheduleExpression: RECONCILE_RATE,
      flexibleTimeWindow: { mode: 'OFF' },
      state: 'ENABLED',
      target: {
        arn: this.reconcileFunction.functionArn,
        roleArn: role.roleArn,
        input: '{}',
        // A run that cannot start within a period is superseded by the next one.
        retryPolicy: { maximumRetryAttempts: 1, maximumEventAgeInSeconds: 110 },
      },
    });
    this.alarms = [
      dlqAlarm(this, 'TicketCheckDlqAlarm', this.dlq, 'Ticket checks failed repeatedly (see the ticket-check DLQ); the reconciliation still reads the linked tickets'),
    ];
  }

  /** The log groups of the two workers, which may log a schedule not armed or cancelled (lambdas/failure-logs.ts). */
  get scheduleFailureLogGroups(): logs.ILogGroup[] {
    return [this.checkFunction.logGroup, this.reconcileFunction.logGroup];
  }

  /** A function that creates requests: it may invoke the check worker to post a link in a ticket (TICKET_REPLY_FUNCTION). */
  grantReplies(fn: lambda.Function) {
    this.checkFunction.grantInvoke(fn);
    fn.addEnvironment('TICKET_REPLY_FUNCTION', this.checkFunction.functionArn);
  }

  /** A function that asks for ticket checks: the queue's URL and sqs:SendMessage on it. */
  grantQueue(fn: lambda.Function) {
    this.queue.grantSendMessages(fn);
    for (const [name, value] of Object.entries(this.environment)) fn.addEnvironment(name, value);
  }
}

import { ArnFormat, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { Construct } from 'constructs';
import { expiryScheduleName, purgeScheduleName } from '../lambdas/adapters/eventbridge-scheduler.ts';
import { handlerFunction, type AppEnvironment, type ExpiryScheduling } from './api-functions.ts';
import { tableAccessOfWorker } from '../lambdas/access/table-access.ts';
import type { TableAccessGranter } from './table-access.ts';

export const EXPIRE_ENTRY = 'lambdas/workers/expire.ts';
export const SWEEP_ENTRY = 'lambdas/workers/sweep.ts';
export const PURGE_ENTRY = 'lambdas/workers/purge.ts';
/** How often the sweep runs (docs/web-api.md, Expiry: "a sweep every five minutes"). */
export const SWEEP_RATE = 'rate(5 minutes)';
const SCHEDULER_SERVICE = 'scheduler.amazonaws.com';

export interface ExpiryProps {
  table: dynamodb.ITable;
  /** Each worker's table rights, from its declaration (lambdas/access/table-access.ts). */
  tableAccess: TableAccessGranter;
  appEnvironment: AppEnvironment;
  logRetention?: logs.RetentionDays;
  /** Reserve WORKER_CONCURRENCY executions for each worker and one for the sweep (lib/handoff-stack.ts, reservedConcurrency). */
  reserveConcurrency?: boolean;
}

/**
 * Request expiry, deployed (docs/web-api.md, Expiry):
 *
 * - the expiry worker, invoked by one EventBridge Scheduler one-time schedule per request
 *   (`expire-<requestId>`, in this construct's schedule group, made by the handlers at creation
 *   and submission, deleted when the request ends or after it has fired);
 * - the role Scheduler assumes for those schedules: trusted by scheduler.amazonaws.com only for
 *   schedules of this account and this group, and allowed only to invoke the expiry worker. The
 *   scheduling functions may pass exactly this role, and only to Scheduler;
 * - the sweep, every five minutes, for whatever a lost or failed schedule missed. It is an
 *   EventBridge Scheduler recurring schedule rather than an EventBridge rule: one service for all
 *   of the service's timing (its metrics and retry policy in one place), and a role of its own
 *   that may invoke only the sweep. It sits in the account's default group, so the scheduling
 *   functions, whose rights cover only `expire-*` schedules in the expiry group, can neither
 *   change nor delete it;
 * - DynamoDB TTL on the material items (lib/table.ts) is the last safety net behind both.
 */
/** How many expiry (and purge) workers may run at once. */
export const WORKER_CONCURRENCY = 20;

export class Expiry extends Construct implements ExpiryScheduling {
  readonly expiryFunction: NodejsFunction;
  /** Completes a submitted request when the grace period after its ticket closed ends. */
  readonly purgeFunction: NodejsFunction;
  readonly sweepFunction: NodejsFunction;
  readonly scheduleGroup: scheduler.ScheduleGroup;
  /** What the one-time schedules run as. */
  readonly schedulerRole: iam.Role;
  readonly sweepRole: iam.Role;
  readonly sweepSchedule: scheduler.CfnSchedule;
  readonly schedulingEnvironment: Readonly<Record<string, string>>;
  readonly purgeSchedulingEnvironment: Readonly<Record<string, string>>;

  constructor(scope: Construct, id: string, props: ExpiryProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const retention = props.logRetention ?? logs.RetentionDays.ONE_MONTH;
    const environment = {
      TABLE_NAME: props.table.tableName,
      ...props.appEnvironment,
      LOG_LEVEL: 'INFO',
      POWERTOOLS_SERVICE_NAME: 'credential-handoff',
    };

    this.expiryFunction = handlerFunction(new Construct(this, 'Expire'), {
      entry: EXPIRE_ENTRY,
      description: 'expiry worker: expires one request when its schedule fires',
      retention,
      environment,
      timeout: Duration.seconds(30),
      // Many schedules can fall due at one moment: reserved, they queue (Scheduler retries) instead of taking the account's concurrency.
      reservedConcurrency: props.reserveConcurrency ? WORKER_CONCURRENCY : undefined,
    });
    this.purgeFunction = handlerFunction(new Construct(this, 'Purge'), {
      entry: PURGE_ENTRY,
      description: 'purge worker: destroys a credential when its ticket-close grace period ends',
      retention,
      environment,
      timeout: Duration.seconds(30),
      reservedConcurrency: props.reserveConcurrency ? WORKER_CONCURRENCY : undefined,
    });
    this.sweepFunction = handlerFunction(new Construct(this, 'Sweep'), {
      entry: SWEEP_ENTRY,
      description: 'expiry sweep: expires every request already due and purges every grace period ended',
      retention,
      environment,
      timeout: Duration.minutes(2),
      // One sweep at a time when reserved. Unreserved, a retried sweep may overlap the next one: they
      // race over the same due requests, which costs work only, as each request is settled by a
      // conditional write, read again after a lost race, and left alone once ended.
      reservedConcurrency: props.reserveConcurrency ? 1 : undefined,
    });
    props.tableAccess.grantAccess(this.expiryFunction, tableAccessOfWorker('expire'));
    props.tableAccess.grantAccess(this.purgeFunction, tableAccessOfWorker('purge'));
    props.tableAccess.grantAccess(this.sweepFunction, tableAccessOfWorker('sweep'));

    // Deleting the group deletes its schedules: none may outlive the stack and invoke nothing.
    this.scheduleGroup = new scheduler.ScheduleGroup(this, 'ScheduleGroup', { removalPolicy: RemovalPolicy.DESTROY });

    this.schedulerRole = schedulerRole(this, 'SchedulerRole', this.scheduleGroup.scheduleGroupArn, this.expiryFunction, 'InvokeExpiryWorker');
    // The purge-* schedules live in the same group and run as the same role, which may invoke exactly the two workers.
    this.schedulerRole.addToPolicy(new iam.PolicyStatement({ sid: 'InvokePurgeWorker', actions: ['lambda:InvokeFunction'], resources: [this.purgeFunction.functionArn] }));

    const defaultGroupArn = stack.formatArn({ service: 'scheduler', resource: 'schedule-group', resourceName: 'default' });
    this.sweepRole = schedulerRole(this, 'SweepScheduleRole', defaultGroupArn, this.sweepFunction, 'InvokeExpirySweep');
    this.sweepSchedule = new scheduler.CfnSchedule(this, 'SweepSchedule', {
      description: 'Credential Handoff Service: expiry sweep',
      scheduleExpression: SWEEP_RATE,
      flexibleTimeWindow: { mode: 'OFF' },
      state: 'ENABLED',
      target: {
        arn: this.sweepFunction.functionArn,
        roleArn: this.sweepRole.roleArn,
        input: '{}',
        // A sweep that cannot start within four minutes is superseded by the next one.
        retryPolicy: { maximumRetryAttempts: 2, maximumEventAgeInSeconds: 240 },
      },
    });

    this.schedulingEnvironment = {
      SCHEDULE_GROUP: this.scheduleGroup.scheduleGroupName,
      SCHEDULER_ROLE_ARN: this.schedulerRole.roleArn,
      EXPIRY_FUNCTION_ARN: this.expiryFunction.functionArn,
    };
    this.purgeSchedulingEnvironment = { PURGE_FUNCTION_ARN: this.purgeFunction.functionArn };
  }

  /** ARN pattern of the expiry schedules: `expire-*` in the expiry group, nothing else. */
  get expirySchedulesArn() {
    return this.schedulesArn(expiryScheduleName('*'));
  }

  /** ARN pattern of the grace-period purge schedules: `purge-*` in the same group. */
  get purgeSchedulesArn() {
    return this.schedulesArn(purgeScheduleName('*'));
  }

  private schedulesArn(namePattern: string) {
    return Stack.of(this).formatArn({
      service: 'scheduler',
      resource: 'schedule',
      resourceName: `${this.scheduleGroup.scheduleGroupName}/${namePattern}`,
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    });
  }

  /** Purge schedules: the same rights as expiry's, on purge-* (the role to pass comes with grantScheduling). */
  grantPurgeScheduling(fn: lambda.IFunction) {
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        sid: 'ManagePurgeSchedules',
        actions: ['scheduler:CreateSchedule', 'scheduler:UpdateSchedule', 'scheduler:DeleteSchedule'],
        resources: [this.purgeSchedulesArn],
      }),
    );
  }

  /** Deleting expire-* schedules, and nothing else: for the functions that only end requests and shares. */
  grantScheduleCancelling(fn: lambda.IFunction) {
    fn.addToRolePolicy(new iam.PolicyStatement({ sid: 'CancelExpirySchedules', actions: ['scheduler:DeleteSchedule'], resources: [this.expirySchedulesArn] }));
  }

  grantScheduling(fn: lambda.IFunction) {
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        sid: 'ManageExpirySchedules',
        actions: ['scheduler:CreateSchedule', 'scheduler:UpdateSchedule', 'scheduler:DeleteSchedule'],
        resources: [this.expirySchedulesArn],
      }),
    );
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        sid: 'PassExpirySchedulerRole',
        actions: ['iam:PassRole'],
        resources: [this.schedulerRole.roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': SCHEDULER_SERVICE } },
      }),
    );
  }
}

/**
 * A role Scheduler assumes for the schedules of one group of this account (confused-deputy
 * conditions on the trust), allowed only to invoke one function.
 */
export const schedulerRole = (scope: Construct, id: string, groupArn: string, target: lambda.IFunction, sid: string) => {
  const role = new iam.Role(scope, id, {
    assumedBy: new iam.ServicePrincipal(SCHEDULER_SERVICE, {
      conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(scope).account, 'aws:SourceArn': groupArn } },
    }),
    description: `EventBridge Scheduler invokes ${target.node.path}`,
  });
  role.addToPolicy(new iam.PolicyStatement({ sid, actions: ['lambda:InvokeFunction'], resources: [target.functionArn] }));
  return role;
};

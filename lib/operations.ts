import { ArnFormat, Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { FAILURE_LOG_MESSAGES, type FailureLogKind } from '../lambdas/failure-logs.ts';

/** The metrics the logged failures are counted in: a namespace per stack, so two deployments in one account never add up. */
export const failureMetricNamespace = (stackName: string) => `CredentialHandoff/${stackName}`;

/** The metric and the alarm's words for each kind of logged failure (lambdas/failure-logs.ts). */
export const FAILURE_METRICS: Readonly<Record<FailureLogKind, { metricName: string; description: string }>> = {
  delivery: {
    metricName: 'DeliveryFailures',
    description:
      "An email or SMS was not sent (a subject's link, a requester's notice, a sign-in or invitation email): SES or SNS refused or failed; the call still succeeded, so someone is waiting for a message that will not come (see the sending functions' log groups)",
  },
  schedule: {
    metricName: 'ScheduleFailures',
    description:
      "An expiry or purge schedule could not be armed or cancelled: the five-minute sweep covers the request, but a failure that repeats (a lost right, the schedule quota) needs a look (see the scheduling functions' log groups)",
  },
};

/** A JSON log filter matching a line whose `message` is exactly one of `messages`. */
export const messageFilterPattern = (messages: readonly string[]) =>
  logs.FilterPattern.any(...messages.map((message) => logs.FilterPattern.stringValue('$.message', '=', message)));

export interface OperationsProps {
  /** Who is told when an alarm fires (context `alarmEmail`); without it the topic has no subscriber yet. */
  alarmEmail?: string;
}

/**
 * One SNS topic every alarm of the stack notifies (an email subscription by context, or whatever
 * the operator subscribes later), and the alarms that say the service is failing quietly: a
 * worker erroring, a lost schedule trigger, the API answering 5xx, a stream or queue falling
 * behind, an email or SMS not sent, a schedule not armed. Each fires on the first bad period: a
 * credential service's background work failing means credentials outliving their deadline.
 */
export class Operations extends Construct {
  readonly topic: sns.Topic;
  readonly alarms: cloudwatch.Alarm[] = [];

  constructor(scope: Construct, id: string, props: OperationsProps = {}) {
    super(scope, id);
    this.topic = new sns.Topic(this, 'AlarmTopic', { displayName: 'Credential Handoff Service alarms', enforceSSL: true });
    // A topic policy replaces SNS's default one, which let the account's alarms publish: with
    // only enforceSSL's Deny, every alarm action would fail "not authorized to perform: SNS:Publish".
    const stack = Stack.of(this);
    this.topic.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'AlarmsOfThisAccountPublish',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          ArnLike: { 'aws:SourceArn': stack.formatArn({ service: 'cloudwatch', resource: 'alarm', resourceName: '*', arnFormat: ArnFormat.COLON_RESOURCE_NAME }) },
          StringEquals: { 'aws:SourceAccount': stack.account },
        },
      }),
    );
    if (props.alarmEmail) this.topic.addSubscription(new subscriptions.EmailSubscription(props.alarmEmail));
  }

  /** Sends `alarm` (and its return to OK) to the topic. */
  notify(alarm: cloudwatch.Alarm) {
    alarm.addAlarmAction(new SnsAction(this.topic));
    alarm.addOkAction(new SnsAction(this.topic));
    this.alarms.push(alarm);
    return alarm;
  }

  /** Any error of a background function (expiry, purge, the sweeps) within five minutes. */
  functionErrors(id: string, fn: lambda.IFunction, what: string) {
    return this.notify(
      new cloudwatch.Alarm(this, id, {
        alarmDescription: `${what} failed: requests or deliveries may outlive their deadline (see the function's log group)`,
        metric: fn.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
        ...firstBreach,
      }),
    );
  }

  /**
   * A failure the functions tolerate and only log (lambdas/failure-logs.ts): a metric filter on
   * each log group that can hold its messages, all counting into one metric of the stack, and an
   * alarm on the first one in five minutes.
   */
  loggedFailures(kind: FailureLogKind, logGroups: readonly logs.ILogGroup[]) {
    if (logGroups.length === 0) throw new Error(`no log group can log a ${kind} failure: nothing to count`);
    const { metricName, description } = FAILURE_METRICS[kind];
    const metricNamespace = failureMetricNamespace(Stack.of(this).stackName);
    const filterPattern = messageFilterPattern(FAILURE_LOG_MESSAGES[kind]);
    // One filter per group: functions sharing a group (none today) must not count a line twice.
    for (const logGroup of new Set(logGroups)) {
      new logs.MetricFilter(logGroup, `${metricName}Filter`, { logGroup, filterPattern, metricNamespace, metricName, metricValue: '1' });
    }
    return this.notify(
      new cloudwatch.Alarm(this, metricName, {
        alarmDescription: description,
        metric: new cloudwatch.Metric({ namespace: metricNamespace, metricName, period: Duration.minutes(5), statistic: 'Sum' }),
        ...firstBreach,
      }),
    );
  }

  /** A function whose reserved concurrency turned calls away. */
  functionThrottles(id: string, fn: lambda.IFunction, what: string) {
    return this.notify(
      new cloudwatch.Alarm(this, id, {
        alarmDescription: `${what} was throttled: its reserved concurrency is exhausted`,
        metric: fn.metricThrottles({ period: Duration.minutes(5), statistic: 'Sum' }),
        ...firstBreach,
      }),
    );
  }

  /** Schedules of a group whose target (the expiry or purge worker) failed or whose invocation was dropped. */
  scheduleFailures(id: string, group: scheduler.ScheduleGroup) {
    const metric = (metricName: string) =>
      new cloudwatch.Metric({ namespace: 'AWS/Scheduler', metricName, dimensionsMap: { ScheduleGroup: group.scheduleGroupName }, period: Duration.minutes(5), statistic: 'Sum' });
    return this.notify(
      new cloudwatch.Alarm(this, id, {
        alarmDescription: 'Expiry or purge schedules failed to invoke their worker (the sweep covers them within five minutes; look at why)',
        metric: new cloudwatch.MathExpression({
          // Each metric has a datapoint only in periods with something to count: without FILL, a
          // period with target errors and no drops would sum to nothing, and the alarm stay OK.
          expression: 'FILL(errors, 0) + FILL(dropped, 0)',
          usingMetrics: { errors: metric('TargetErrorCount'), dropped: metric('InvocationDroppedCount') },
          period: Duration.minutes(5),
        }),
        ...firstBreach,
      }),
    );
  }

  /** The API answering server errors: more than five in five minutes. */
  apiServerErrors(id: string, api: apigwv2.HttpApi) {
    return this.notify(
      new cloudwatch.Alarm(this, id, {
        alarmDescription: 'The API answered 5xx more than five times in five minutes',
        metric: api.metricServerError({ period: Duration.minutes(5), statistic: 'Sum' }),
        threshold: 5,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );
  }

  /** The stream fan-out falling behind: its oldest record read more than five minutes after it was written. */
  streamIteratorAge(id: string, fn: lambda.IFunction) {
    return this.notify(
      new cloudwatch.Alarm(this, id, {
        alarmDescription: 'The webhook fan-out is more than five minutes behind the table stream',
        metric: fn.metric('IteratorAge', { period: Duration.minutes(5), statistic: 'Maximum' }),
        threshold: Duration.minutes(5).toMilliseconds(),
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );
  }

  /**
   * The delivery queue's oldest message waiting too long. A retry waits in hops of at most 15
   * minutes (SQS's longest delay), so a message older than 30 minutes is stuck, not scheduled.
   */
  queueAge(id: string, queue: sqs.IQueue) {
    return this.notify(
      new cloudwatch.Alarm(this, id, {
        alarmDescription: 'A webhook delivery message has waited more than 30 minutes (the delivery worker is not keeping up or failing)',
        metric: queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(5), statistic: 'Maximum' }),
        threshold: Duration.minutes(30).toSeconds(),
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );
  }
}

const firstBreach = {
  threshold: 0,
  comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
  evaluationPeriods: 1,
  treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
};

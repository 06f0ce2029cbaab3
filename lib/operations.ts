import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface OperationsProps {
  /** Who is told when an alarm fires (context `alarmEmail`); without it the topic has no subscriber yet. */
  alarmEmail?: string;
}

/**
 * One SNS topic every alarm of the stack notifies (an email subscription by context, or whatever
 * the operator subscribes later), and the alarms that say the service is failing quietly: a
 * worker erroring, a lost schedule trigger, the API answering 5xx, a stream or queue falling
 * behind. Each fires on the first bad period: a credential service's background work failing
 * means credentials outliving their deadline.
 */
export class Operations extends Construct {
  readonly topic: sns.Topic;
  readonly alarms: cloudwatch.Alarm[] = [];

  constructor(scope: Construct, id: string, props: OperationsProps = {}) {
    super(scope, id);
    this.topic = new sns.Topic(this, 'AlarmTopic', { displayName: 'Credential Handoff Service alarms', enforceSSL: true });
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
          expression: 'errors + dropped',
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

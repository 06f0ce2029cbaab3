/**
 * What every alarm of the stack has in common (lib/dlq-alarm.ts, lib/operations.ts): it fires on
 * the first breach in one period, treats missing data as fine, and tells the alarm topic when it
 * fires and when it returns to OK. Each test adds the metric it watches.
 */
export const alarmNotifying = (topicId: string) => ({
  Threshold: 0,
  ComparisonOperator: 'GreaterThanThreshold',
  EvaluationPeriods: 1,
  TreatMissingData: 'notBreaching',
  AlarmActions: [{ Ref: topicId }],
  OKActions: [{ Ref: topicId }],
});

/** A dead-letter queue's alarm: any message visible in it, checked every minute. */
export const dlqAlarmOn = (topicId: string) => ({
  Namespace: 'AWS/SQS',
  MetricName: 'ApproximateNumberOfMessagesVisible',
  Statistic: 'Maximum',
  Period: 60,
  ...alarmNotifying(topicId),
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { routeList } from '../../../lambdas/http/routes.ts';
import { HandoffStack } from '../../../lib/handoff-stack.ts';
import { flatTemplate } from '../../support/flat-template.ts';
import { EMAIL_FROM } from '../../support/synthesised-stack.ts';
import {
  template,
  resources,
  useBundledStack,
  type Json,
  deliverFunctionId,
  deliverySweepFunctionId,
  expiryFunctionId,
  fanOutFunctionId,
  ofType,
  onlyId,
  onlyQueue,
  purgeFunctionId,
  routeKeyOf,
  sweepFunctionId,
} from '../../support/stack-template.ts';

/**
 * Operations in the bundled test stack (test/support/stack-template.ts): the alarms and their topic,
 * throttling and concurrency.
 */

useBundledStack();

describe('operations', () => {
  const topicId = () => onlyId('AWS::SNS::Topic');
  const alarmsNotifying = () => ofType('AWS::CloudWatch::Alarm').filter(([, a]) => JSON.stringify(a.Properties.AlarmActions ?? []).includes(topicId()));
  const alarmOn = (metricName: string, functionId?: string) =>
    ofType('AWS::CloudWatch::Alarm').filter(
      ([, a]) => a.Properties.MetricName === metricName && (!functionId || (a.Properties.Dimensions as Json[] | undefined)?.some((d) => d.Name === 'FunctionName' && d.Value.Ref === functionId)),
    );

  it('sends every alarm, and its return to OK, to one topic that takes only TLS', () => {
    const alarms = ofType('AWS::CloudWatch::Alarm');
    expect(alarms.length).toBeGreaterThanOrEqual(12);
    expect(alarmsNotifying()).toHaveLength(alarms.length);
    for (const [id, alarm] of alarms) expect(JSON.stringify(alarm.Properties.OKActions ?? []), id).toContain(topicId());
    const policy = ofType('AWS::SNS::TopicPolicy')[0]![1].Properties.PolicyDocument.Statement as Json[];
    expect(policy.some((s) => s.Effect === 'Deny' && s.Condition?.Bool?.['aws:SecureTransport'] === 'false')).toBe(true);
    // The topic policy replaces SNS's default: without an Allow, CloudWatch could not publish an alarm.
    expect(policy.filter((s) => s.Effect === 'Allow')).toEqual([
      {
        Sid: 'AlarmsOfThisAccountPublish',
        Effect: 'Allow',
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: 'sns:Publish',
        Resource: { Ref: topicId() },
        Condition: {
          ArnLike: { 'aws:SourceArn': { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':cloudwatch:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':alarm:*']] } },
          StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
        },
      },
    ]);
    expect(template.findOutputs('AlarmTopicArn').AlarmTopicArn.Value).toEqual({ Ref: topicId() });
  });

  it('alarms on any error of the expiry and purge workers and both sweeps, and on throttles of the expiry worker and sweep', () => {
    for (const id of [expiryFunctionId(), purgeFunctionId(), sweepFunctionId(), deliverySweepFunctionId()]) {
      const [alarm] = alarmOn('Errors', id);
      expect(alarm?.[1].Properties, id).toMatchObject({ Namespace: 'AWS/Lambda', Statistic: 'Sum', Threshold: 0, ComparisonOperator: 'GreaterThanThreshold', EvaluationPeriods: 1 });
    }
    for (const id of [expiryFunctionId(), sweepFunctionId()]) expect(alarmOn('Throttles', id), id).toHaveLength(1);
  });

  it('alarms on schedule target errors and dropped invocations of the expiry group, API 5xx, the stream iterator age and the oldest delivery message', () => {
    const scheduler = ofType('AWS::CloudWatch::Alarm').filter(([, a]) => JSON.stringify(a.Properties.Metrics ?? []).includes('TargetErrorCount'));
    expect(scheduler).toHaveLength(1);
    expect(JSON.stringify(scheduler[0]![1].Properties.Metrics)).toContain('InvocationDroppedCount');
    // Either metric alone breaches: a period with errors and no drops has no `dropped` datapoint.
    expect((scheduler[0]![1].Properties.Metrics as Json[]).find((m) => m.Expression)?.Expression).toBe('FILL(errors, 0) + FILL(dropped, 0)');
    expect(alarmOn('5xx')[0]![1].Properties).toMatchObject({ Namespace: 'AWS/ApiGateway', Threshold: 5 });
    expect(alarmOn('IteratorAge', fanOutFunctionId())[0]![1].Properties).toMatchObject({ Statistic: 'Maximum', Threshold: 300_000 });
    expect(alarmOn('ApproximateAgeOfOldestMessage')[0]![1].Properties).toMatchObject({ Namespace: 'AWS/SQS', Threshold: 1800 });
  });

  it('subscribes an email address only when one is given by context', () => {
    expect(ofType('AWS::SNS::Subscription')).toHaveLength(0);
    // Bundling skipped (as the context tests do): only the template matters here.
    const app = new App({ outdir: mkdtempSync(path.join(tmpdir(), 'handoff-infra-alarm-')), context: { 'aws:cdk:bundling-stacks': [], emailFrom: EMAIL_FROM, alarmEmail: 'oncall@example.com' } });
    try {
      const withEmail = flatTemplate(new HandoffStack(app, 'WithAlarmEmail'));
      withEmail.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'oncall@example.com' });
    } finally {
      rmSync(app.outdir, { recursive: true, force: true });
    }
  });

  it('throttles the stage, and each route anyone may call more tightly', () => {
    const stage = ofType('AWS::ApiGatewayV2::Stage')[0]![1].Properties;
    expect(stage.DefaultRouteSettings).toMatchObject({ ThrottlingRateLimit: 200, ThrottlingBurstLimit: 400 });
    const publicRoutes = routeList().filter((route) => ['public', 'link', 'share_link'].includes(route.scope));
    expect(Object.keys(stage.RouteSettings).sort()).toEqual(publicRoutes.map(routeKeyOf).sort());
    for (const setting of Object.values(stage.RouteSettings as Record<string, Json>)) expect(setting).toEqual({ ThrottlingRateLimit: 20, ThrottlingBurstLimit: 40 });
  });

  it('reserves no concurrency by default, which any account can deploy; caps delivery concurrency; a 6x visibility timeout', () => {
    const reserved = ofType('AWS::Lambda::Function').filter(([, fn]) => fn.Properties.ReservedConcurrentExecutions !== undefined);
    expect(reserved.map(([id]) => id)).toEqual([]);
    const mapping = ofType('AWS::Lambda::EventSourceMapping').find(([, m]) => m.Properties.FunctionName.Ref === deliverFunctionId())![1].Properties;
    expect(mapping.ScalingConfig).toEqual({ MaximumConcurrency: 16 });
    expect(resources[onlyQueue('DeliveryQueue')]!.Properties.VisibilityTimeout).toBe(6 * resources[deliverFunctionId()]!.Properties.Timeout);
  });
});

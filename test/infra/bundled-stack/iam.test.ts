import { describe, expect, it } from 'vitest';
import { routeList } from '../../../lambdas/http/routes.ts';
import { indexList } from '../../../lambdas/store/table.ts';
import { EMAIL_FROM } from '../../support/synthesised-stack.ts';
import {
  useBundledStack,
  actionsOf,
  allStatements,
  fallbackFunctionId,
  functionIdOf,
  functionIdOfEntry,
  ofType,
  resourcesOf,
  roleIdOfFunction,
  schedulerRoles,
  statementsOfRole,
  staticEntries,
  tableId,
} from '../../support/stack-template.ts';

/**
 * Least privilege in the bundled test stack (test/support/stack-template.ts): the statements of the
 * function and scheduler roles.
 */

useBundledStack();

const sendersOf = (channel: 'email' | 'sms') => new Set(routeList().filter((route) => route.sends?.includes(channel)).map(functionIdOf));

describe('IAM', () => {
  it('has no wildcard action and no service-wide DynamoDB grant', () => {
    for (const statement of allStatements()) {
      for (const action of actionsOf(statement)) {
        expect(action).not.toBe('*');
        expect(action).not.toMatch(/^dynamodb:\*$/);
        expect(action).not.toMatch(/\*/);
      }
    }
  });

  it('scopes every DynamoDB action to the table and its indexes (or the rate table, for UpdateItem on rate windows only), and the stream actions to its stream', () => {
    const tableArn = { 'Fn::GetAtt': [tableId(), 'Arn'] };
    const rateTableArn = { 'Fn::GetAtt': [ofType('AWS::DynamoDB::Table').find(([id]) => id !== tableId())![0], 'Arn'] };
    const indexArns = indexList().map((index) => ({ 'Fn::Join': ['', [tableArn, `/index/${index.indexName}`]] }));
    const streamArn = { 'Fn::GetAtt': [tableId(), 'StreamArn'] };
    // (CDK's table read grant names GetRecords and GetShardIterator too, on the table: harmless.)
    const streamActions = ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'];
    for (const statement of allStatements().filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')))) {
      const onStream = resourcesOf(statement).some((r) => JSON.stringify(r) === JSON.stringify(streamArn));
      if (onStream) expect(actionsOf(statement).every((a) => streamActions.includes(a))).toBe(true);
      for (const resource of resourcesOf(statement)) {
        expect(resource).not.toBe('*');
        if (JSON.stringify(resource) === JSON.stringify(rateTableArn)) {
          expect(actionsOf(statement)).toEqual(['dynamodb:UpdateItem']);
          expect(statement.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [expect.stringMatching(/^RATE#/)] } });
          continue;
        }
        expect(onStream ? [streamArn] : [tableArn, ...indexArns]).toContainEqual(resource);
      }
    }
  });

  it('grants no table administration', () => {
    const actions = allStatements().flatMap(actionsOf);
    for (const forbidden of ['dynamodb:DeleteTable', 'dynamodb:UpdateTable', 'dynamodb:CreateTable', 'dynamodb:UpdateTimeToLive', 'dynamodb:RestoreTableToPointInTime']) {
      expect(actions).not.toContain(forbidden);
    }
  });

  it('gives the fallback and the static function no DynamoDB access at all', () => {
    for (const id of [fallbackFunctionId(), ...staticEntries().map(functionIdOfEntry)]) {
      const statements = statementsOfRole(roleIdOfFunction(id));
      expect(statements.flatMap(actionsOf).filter((a) => a.startsWith('dynamodb:')), id).toEqual([]);
      // Only its own logs.
      expect(statements.flatMap(actionsOf).every((a) => a.startsWith('logs:')), id).toBe(true);
    }
  });

  it('lets exactly the functions whose rows send email use SES, and those that send SMS use SNS', () => {
    const email = sendersOf('email');
    const sms = sendersOf('sms');
    expect(email.size).toBeGreaterThan(0);
    expect(email).toContain(functionIdOf(routeList().find((route) => route.name === 'createRequest')!));
    const emailRoles = new Set([...email].map(roleIdOfFunction));
    const smsRoles = new Set([...sms].map(roleIdOfFunction));
    for (const [roleId] of ofType('AWS::IAM::Role')) {
      const allowed = statementsOfRole(roleId).filter((s) => s.Effect === 'Allow').flatMap(actionsOf);
      // SESv2 SendEmail with simple content is all the adapter sends: never raw MIME.
      expect(allowed.filter((a) => a.startsWith('ses:')).sort(), roleId).toEqual(emailRoles.has(roleId) ? ['ses:SendEmail'] : []);
      expect(allowed.filter((a) => a.startsWith('sns:')), roleId).toEqual(smsRoles.has(roleId) ? ['sns:Publish'] : []);
    }
    expect(allStatements().flatMap(actionsOf)).not.toContain('ses:SendRawEmail');
  });

  it('lets the SMS senders publish to phone numbers only: sns:Publish is denied on every topic ARN', () => {
    const sms = sendersOf('sms');
    expect(sms.size).toBe(3);
    for (const roleId of new Set([...sms].map(roleIdOfFunction))) {
      const publish = statementsOfRole(roleId).filter((s) => actionsOf(s).includes('sns:Publish'));
      expect(publish, roleId).toEqual([
        { Sid: 'SendSms', Effect: 'Allow', Action: 'sns:Publish', Resource: '*' },
        { Sid: 'PublishToNoTopic', Effect: 'Deny', Action: 'sns:Publish', Resource: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':sns:*:*:*']] } },
      ]);
    }
  });

  it('pins every email sender with ses:FromAddress, on this account\'s identities', () => {
    for (const id of sendersOf('email')) {
      const ses = statementsOfRole(roleIdOfFunction(id)).filter((s) => actionsOf(s).includes('ses:SendEmail'));
      expect(ses, id).toHaveLength(1);
      expect(ses[0]!.Condition).toEqual({ StringEquals: { 'ses:FromAddress': EMAIL_FROM } });
      const resource = JSON.stringify(ses[0]!.Resource);
      expect(resource).toContain(':ses:');
      expect(resource).toContain('{"Ref":"AWS::AccountId"}');
      expect(resource).toContain(':identity/*');
    }
  });

  it('lets each function role write logs only to its own function\'s log group', () => {
    for (const [functionId, fn] of ofType('AWS::Lambda::Function')) {
      const roleId = roleIdOfFunction(functionId);
      const groupId = fn.Properties.LoggingConfig.LogGroup.Ref;
      const logStatements = statementsOfRole(roleId).filter((s) => actionsOf(s).some((a) => a.startsWith('logs:')));
      expect(logStatements.length).toBeGreaterThan(0);
      for (const statement of logStatements) {
        expect(resourcesOf(statement)).toEqual([{ 'Fn::GetAtt': [groupId, 'Arn'] }]);
      }
    }
  });

  it('attaches no managed policies; function roles trust Lambda, scheduler roles trust Scheduler for this account only', () => {
    const functionRoles = new Set(ofType('AWS::Lambda::Function').map(([id]) => roleIdOfFunction(id)));
    const scheduler = new Set(schedulerRoles().map(([id]) => id));
    expect(scheduler.size).toBe(4); // per-request expiries, the expiry sweep, the delivery sweep, the ticket reconciliation
    for (const [roleId, role] of ofType('AWS::IAM::Role')) {
      expect(role.Properties.ManagedPolicyArns, roleId).toBeUndefined();
      const trust = role.Properties.AssumeRolePolicyDocument.Statement;
      if (functionRoles.has(roleId)) {
        expect(trust).toEqual([{ Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' } }]);
      } else {
        expect(scheduler.has(roleId), roleId).toBe(true);
        expect(trust).toHaveLength(1);
        expect(trust[0]).toMatchObject({
          Action: 'sts:AssumeRole',
          Effect: 'Allow',
          Principal: { Service: 'scheduler.amazonaws.com' },
          Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
        });
      }
    }
  });
});

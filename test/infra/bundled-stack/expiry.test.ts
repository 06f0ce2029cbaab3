import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { routeList } from '../../../lambdas/http/routes.ts';
import { INDEXES, TTL_ATTRIBUTE } from '../../../lambdas/store/table.ts';
import {
  KEY_PUBLISHING_ROUTES,
  PURGE_SCHEDULING_ROUTES,
  REPO_ROOT,
  SCHEDULE_CANCELLING_ROUTES,
  SCHEDULING_ROUTES,
  SEALED_SECRET_ROUTES,
  WEBHOOK_SEALING_ROUTES,
  INTEGRATION_SEALING_ROUTES,
  CODE_HASH_ROUTES,
} from '../../../lib/api-functions.ts';
import { EXPIRE_ENTRY, PURGE_ENTRY, SWEEP_ENTRY } from '../../../lib/expiry.ts';
import {
  template,
  resources,
  useBundledStack,
  actionsOf,
  allStatements,
  arn,
  checkHelpdeskRoute,
  codeHashKeyId,
  connectHelpdeskRoute,
  deliverFunctionId,
  deliverySweepFunctionId,
  expiryFunctionId,
  expirySchedulerRoleId,
  functionIdOf,
  helpdeskFunctionIds,
  invokesTicketCheck,
  ofType,
  purgeFunctionId,
  reconcileFunctionId,
  resourcesOf,
  roleIdOfFunction,
  rolesOfRoutes,
  scheduleGroupId,
  scheduleGroupName,
  schedulingRoutes,
  sealingKeyId,
  signingKeyId,
  signingRoutes,
  statementsOfRole,
  statementsOnKey,
  sweepFunctionId,
  tableKeyId,
  ticketReplyRoutes,
} from '../../support/stack-template.ts';

/**
 * Expiry in the bundled test stack (test/support/stack-template.ts): the schedules, their workers
 * and roles, and the KMS keys the functions seal, sign and hash codes with.
 */

useBundledStack();

const purgeSchedulingRoutes = () => routeList().filter((route) => PURGE_SCHEDULING_ROUTES.includes(route.name));
const cancellingRoutes = () => routeList().filter((route) => SCHEDULE_CANCELLING_ROUTES.includes(route.name));
const sealedSecretRoutes = () => routeList().filter((route) => SEALED_SECRET_ROUTES.includes(route.name));

describe('expiry', () => {
  it('keeps TTL on the table and the byDue index the sweep reads', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
      GlobalSecondaryIndexes: Match.arrayWith([
        Match.objectLike({
          IndexName: INDEXES.byDue.indexName,
          KeySchema: [
            { AttributeName: INDEXES.byDue.partitionKey, KeyType: 'HASH' },
            { AttributeName: INDEXES.byDue.sortKey, KeyType: 'RANGE' },
          ],
        }),
      ]),
    });
  });

  it('has one schedule group for the per-request schedules, deleted with the stack', () => {
    const group = resources[scheduleGroupId()]!;
    expect(group.DeletionPolicy).toBe('Delete');
    expect(scheduleGroupName()).toMatch(/^[0-9a-zA-Z-_.]{1,64}$/);
    template.hasOutput('ExpiryScheduleGroup', { Value: scheduleGroupName() });
  });

  it('builds the expiry and purge workers and the sweep from their handler files', () => {
    for (const [id, entry] of [[expiryFunctionId(), EXPIRE_ENTRY], [purgeFunctionId(), PURGE_ENTRY], [sweepFunctionId(), SWEEP_ENTRY]] as const) {
      expect(existsSync(path.join(REPO_ROOT, entry)), entry).toBe(true);
      expect(resources[id]!.Properties).toMatchObject({ Runtime: 'nodejs22.x', Handler: 'index.handler' });
    }
  });

  it('the scheduler role is assumed only by Scheduler, for schedules of this account and this group', () => {
    const trust = resources[expirySchedulerRoleId()]!.Properties.AssumeRolePolicyDocument.Statement;
    expect(trust).toEqual([
      {
        Action: 'sts:AssumeRole',
        Effect: 'Allow',
        Principal: { Service: 'scheduler.amazonaws.com' },
        Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' }, 'aws:SourceArn': arn(scheduleGroupId()) } },
      },
    ]);
  });

  it('the scheduler role may only invoke the expiry and purge workers', () => {
    expect(statementsOfRole(expirySchedulerRoleId())).toEqual([
      { Sid: 'InvokeExpiryWorker', Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: arn(expiryFunctionId()) },
      { Sid: 'InvokePurgeWorker', Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: arn(purgeFunctionId()) },
    ]);
  });

  it('lets exactly the scheduling routes\' functions and the two helpdesk workers manage expire-* schedules in the group, and the ticket status routes\' and the helpdesk workers\' purge-* too', () => {
    // The ticket check worker and the reconciliation apply verified statuses as the ticket status routes do.
    const helpdeskWorkers = helpdeskFunctionIds().map(roleIdOfFunction);
    const schedulingRoles = new Set([...schedulingRoutes().map((route) => roleIdOfFunction(functionIdOf(route))), ...helpdeskWorkers]);
    const purgingRoles = new Set([...purgeSchedulingRoutes().map((route) => roleIdOfFunction(functionIdOf(route))), ...helpdeskWorkers]);
    expect(schedulingRoles.size).toBe(SCHEDULING_ROUTES.length + 2);
    expect(purgingRoles.size).toBe(PURGE_SCHEDULING_ROUTES.length + 2);
    const manage = (sid: string, kind: string) => ({
      Sid: sid,
      Effect: 'Allow',
      Action: ['scheduler:CreateSchedule', 'scheduler:UpdateSchedule', 'scheduler:DeleteSchedule'],
      Resource: {
        'Fn::Join': [
          '',
          ['arn:', { Ref: 'AWS::Partition' }, ':scheduler:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, `:schedule/${scheduleGroupName()}/${kind}-*`],
        ],
      },
    });
    // The functions that only end requests and shares may delete expire-* schedules, and nothing more.
    const cancellingRoles = new Set(cancellingRoutes().map((route) => roleIdOfFunction(functionIdOf(route))));
    expect(cancellingRoles.size).toBe(SCHEDULE_CANCELLING_ROUTES.length);
    for (const [roleId] of ofType('AWS::IAM::Role')) {
      const statements = statementsOfRole(roleId).filter((s) => actionsOf(s).some((a) => a.startsWith('scheduler:')));
      if (cancellingRoles.has(roleId)) {
        expect(statements, roleId).toEqual([{ ...manage('CancelExpirySchedules', 'expire'), Action: 'scheduler:DeleteSchedule' }]);
        continue;
      }
      if (!schedulingRoles.has(roleId)) {
        expect(statements, roleId).toEqual([]);
        continue;
      }
      expect(statements).toEqual([
        manage('ManageExpirySchedules', 'expire'),
        ...(purgingRoles.has(roleId) ? [manage('ManagePurgeSchedules', 'purge')] : []),
      ]);
    }
  });

  it('lets exactly the inbound URL functions open sealed integration secrets, the delivery worker webhook secrets, and the ticket check worker, the reconciliation and the member app\'s helpdesk check helpdesk credentials, with kms:Decrypt for that purpose only', () => {
    const openers = new Set(sealedSecretRoutes().map((route) => roleIdOfFunction(functionIdOf(route))));
    expect(openers.size).toBe(SEALED_SECRET_ROUTES.length);
    const signer = roleIdOfFunction(deliverFunctionId());
    const helpdeskReaders = new Set([...helpdeskFunctionIds(), functionIdOf(checkHelpdeskRoute())].map(roleIdOfFunction));
    expect(helpdeskReaders.size).toBe(3);
    const opens = (sid: string, purpose: string) => ({
      Sid: sid,
      Effect: 'Allow',
      Action: 'kms:Decrypt',
      Resource: arn(sealingKeyId()),
      Condition: { StringEquals: { 'kms:EncryptionContext:purpose': purpose } },
    });
    for (const [roleId] of ofType('AWS::IAM::Role')) {
      // (The table key's statements, through DynamoDB only, are table-access.test.ts's.)
      const statements = statementsOfRole(roleId).filter((s) => actionsOf(s).some((a) => a === 'kms:Decrypt') && !resourcesOf(s).some((r) => JSON.stringify(r) === JSON.stringify(arn(tableKeyId()))));
      expect(statements, roleId).toEqual(
        openers.has(roleId)
          ? [opens('OpenSealedIntegrationSecrets', 'inbound_auth')]
          : roleId === signer
            ? [opens('OpenWebhookSigningSecrets', 'webhook_signing')]
            : helpdeskReaders.has(roleId)
              ? [opens('OpenHelpdeskCredentials', 'helpdesk_credentials')]
              : [],
      );
    }
  });

  it('lets only the webhook creations and the member app rotation seal webhook signing secrets, the member app integration settings integration secrets, and the member app helpdesk connection helpdesk credentials (GenerateDataKey for that purpose), and nothing else use the sealing key', () => {
    const sealers = rolesOfRoutes(WEBHOOK_SEALING_ROUTES);
    expect(sealers.size).toBe(WEBHOOK_SEALING_ROUTES.length);
    // The member app's integration settings seal a shared header value or signing secret, for the inbound URLs to open.
    const integrationSealers = rolesOfRoutes(INTEGRATION_SEALING_ROUTES);
    expect(integrationSealers.size).toBe(INTEGRATION_SEALING_ROUTES.length);
    // Connecting an integration to its helpdesk seals the helpdesk credentials, for the helpdesk readers to open.
    const helpdeskSealer = roleIdOfFunction(functionIdOf(connectHelpdeskRoute()));
    expect([...sealers, ...integrationSealers]).not.toContain(helpdeskSealer);
    const openers = rolesOfRoutes(SEALED_SECRET_ROUTES);
    const signer = roleIdOfFunction(deliverFunctionId());
    const helpdeskReaders = new Set([...helpdeskFunctionIds(), functionIdOf(checkHelpdeskRoute())].map(roleIdOfFunction));
    for (const [roleId] of ofType('AWS::IAM::Role')) {
      const onKey = statementsOnKey(roleId, sealingKeyId());
      const expected = sealers.has(roleId)
        ? [{ Sid: 'SealWebhookSigningSecrets', Effect: 'Allow', Action: 'kms:GenerateDataKey', Resource: arn(sealingKeyId()), Condition: { StringEquals: { 'kms:EncryptionContext:purpose': 'webhook_signing' } } }]
        : integrationSealers.has(roleId)
          ? [{ Sid: 'SealIntegrationSecrets', Effect: 'Allow', Action: 'kms:GenerateDataKey', Resource: arn(sealingKeyId()), Condition: { StringEquals: { 'kms:EncryptionContext:purpose': 'inbound_auth' } } }]
          : roleId === helpdeskSealer
            ? [{ Sid: 'SealHelpdeskCredentials', Effect: 'Allow', Action: 'kms:GenerateDataKey', Resource: arn(sealingKeyId()), Condition: { StringEquals: { 'kms:EncryptionContext:purpose': 'helpdesk_credentials' } } }]
            : [];
      expect(onKey.filter((s) => actionsOf(s).some((a) => a !== 'kms:Decrypt')), roleId).toEqual(expected);
      // Sealing is not opening: the create function cannot read a secret back; only the signer, the inbound URLs and the helpdesk readers decrypt.
      if (!openers.has(roleId) && roleId !== signer && !helpdeskReaders.has(roleId)) expect(onKey.flatMap(actionsOf), roleId).not.toContain('kms:Decrypt');
    }
  });

  it('hashes codes with a KMS HMAC key that outlives the stack, usable (GenerateMac, HMAC-SHA-256) only by the functions that hash or check codes or fingerprint a secret body', () => {
    const key = resources[codeHashKeyId()]!;
    expect(key.Properties.KeyUsage).toBe('GENERATE_VERIFY_MAC');
    expect(key.DeletionPolicy).toBe('Retain');
    expect(template.findOutputs('CodeHashKeyArn').CodeHashKeyArn.Value).toEqual(arn(codeHashKeyId()));
    const hashers = rolesOfRoutes(CODE_HASH_ROUTES);
    // Creating a request (by the API and in the member app), its ticket trigger, giving one a new
    // link (by the API and in the member app), sending an email code and checking one: seven
    // functions; and the member app's two whose body holds a secret (an integration's signing
    // secret, a helpdesk's credentials), for their Idempotency-Key fingerprint.
    expect(hashers.size).toBe(9);
    for (const [roleId] of ofType('AWS::IAM::Role')) {
      expect(statementsOnKey(roleId, codeHashKeyId()), roleId).toEqual(
        hashers.has(roleId)
          ? [{ Sid: 'HashCodes', Effect: 'Allow', Action: 'kms:GenerateMac', Resource: arn(codeHashKeyId()), Condition: { StringEquals: { 'kms:MacAlgorithm': 'HMAC_SHA_256' } } }]
          : [],
      );
    }
  });

  it('seals with a customer-managed key that rotates and outlives the stack', () => {
    const key = resources[sealingKeyId()]!;
    expect(key.Properties.EnableKeyRotation).toBe(true);
    expect(key.DeletionPolicy).toBe('Retain');
    expect(template.findOutputs('SealingKeyArn').SealingKeyArn.Value).toEqual(arn(sealingKeyId()));
  });

  it('signs certificates with an Ed25519 KMS key that outlives the stack, tagged so rotated keys share its rights', () => {
    const key = resources[signingKeyId()]!;
    expect(key.Properties.KeyUsage).toBe('SIGN_VERIFY');
    expect(key.DeletionPolicy).toBe('Retain');
    expect(key.Properties.Tags).toEqual([{ Key: 'handoff-custody-signing', Value: 'HandoffTest' }]);
    expect(template.findOutputs('SigningKeyArn').SigningKeyArn.Value).toEqual(arn(signingKeyId()));
  });

  it('lets only the certificate function sign (pure Ed25519, by tag), and the key-publishing one read public keys', () => {
    const signers = new Set(signingRoutes().map((route) => roleIdOfFunction(functionIdOf(route))));
    expect(signers.size).toBe(1);
    const publishers = new Set(routeList().filter((route) => KEY_PUBLISHING_ROUTES.includes(route.name)).map((route) => roleIdOfFunction(functionIdOf(route))));
    const tagged = { 'aws:ResourceTag/handoff-custody-signing': 'HandoffTest' };
    const keys = { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':kms:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':key/*']] };
    const readPublicKeys = { Sid: 'ReadSigningPublicKeys', Effect: 'Allow', Action: 'kms:GetPublicKey', Resource: keys, Condition: { StringEquals: tagged } };
    for (const [roleId] of ofType('AWS::IAM::Role')) {
      const statements = statementsOfRole(roleId).filter((s) => actionsOf(s).some((a) => a === 'kms:Sign' || a === 'kms:GetPublicKey'));
      const expected = signers.has(roleId)
        ? [
            {
              Sid: 'SignCustodyCertificates',
              Effect: 'Allow',
              Action: 'kms:Sign',
              Resource: keys,
              Condition: { StringEquals: { ...tagged, 'kms:SigningAlgorithm': 'ED25519_SHA_512', 'kms:MessageType': 'RAW' } },
            },
            readPublicKeys,
          ]
        : publishers.has(roleId)
          ? [readPublicKeys]
          : [];
      expect(statements, roleId).toEqual(expected);
    }
  });

  it('keeps paths (link tokens, inbound URL secrets) out of the access log', () => {
    const format = ofType('AWS::ApiGatewayV2::Stage')[0]![1].Properties.AccessLogSettings.Format as string;
    expect(format).not.toContain('$context.path');
    expect(format).not.toContain('$context.resourcePath');
  });

  it('lets exactly those functions (the scheduling routes\' and the two helpdesk workers) pass exactly the scheduler role, and only to Scheduler', () => {
    const schedulingRoles = new Set([...schedulingRoutes().map((route) => roleIdOfFunction(functionIdOf(route))), ...helpdeskFunctionIds().map(roleIdOfFunction)]);
    expect(schedulingRoles.size).toBe(SCHEDULING_ROUTES.length + 2);
    for (const [roleId] of ofType('AWS::IAM::Role')) {
      const passing = statementsOfRole(roleId).filter((s) => actionsOf(s).some((a) => a.startsWith('iam:')));
      if (!schedulingRoles.has(roleId)) {
        expect(passing, roleId).toEqual([]);
        continue;
      }
      expect(passing).toEqual([
        {
          Sid: 'PassExpirySchedulerRole',
          Effect: 'Allow',
          Action: 'iam:PassRole',
          Resource: arn(expirySchedulerRoleId()),
          Condition: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
        },
      ]);
    }
    for (const statement of allStatements().filter((s) => actionsOf(s).includes('iam:PassRole'))) {
      expect(resourcesOf(statement)).not.toContain('*');
    }
  });

  it('runs the sweep every five minutes from a recurring schedule in the default group, as a role that may only invoke the sweep', () => {
    const schedules = ofType('AWS::Scheduler::Schedule').filter(([, s]) => s.Properties.Target.Arn['Fn::GetAtt'][0] === sweepFunctionId());
    const sweep = schedules[0]![1].Properties;
    expect(sweep).toMatchObject({
      ScheduleExpression: 'rate(5 minutes)',
      FlexibleTimeWindow: { Mode: 'OFF' },
      State: 'ENABLED',
      Target: { Arn: arn(sweepFunctionId()), Input: '{}' },
    });
    expect(sweep.GroupName).toBeUndefined(); // the default group: out of the scheduling functions' reach
    expect(sweep.Target.RetryPolicy.MaximumEventAgeInSeconds).toBeLessThan(300);
    const roleId: string = sweep.Target.RoleArn['Fn::GetAtt'][0];
    expect(roleId).not.toBe(expirySchedulerRoleId());
    expect(resources[roleId]!.Properties.AssumeRolePolicyDocument.Statement[0].Condition.StringEquals['aws:SourceArn']).toEqual({
      'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':scheduler:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':schedule-group/default']],
    });
    expect(statementsOfRole(roleId)).toEqual([
      { Sid: 'InvokeExpirySweep', Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: arn(sweepFunctionId()) },
    ]);
  });

  it('gives the workers no sending and no scheduling rights, and no one else a way to invoke them', () => {
    for (const id of [expiryFunctionId(), purgeFunctionId(), sweepFunctionId()]) {
      const actions = statementsOfRole(roleIdOfFunction(id)).flatMap(actionsOf);
      expect(actions.filter((a) => /^(ses|sns|scheduler|iam|lambda):/.test(a)), id).toEqual([]);
      const permissions = ofType('AWS::Lambda::Permission').filter(([, p]) => p.Properties.FunctionName['Fn::GetAtt']?.[0] === id);
      expect(permissions, id).toEqual([]);
    }
    const invokers = allStatements().filter((s) => actionsOf(s).includes('lambda:InvokeFunction'));
    // The schedules' roles, and the three functions that post links in tickets through the ticket check worker (grantInvoke: the function and its qualified ARNs).
    const replies = ticketReplyRoutes().map(() => invokesTicketCheck().Resource);
    expect(invokers.map((s) => s.Resource).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))).toEqual(
      [arn(expiryFunctionId()), arn(purgeFunctionId()), arn(sweepFunctionId()), arn(deliverySweepFunctionId()), arn(reconcileFunctionId()), ...replies].sort((a, b) =>
        JSON.stringify(a).localeCompare(JSON.stringify(b)),
      ),
    );
  });
});

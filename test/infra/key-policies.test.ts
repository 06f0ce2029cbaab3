import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY_RIGHT_TAGS, keyPolicyContextOfArn, signingKeyPolicy } from '../../lambdas/access/key-policies.ts';
import { ROUTES } from '../../lambdas/http/routes.ts';
import { HandoffStack } from '../../lib/handoff-stack.ts';
import { flatTemplateJson } from '../support/flat-template.ts';

/**
 * The four KMS keys' policies, read from the synthesised template (nested stacks folded in): no
 * principal of the account uses a key unless it carries the tag of that use, and the roles the
 * stack grants a use carry exactly that tag, so what IAM allows them KMS allows too, and nothing
 * more. Bundling skipped: only the template matters.
 */

type Json = Record<string, any>;
const STACK = 'KeyPolicies';
const outdirs: string[] = [];
let resources: Record<string, Json>;

beforeAll(() => {
  const outdir = mkdtempSync(path.join(tmpdir(), 'handoff-key-policies-'));
  outdirs.push(outdir);
  const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': [], emailFrom: 'handoff@test.example' } });
  resources = flatTemplateJson(new HandoffStack(app, STACK)).Resources;
}, 180_000);

afterAll(() => {
  for (const outdir of outdirs) rmSync(outdir, { recursive: true, force: true });
});

// ---- the template ----------------------------------------------------------------------------------

interface Statement {
  Sid?: string;
  Effect: string;
  Principal?: Json | string;
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, Record<string, unknown>>;
}

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const actionsOf = (statement: Statement) => [statement.Action].flat();
const resourcesOf = (statement: Statement) => [statement.Resource].flat();
const arn = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });
const ACCOUNT_ROOT = { AWS: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::', { Ref: 'AWS::AccountId' }, ':root']] } };

/** The keys, by what they are for. */
const keys = () => {
  const all = ofType('AWS::KMS::Key');
  expect(all).toHaveLength(4);
  const tableKey = ofType('AWS::DynamoDB::Table').find(([, t]) => t.Properties.StreamSpecification)![1].Properties.SSESpecification.KMSMasterKeyId['Fn::GetAtt'][0];
  const bySpec = (spec: string | undefined) => all.filter(([id, k]) => k.Properties.KeySpec === spec && id !== tableKey).map(([id]) => id);
  const [sealing] = bySpec(undefined);
  const [signing] = bySpec('ECC_NIST_EDWARDS25519');
  const [code] = bySpec('HMAC_256');
  return { table: tableKey as string, sealing: sealing!, signing: signing!, code: code! };
};
const keyPolicyOf = (keyId: string): Statement[] => resources[keyId]!.Properties.KeyPolicy.Statement;

/** Using a key, as opposed to managing it: what a broadly privileged role must not get by default. */
const CRYPTO = /^kms:(Decrypt|Encrypt|GenerateDataKey.*|ReEncrypt.*|Sign|Verify|GenerateMac|VerifyMac|DeriveSharedSecret|GenerateRandom|\*)$/;
const isCrypto = (action: string) => CRYPTO.test(action) || action === 'kms:*' || action === '*';

/** The condition keys that say which principal a statement is for. */
const principalConditionKeys = (statement: Statement) =>
  Object.values(statement.Condition ?? {}).flatMap((test) => Object.keys(test)).filter((key) => /^aws:(PrincipalTag\/|PrincipalArn$)/.test(key));
/** The tag a key policy statement requires, if any. */
const tagOf = (statement: Statement): string | undefined => {
  const key = Object.keys(statement.Condition?.StringEquals ?? {}).find((k) => k.startsWith('aws:PrincipalTag/'));
  return key?.slice('aws:PrincipalTag/'.length);
};
/** A statement's conditions other than the principal's tag (and, for an identity statement, the key's own tag). */
const useConditions = (statement: Statement) =>
  Object.fromEntries(
    Object.entries(statement.Condition ?? {})
      .map(([test, entries]) => [test, Object.fromEntries(Object.entries(entries).filter(([key]) => !/^aws:(PrincipalTag|ResourceTag)\//.test(key)))] as const)
      .filter(([, entries]) => Object.keys(entries).length > 0),
  );

const tagsOfRole = (roleId: string): Record<string, string> =>
  Object.fromEntries(((resources[roleId]!.Properties.Tags ?? []) as Array<{ Key: string; Value: string }>).map(({ Key, Value }) => [Key, Value]));
const rightTagsOfRole = (roleId: string) =>
  Object.fromEntries(Object.entries(tagsOfRole(roleId)).filter(([key]) => (Object.values(KEY_RIGHT_TAGS) as string[]).includes(key)));

const statementsOfRole = (roleId: string): Statement[] =>
  ofType('AWS::IAM::Policy')
    .filter(([, p]) => (p.Properties.Roles as Json[]).some((role) => role.Ref === roleId))
    .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Statement[]);

/** The signing statements name every key of the account with the stack's tag (rotated keys too). */
const TAGGED_KEYS = { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':kms:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':key/*']] };

/** Each allowed KMS use of a role's IAM policy: the key it names and the action, with the statement. */
const kmsUsesOfRole = (roleId: string) => {
  const ids = keys();
  return statementsOfRole(roleId)
    .filter((s) => s.Effect === 'Allow')
    .flatMap((statement) =>
      actionsOf(statement)
        .filter((action) => action.startsWith('kms:'))
        .flatMap((action) =>
          resourcesOf(statement).map((resource) => {
            const keyId = same(resource, TAGGED_KEYS) ? ids.signing : Object.values(ids).find((id) => same(resource, arn(id)));
            expect(keyId, `${roleId}: ${action} on ${JSON.stringify(resource)}`).toBeDefined();
            return { keyId: keyId!, action, statement };
          }),
        ),
    );
};

const functionRoleOfRoute = (routeKey: string): string => {
  const route = ofType('AWS::ApiGatewayV2::Route').find(([, r]) => r.Properties.RouteKey === routeKey)![1];
  const integration = resources[route.Properties.Target['Fn::Join'][1][1].Ref]!;
  return resources[integration.Properties.IntegrationUri['Fn::GetAtt'][0]]!.Properties.Role['Fn::GetAtt'][0];
};
const roleOfRoute = (route: { method: string; path: string }) => functionRoleOfRoute(`${route.method} ${route.path}`);
const roleOfWorker = (description: RegExp) => {
  const found = ofType('AWS::Lambda::Function').filter(([, fn]) => description.test(fn.Properties.Description));
  expect(found).toHaveLength(1);
  return found[0]![1].Properties.Role['Fn::GetAtt'][0] as string;
};

// ---- the policies ----------------------------------------------------------------------------------

describe('the key policies', () => {
  it('are explicit on all four keys: no principal but the account, no kms:*, no wildcard principal', () => {
    for (const [name, keyId] of Object.entries(keys())) {
      const statements = keyPolicyOf(keyId);
      expect(statements.length, name).toBeGreaterThan(1);
      for (const statement of statements) {
        expect(statement.Effect, `${name} ${statement.Sid}`).toBe('Allow');
        expect(statement.Principal, `${name} ${statement.Sid}`).toEqual(ACCOUNT_ROOT);
        expect(actionsOf(statement), `${name} ${statement.Sid}`).not.toContain('kms:*');
        expect(statement.Resource).toBe('*');
      }
    }
  });

  it('give the bare account no cryptographic use of any key: every statement that uses a key names the principals by tag', () => {
    for (const [name, keyId] of Object.entries(keys())) {
      for (const statement of keyPolicyOf(keyId)) {
        const crypto = actionsOf(statement).filter(isCrypto);
        if (crypto.length === 0) continue;
        expect(principalConditionKeys(statement), `${name} ${statement.Sid}: ${crypto.join(', ')} for the whole account`).not.toEqual([]);
        // The one statement by ARN: the bootstrap's CloudFormation role, which creates the tables (below).
        if (name === 'table' && statement.Sid === 'DeployRoleCreatesTheTables') continue;
        expect(tagOf(statement), `${name} ${statement.Sid}`).toMatch(/^handoff-/);
        expect(statement.Condition!.StringEquals![`aws:PrincipalTag/${tagOf(statement)}`], `${name} ${statement.Sid}`).toBe(STACK);
      }
    }
  });

  it('let the account administer each key and nothing more: no use, no grant of its own', () => {
    for (const [name, keyId] of Object.entries(keys())) {
      const untagged = keyPolicyOf(keyId).filter((s) => principalConditionKeys(s).length === 0);
      const actions = untagged.flatMap(actionsOf);
      expect(actions, name).toContain('kms:PutKeyPolicy');
      expect(actions, name).toContain('kms:ScheduleKeyDeletion');
      expect(actions.filter(isCrypto), name).toEqual([]);
      expect(actions.filter((a) => a.includes('*')), name).toEqual([]);
      // The signing key's public half is public (the JWKS); the table key lets DynamoDB make its own grants.
      const extra = untagged.filter((s) => s.Sid !== 'AdministerKey').map((s) => s.Sid);
      expect(extra, name).toEqual(name === 'signing' ? ['ReadPublicKey'] : name === 'table' ? ['DynamoDBGrantsForTheTable'] : []);
    }
    const grants = keyPolicyOf(keys().table).find((s) => s.Sid === 'DynamoDBGrantsForTheTable')!;
    expect(actionsOf(grants)).toEqual(['kms:CreateGrant']);
    expect(grants.Condition).toEqual({
      StringEquals: { 'kms:ViaService': { 'Fn::Join': ['', ['dynamodb.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }]] } },
      Bool: { 'kms:GrantIsForAWSResource': 'true' },
    });
    expect(actionsOf(keyPolicyOf(keys().signing).find((s) => s.Sid === 'ReadPublicKey')!)).toEqual(['kms:GetPublicKey']);
    // Nothing but CreateGrant through DynamoDB, for DynamoDB's own resources, may make a grant.
    for (const keyId of Object.values(keys())) {
      for (const statement of keyPolicyOf(keyId).filter((s) => actionsOf(s).includes('kms:CreateGrant'))) {
        expect(statement.Condition?.Bool?.['kms:GrantIsForAWSResource']).toBe('true');
      }
    }
  });

  it("use the table key only through DynamoDB, each use for the principals tagged for it", () => {
    const via = { 'kms:ViaService': { 'Fn::Join': ['', ['dynamodb.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }]] } };
    const uses = keyPolicyOf(keys().table).filter((s) => actionsOf(s).some(isCrypto));
    expect(uses.map((s) => [s.Sid, actionsOf(s), s.Condition])).toEqual([
      ['ReadTableThroughDynamoDB', ['kms:Decrypt'], { StringEquals: { 'aws:PrincipalTag/handoff-table-read': STACK, ...via } }],
      ['WriteTableThroughDynamoDB', ['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey'], { StringEquals: { 'aws:PrincipalTag/handoff-table-write': STACK, ...via } }],
      [
        'DeployRoleCreatesTheTables',
        ['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey*', 'kms:ReEncrypt*'],
        {
          StringEquals: via,
          ArnLike: { 'aws:PrincipalArn': { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::', { Ref: 'AWS::AccountId' }, ':role/cdk-*-cfn-exec-role-*']] } },
        },
      ],
      // A deploy role of another name, or an operator restoring the table: the same, by tag.
      ['TaggedRoleCreatesOrRestoresTables', ['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey*', 'kms:ReEncrypt*'], { StringEquals: { 'aws:PrincipalTag/handoff-table-create': STACK, ...via } }],
    ]);
  });

  it('let the bootstrap\u2019s CloudFormation role, which creates the tables at deploy, do what DynamoDB takes of a table\u2019s creator, and no other role by ARN', () => {
    for (const [name, keyId] of Object.entries(keys())) {
      const byArn = keyPolicyOf(keyId).filter((s) => principalConditionKeys(s).includes('aws:PrincipalArn'));
      expect(byArn.map((s) => s.Sid), name).toEqual(name === 'table' ? ['DeployRoleCreatesTheTables'] : []);
    }
    // Describing the key and DynamoDB's grants, the rest of that minimum, are the account's already.
    const statements = keyPolicyOf(keys().table);
    expect(actionsOf(statements.find((s) => s.Sid === 'AdministerKey')!)).toContain('kms:DescribeKey');
    expect(actionsOf(statements.find((s) => s.Sid === 'DynamoDBGrantsForTheTable')!)).toEqual(['kms:CreateGrant']);
  });

  it('give the signing key the very policy rotate-signing-key gives a new key', () => {
    const substitute = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(substitute);
      if (value && typeof value === 'object') {
        const node = value as Json;
        if (node.Ref === 'AWS::Partition') return 'aws';
        if (node.Ref === 'AWS::AccountId') return '111122223333';
        if (node['Fn::Join']) return (substitute(node['Fn::Join'][1]) as string[]).join(node['Fn::Join'][0]);
        return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, k === 'Action' ? [v].flat() : substitute(v)]));
      }
      return value;
    };
    const deployed = substitute(resources[keys().signing]!.Properties.KeyPolicy);
    const rotated = signingKeyPolicy(keyPolicyContextOfArn('arn:aws:kms:eu-west-2:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab', STACK));
    const bySid = (policy: Json) => Object.fromEntries((policy.Statement as Json[]).map((s) => [s.Sid, s]));
    expect(bySid(deployed as Json)).toEqual(bySid(rotated));
  });
});

// ---- the roles -------------------------------------------------------------------------------------

describe('the roles', () => {
  /** Whether the key policy lets a principal with `tags` make this use: a statement for it needs no tag, or one of `tags`. */
  const keyPolicyAllows = (use: ReturnType<typeof kmsUsesOfRole>[number], tags: ReadonlySet<string>) =>
    keyPolicyOf(use.keyId)
      .filter((p) => actionsOf(p).includes(use.action) && same(useConditions(p), useConditions(use.statement)))
      .some((p) => tagOf(p) === undefined || tags.has(tagOf(p)!));

  it('carry the tag of every key use their IAM policy grants: the key policy allows them exactly that', () => {
    let checked = 0;
    for (const [roleId] of ofType('AWS::IAM::Role')) {
      const tags = new Set(Object.keys(rightTagsOfRole(roleId)));
      for (const use of kmsUsesOfRole(roleId)) {
        expect(keyPolicyAllows(use, tags), `${roleId}: ${use.action} with ${JSON.stringify(use.statement.Condition)} is refused by the key policy`).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(50);
  });

  it('carry no right tag their IAM policy does not use, each with the stack name', () => {
    for (const [roleId] of ofType('AWS::IAM::Role')) {
      const tags = rightTagsOfRole(roleId);
      for (const [tag, value] of Object.entries(tags)) {
        expect(value, `${roleId} ${tag}`).toBe(STACK);
        const without = new Set(Object.keys(tags).filter((other) => other !== tag));
        expect(
          kmsUsesOfRole(roleId).some((use) => !keyPolicyAllows(use, without)),
          `${roleId} carries ${tag}, which none of its key uses needs`,
        ).toBe(true);
      }
    }
  });

  it('tag the functions that need each use, and only them', () => {
    const holders = (tag: string) => ofType('AWS::IAM::Role').filter(([id]) => tagsOfRole(id)[tag] === STACK).map(([id]) => id).sort();
    const certificate = roleOfRoute(ROUTES.requestCertificate);
    expect(holders(KEY_RIGHT_TAGS.signCertificates)).toEqual([certificate]);
    expect(holders(KEY_RIGHT_TAGS.openIntegrationSecrets)).toEqual([roleOfRoute(ROUTES.inboundTicketStatus), roleOfRoute(ROUTES.inboundTicketTrigger)].sort());
    expect(holders(KEY_RIGHT_TAGS.openWebhookSecrets)).toEqual([roleOfWorker(/^webhook delivery: /)]);
    expect(holders(KEY_RIGHT_TAGS.sealIntegrationSecrets)).toEqual([roleOfRoute(ROUTES.appConfigureIntegration)]);
    expect(holders(KEY_RIGHT_TAGS.sealWebhookSecrets)).toEqual([roleOfRoute(ROUTES.createWebhook), roleOfRoute(ROUTES.appCreateWebhook), roleOfRoute(ROUTES.appRotateWebhookSecret)].sort());
    // Those that hash or check a code, and the member app's two whose body holds a secret (its Idempotency-Key fingerprint).
    const codeHashers = [
      ...[ROUTES.createRequest, ROUTES.appCreateRequest, ROUTES.inboundTicketTrigger, ROUTES.relinkRequest, ROUTES.appRelinkRequest, ROUTES.subjectEmailCode, ROUTES.subjectVerify],
      ...[ROUTES.appConfigureIntegration, ROUTES.appConnectHelpdesk],
    ];
    expect(holders(KEY_RIGHT_TAGS.hashCodes)).toEqual(codeHashers.map(roleOfRoute).sort());
    // The helpdesk reads (lib/helpdesk-checks.ts) and the member app's helpdesk check open an integration's helpdesk credentials; its helpdesk connection alone seals them.
    expect(holders(KEY_RIGHT_TAGS.openHelpdeskCredentials)).toEqual(
      [roleOfWorker(/^ticket check worker/), roleOfWorker(/^ticket reconciliation/), roleOfRoute(ROUTES.appCheckHelpdesk)].sort(),
    );
    expect(holders(KEY_RIGHT_TAGS.sealHelpdeskCredentials)).toEqual([roleOfRoute(ROUTES.appConnectHelpdesk)]);
    // Making a table under the key is a deploy's or a restore's, never a function's.
    expect(holders(KEY_RIGHT_TAGS.createTable)).toEqual([]);
    // The pages, the fallback and the schedulers' roles touch no key.
    expect(rightTagsOfRole(roleOfRoute(ROUTES.pageSubject))).toEqual({});
    expect(rightTagsOfRole(functionRoleOfRoute('$default'))).toEqual({});
    // The public keys' function reads the table, and may use no other key.
    expect(rightTagsOfRole(roleOfRoute(ROUTES.jwks))).toEqual({ [KEY_RIGHT_TAGS.readTable]: STACK });
  });

  it('in the nested stacks are tagged too, with the stack name as a plain value (no parameter, no cycle)', () => {
    const nested = ofType('AWS::IAM::Role').filter(([id]) => Object.keys(rightTagsOfRole(id)).length > 0);
    expect(nested.length).toBeGreaterThan(40);
    for (const [id, role] of nested) {
      for (const tag of role.Properties.Tags as Json[]) expect(typeof tag.Value, id).toBe('string');
    }
    expect(rightTagsOfRole(roleOfRoute(ROUTES.appSignIn))).toEqual({ [KEY_RIGHT_TAGS.writeTable]: STACK });
  });
});

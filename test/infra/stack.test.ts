import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FALLBACK_ENTRY, ROUTES, routeList } from '../../lambdas/http/routes.ts';
import { indexList, TABLE_KEYS, TTL_ATTRIBUTE } from '../../lambdas/store/table.ts';
import { REPO_ROOT } from '../../lib/api-functions.ts';
import { DEFAULT_EMAIL_FROM, HandoffStack } from '../../lib/handoff-stack.ts';

/**
 * CDK assertions on the synthesised template: named properties, not resource counts. The stack is
 * synthesised once per file (esbuild bundles every function, which takes a few seconds); a second,
 * unbundled stack checks the context settings.
 */

const SYNTH_TIMEOUT = 180_000;
/** Lambda has no hard limit this low; ours is a cold-start budget (see lib/api-functions.ts). */
const BUNDLE_LIMIT_BYTES = 1_000_000;

type Json = Record<string, any>;

let outdir: string;
let template: Template;
let resources: Record<string, Json>;

beforeAll(() => {
  outdir = mkdtempSync(path.join(tmpdir(), 'handoff-infra-'));
  const app = new App({ outdir });
  const stack = new HandoffStack(app, 'HandoffTest');
  template = Template.fromStack(stack);
  resources = template.toJSON().Resources;
}, SYNTH_TIMEOUT);

afterAll(() => {
  if (outdir) rmSync(outdir, { recursive: true, force: true });
});

// ---- helpers over the template ------------------------------------------------------------------

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const onlyId = (type: string) => {
  const found = ofType(type);
  expect(found, type).toHaveLength(1);
  return found[0]![0];
};
const tableId = () => onlyId('AWS::DynamoDB::Table');
const apiId = () => onlyId('AWS::ApiGatewayV2::Api');

const routeByKey = (routeKey: string) => {
  const found = ofType('AWS::ApiGatewayV2::Route').filter(([, r]) => r.Properties.RouteKey === routeKey);
  expect(found, routeKey).toHaveLength(1);
  return found[0]![1];
};

/** Route key → integration → the function it invokes (logical id). */
const functionIdOfRoute = (routeKey: string): string => {
  const target = routeByKey(routeKey).Properties.Target;
  const integrationId: string = target['Fn::Join'][1][1].Ref;
  const integration = resources[integrationId]!;
  expect(integration.Type).toBe('AWS::ApiGatewayV2::Integration');
  const uri = integration.Properties.IntegrationUri;
  expect(uri['Fn::GetAtt'][1]).toBe('Arn');
  return uri['Fn::GetAtt'][0];
};

const routeKeyOf = (route: { method: string; path: string }) => `${route.method} ${route.path}`;

const roleIdOfFunction = (functionId: string): string => resources[functionId]!.Properties.Role['Fn::GetAtt'][0];

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: Json;
}

const statementsOfRole = (roleId: string): Statement[] =>
  ofType('AWS::IAM::Policy')
    .filter(([, p]) => (p.Properties.Roles as Json[]).some((role) => role.Ref === roleId))
    .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Statement[]);

const actionsOf = (statement: Statement) => [statement.Action].flat();
const resourcesOf = (statement: Statement) => [statement.Resource].flat();
const allStatements = () => ofType('AWS::IAM::Policy').flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Statement[]);

const fallbackFunctionId = () => functionIdOfRoute('$default');
const createRequestFunctionId = () => functionIdOfRoute(routeKeyOf(ROUTES.createRequest));

// ---- the table ------------------------------------------------------------------------------------

describe('table', () => {
  it('is retained on stack deletion and replacement, and protected against deletion', () => {
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({ DeletionProtectionEnabled: true }),
    });
  });

  it('uses the shared key schema, on demand', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' },
      ],
    });
  });

  it('streams new images', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      StreamSpecification: { StreamViewType: 'NEW_IMAGE' },
    });
  });

  it('expires items on the shared TTL attribute', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
    });
  });

  it('has point-in-time recovery enabled', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
  });

  it.each(indexList().map((index) => [index.indexName, index] as const))('has the GSI %s with string keys, projecting all', (_name, index) => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      GlobalSecondaryIndexes: Match.arrayWith([
        {
          IndexName: index.indexName,
          KeySchema: [
            { AttributeName: index.partitionKey, KeyType: 'HASH' },
            { AttributeName: index.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ]),
      AttributeDefinitions: Match.arrayWith([
        { AttributeName: index.partitionKey, AttributeType: 'S' },
        { AttributeName: index.sortKey, AttributeType: 'S' },
      ]),
    });
  });

  it('has exactly the GSIs of the shared index list', () => {
    const names = resources[tableId()]!.Properties.GlobalSecondaryIndexes.map((gsi: Json) => gsi.IndexName);
    expect(names.sort()).toEqual(indexList().map((index) => index.indexName).sort());
  });
});

// ---- the API --------------------------------------------------------------------------------------

describe('HTTP API', () => {
  it('is an HTTP API with an auto-deployed $default stage writing JSON access logs', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', { ProtocolType: 'HTTP' });
    const stage = ofType('AWS::ApiGatewayV2::Stage');
    expect(stage).toHaveLength(1);
    const props = stage[0]![1].Properties;
    expect(props.StageName).toBe('$default');
    expect(props.AutoDeploy).toBe(true);
    const format = JSON.parse(props.AccessLogSettings.Format);
    expect(format).toMatchObject({ requestId: '$context.requestId', routeKey: '$context.routeKey', status: '$context.status' });
    const destination = props.AccessLogSettings.DestinationArn['Fn::GetAtt'];
    expect(resources[destination[0]]!.Type).toBe('AWS::Logs::LogGroup');
    expect(resources[destination[0]]!.Properties.RetentionInDays).toBeGreaterThan(0);
  });

  it('has one route per route-table row, with the exact route key, plus $default', () => {
    const keys = ofType('AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties.RouteKey);
    expect(keys.sort()).toEqual([...routeList().map(routeKeyOf), '$default'].sort());
    expect(keys).toContain('GET /v1/requests/{id}');
    expect(keys).toContain('POST /v1/requests/{id}/revoke');
  });

  it('integrates every route with its own function, Lambda proxy, payload 2.0', () => {
    const functionIds = [...routeList().map(routeKeyOf), '$default'].map(functionIdOfRoute);
    expect(new Set(functionIds).size).toBe(routeList().length + 1);
    for (const id of functionIds) expect(resources[id]!.Type).toBe('AWS::Lambda::Function');
    for (const [, integration] of ofType('AWS::ApiGatewayV2::Integration')) {
      expect(integration.Properties).toMatchObject({ IntegrationType: 'AWS_PROXY', PayloadFormatVersion: '2.0' });
    }
  });

  it('routes each row to a function built from that row\'s handler', () => {
    for (const route of routeList()) {
      const fn = resources[functionIdOfRoute(routeKeyOf(route))]!;
      expect(fn.Properties.Description).toBe(routeKeyOf(route));
    }
  });

  it('lets API Gateway invoke each function, from this API only', () => {
    const api = apiId();
    for (const id of [...routeList().map(routeKeyOf), '$default'].map(functionIdOfRoute)) {
      const permissions = ofType('AWS::Lambda::Permission').filter(([, p]) => p.Properties.FunctionName['Fn::GetAtt']?.[0] === id);
      expect(permissions.length, id).toBeGreaterThan(0);
      for (const [, permission] of permissions) {
        expect(permission.Properties.Principal).toBe('apigateway.amazonaws.com');
        expect(JSON.stringify(permission.Properties.SourceArn)).toContain(`"Ref":"${api}"`);
      }
    }
  });

  it('outputs the API root (…/v1) and the table name', () => {
    template.hasOutput('ApiUrl', {
      Value: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [apiId(), 'ApiEndpoint'] }, '/v1']] },
    });
    template.hasOutput('TableName', { Value: { Ref: tableId() } });
  });
});

// ---- the functions --------------------------------------------------------------------------------

describe('functions', () => {
  const allFunctionIds = () => ofType('AWS::Lambda::Function').map(([id]) => id);

  it('are exactly the route functions and the fallback', () => {
    const routed = [...routeList().map(routeKeyOf), '$default'].map(functionIdOfRoute);
    expect(allFunctionIds().sort()).toEqual(routed.sort());
  });

  it('run nodejs22.x, exporting handler from an ES module bundle', () => {
    for (const id of allFunctionIds()) {
      expect(resources[id]!.Properties).toMatchObject({ Runtime: 'nodejs22.x', Handler: 'index.handler' });
    }
  });

  it('log JSON into their own log group with a retention', () => {
    const groups = new Set<string>();
    for (const id of allFunctionIds()) {
      const logging = resources[id]!.Properties.LoggingConfig;
      expect(logging.LogFormat).toBe('JSON');
      const groupId: string = logging.LogGroup.Ref;
      expect(resources[groupId]!.Type).toBe('AWS::Logs::LogGroup');
      expect(resources[groupId]!.Properties.RetentionInDays).toBe(30);
      groups.add(groupId);
    }
    expect(groups.size).toBe(allFunctionIds().length);
  });

  it('give every API function the table, the URLs, the sender and logging settings', () => {
    for (const route of routeList()) {
      const variables = resources[functionIdOfRoute(routeKeyOf(route))]!.Properties.Environment.Variables;
      expect(variables, route.name).toEqual({
        TABLE_NAME: { Ref: tableId() },
        BASE_URL: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [apiId(), 'ApiEndpoint'] }, '/v1']] },
        APP_URL: { 'Fn::GetAtt': [apiId(), 'ApiEndpoint'] },
        EMAIL_FROM_ADDRESS: DEFAULT_EMAIL_FROM,
        LOG_LEVEL: 'INFO',
        POWERTOOLS_SERVICE_NAME: 'credential-handoff',
      });
    }
  });

  it('give the fallback function no table name', () => {
    const variables = resources[fallbackFunctionId()]!.Properties.Environment.Variables;
    expect(variables).not.toHaveProperty('TABLE_NAME');
    expect(variables).toMatchObject({ LOG_LEVEL: 'INFO' });
  });

  it('each have a role of their own', () => {
    const roles = allFunctionIds().map(roleIdOfFunction);
    expect(new Set(roles).size).toBe(roles.length);
  });
});

// ---- least privilege ------------------------------------------------------------------------------

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

  it('scopes every DynamoDB action to the table and its indexes', () => {
    const tableArn = { 'Fn::GetAtt': [tableId(), 'Arn'] };
    const indexArn = { 'Fn::Join': ['', [tableArn, '/index/*']] };
    for (const statement of allStatements().filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')))) {
      for (const resource of resourcesOf(statement)) {
        expect(resource).not.toBe('*');
        expect([tableArn, indexArn]).toContainEqual(resource);
      }
    }
  });

  it('grants no table administration', () => {
    const actions = allStatements().flatMap(actionsOf);
    for (const forbidden of ['dynamodb:DeleteTable', 'dynamodb:UpdateTable', 'dynamodb:CreateTable', 'dynamodb:UpdateTimeToLive', 'dynamodb:RestoreTableToPointInTime']) {
      expect(actions).not.toContain(forbidden);
    }
  });

  it('lets every API function read and write the table (rate limits, idempotency, audit)', () => {
    for (const route of routeList()) {
      const actions = statementsOfRole(roleIdOfFunction(functionIdOfRoute(routeKeyOf(route)))).flatMap(actionsOf);
      expect(actions, route.name).toEqual(
        expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:ConditionCheckItem']),
      );
    }
  });

  it('gives the fallback function no DynamoDB access at all', () => {
    const actions = statementsOfRole(roleIdOfFunction(fallbackFunctionId())).flatMap(actionsOf);
    expect(actions.filter((a) => a.startsWith('dynamodb:'))).toEqual([]);
  });

  it('lets only createRequest send email and SMS', () => {
    const createRole = roleIdOfFunction(createRequestFunctionId());
    for (const [roleId] of ofType('AWS::IAM::Role')) {
      const actions = statementsOfRole(roleId).flatMap(actionsOf);
      const sending = actions.filter((a) => a.startsWith('ses:') || a.startsWith('sns:'));
      if (roleId === createRole) expect(sending.sort()).toEqual(['ses:SendEmail', 'ses:SendRawEmail', 'sns:Publish']);
      else expect(sending, roleId).toEqual([]);
    }
  });

  it('pins createRequest\'s email sender with ses:FromAddress, on this account\'s identities', () => {
    const ses = statementsOfRole(roleIdOfFunction(createRequestFunctionId())).filter((s) => actionsOf(s).includes('ses:SendEmail'));
    expect(ses).toHaveLength(1);
    expect(ses[0]!.Condition).toEqual({ StringEquals: { 'ses:FromAddress': DEFAULT_EMAIL_FROM } });
    const resource = JSON.stringify(ses[0]!.Resource);
    expect(resource).toContain(':ses:');
    expect(resource).toContain('{"Ref":"AWS::AccountId"}');
    expect(resource).toContain(':identity/*');
  });

  it('lets each role write logs only to its own function\'s log group', () => {
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

  it('attaches no managed policies (no account-wide log permissions)', () => {
    for (const [roleId, role] of ofType('AWS::IAM::Role')) {
      expect(role.Properties.ManagedPolicyArns, roleId).toBeUndefined();
      expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
        { Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' } },
      ]);
    }
  });
});

// ---- region and account agnostic ------------------------------------------------------------------

describe('environment', () => {
  it('names no region, account or physical table name', () => {
    const text = JSON.stringify(template.toJSON());
    expect(text).not.toMatch(/\b(us|eu|ap|sa|ca|me|af|il|mx)-(east|west|north|south|central|northeast|southeast)-\d\b/);
    expect(text).not.toMatch(/\b\d{12}\b/);
    expect(resources[tableId()]!.Properties.TableName).toBeUndefined();
  });
});

// ---- the bundles ----------------------------------------------------------------------------------

describe('bundles', () => {
  const bundleOf = (functionId: string) => {
    const code = resources[functionId]!.Properties.Code;
    const hash = String(code.S3Key).replace(/\.zip$/, '');
    return path.join(outdir, `asset.${hash}`, 'index.mjs');
  };

  const entries = () => [
    ...routeList().map((route) => ({ name: route.name, entry: route.entry, functionId: functionIdOfRoute(routeKeyOf(route)) })),
    { name: 'fallback', entry: FALLBACK_ENTRY, functionId: fallbackFunctionId() },
  ];

  it('every route and the fallback point at an existing handler file', () => {
    for (const { entry } of entries()) expect(existsSync(path.join(REPO_ROOT, entry)), entry).toBe(true);
  });

  it(`are each under ${BUNDLE_LIMIT_BYTES} bytes`, () => {
    const sizes: Record<string, number> = {};
    for (const { name, functionId } of entries()) {
      const file = bundleOf(functionId);
      expect(existsSync(file), file).toBe(true);
      sizes[name] = statSync(file).size;
    }
    console.info('bundle sizes (bytes):', sizes);
    for (const [name, size] of Object.entries(sizes)) expect(size, name).toBeLessThan(BUNDLE_LIMIT_BYTES);
  });

  it('start with the createRequire banner and leave the AWS SDK to the runtime', () => {
    for (const { name, functionId } of entries()) {
      const code = readFileSync(bundleOf(functionId), 'utf8');
      expect(code.split('\n')[0], name).toMatch(/^import \{ createRequire as \w+ \} from 'module'; const require = \w+\(import\.meta\.url\);$/);
      expect(code, name).not.toMatch(/node_modules\/@aws-sdk\//);
    }
  });

  it('load as ES modules exporting a handler', () => {
    // The SDK is external, as in Lambda, where the runtime provides it: resolve it from the repo.
    const modules = path.join(outdir, 'node_modules');
    if (!existsSync(modules)) symlinkSync(path.join(REPO_ROOT, 'node_modules'), modules, 'dir');
    for (const { name, functionId } of entries()) {
      const script = `const m = await import(${JSON.stringify(bundleOf(functionId))}); process.stdout.write(typeof m.handler);`;
      const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
        env: { PATH: process.env.PATH, AWS_REGION: 'eu-west-2' },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(output, name).toBe('function');
    }
  }, 120_000);
});

// ---- context settings -----------------------------------------------------------------------------

describe('context', () => {
  /** Bundling skipped: only the template matters here. */
  const synth = (context: Record<string, unknown>) => {
    const app = new App({ outdir: mkdtempSync(path.join(tmpdir(), 'handoff-infra-ctx-')), context: { 'aws:cdk:bundling-stacks': [], ...context } });
    try {
      return Template.fromStack(new HandoffStack(app, 'HandoffContext'));
    } finally {
      rmSync(app.outdir, { recursive: true, force: true });
    }
  };

  it('sets APP_URL and the sender from context', () => {
    const t = synth({ appUrl: 'https://handoff.example.org/', emailFrom: 'links@mail.example.org' });
    const json = t.toJSON().Resources as Record<string, Json>;
    const functions = Object.values(json).filter((r) => r.Type === 'AWS::Lambda::Function');
    const apiFunctions = functions.filter((fn) => fn.Properties.Environment.Variables.TABLE_NAME);
    expect(apiFunctions).toHaveLength(routeList().length);
    for (const fn of apiFunctions) {
      expect(fn.Properties.Environment.Variables).toMatchObject({
        APP_URL: 'https://handoff.example.org',
        EMAIL_FROM_ADDRESS: 'links@mail.example.org',
      });
    }
    t.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Condition: { StringEquals: { 'ses:FromAddress': 'links@mail.example.org' } } }),
        ]),
      },
    });
  }, SYNTH_TIMEOUT);

  it('refuses a sender that is not an email address, and an appUrl that is not https', () => {
    expect(() => synth({ emailFrom: 'not-an-address' })).toThrow(/emailFrom/);
    expect(() => synth({ appUrl: 'http://handoff.example.org' })).toThrow(/appUrl/);
  }, SYNTH_TIMEOUT);
});

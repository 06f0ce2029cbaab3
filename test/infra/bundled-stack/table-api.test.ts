import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ROUTES, routeList } from '../../../lambdas/http/routes.ts';
import { indexList, TABLE_KEYS, TTL_ATTRIBUTE } from '../../../lambdas/store/table.ts';
import { ADMIN_API_STACK, isStaticEntry, MEMBER_API_STACK, nestedStackOfRoute } from '../../../lib/api-functions.ts';
import {
  template,
  resources,
  resourceCounts,
  useBundledStack,
  type Json,
  apiId,
  entries,
  fallbackFunctionId,
  functionIdOf,
  functionIdOfEntry,
  functionIdOfRoute,
  ofType,
  routeKeyOf,
  rowsOf,
  tableId,
} from '../../support/stack-template.ts';

/**
 * The main table and the HTTP API of the bundled test stack (test/support/stack-template.ts), and a
 * template that names no region or account.
 */

useBundledStack();

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

  it('streams keys only', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      StreamSpecification: { StreamViewType: 'KEYS_ONLY' },
    });
  });

  it('expires items on the shared TTL attribute', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
    });
  });

  it("counts rate windows in a table of their own: the shared key schema and TTL, no stream or index, under the table's key", () => {
    const rate = ofType('AWS::DynamoDB::Table').filter(([id]) => id !== tableId());
    expect(rate).toHaveLength(1);
    const properties = rate[0]![1].Properties;
    expect(properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' },
      ],
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
    });
    expect(properties.StreamSpecification).toBeUndefined();
    expect(properties.GlobalSecondaryIndexes).toBeUndefined();
    expect(properties.SSESpecification.KMSMasterKeyId).toEqual(resources[tableId()]!.Properties.SSESpecification.KMSMasterKeyId);
  });

  it('has point-in-time recovery enabled for 7 days, the default period', () => {
    expect(resources[tableId()]!.Properties.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true, RecoveryPeriodInDays: 7 });
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

  it('keeps every stack well under CloudFormation\'s 500 resources: the member app\'s endpoints in two nested stacks', () => {
    expect(Object.keys(resourceCounts)).toEqual(['HandoffTest', `HandoffTest/Routes/${MEMBER_API_STACK}`, `HandoffTest/Routes/${ADMIN_API_STACK}`]);
    for (const [path, count] of Object.entries(resourceCounts)) expect(count, path).toBeLessThanOrEqual(400);
    // Each route's function is where nestedStackOfRoute puts it.
    expect(nestedStackOfRoute(ROUTES.createRequest)).toBeNull();
    expect(nestedStackOfRoute(ROUTES.appCreateRequest)).toBe(MEMBER_API_STACK);
    expect(nestedStackOfRoute(ROUTES.appIntegrations)).toBe(ADMIN_API_STACK);
  });

  it('has one route per route-table row, with the exact route key, plus $default', () => {
    const keys = ofType('AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties.RouteKey);
    expect(keys.sort()).toEqual([...routeList().map(routeKeyOf), '$default'].sort());
    expect(keys).toContain('GET /v1/requests/{id}');
    expect(keys).toContain('POST /v1/requests/{id}/revoke');
  });

  it('integrates the rows of one handler entry with one function, and each entry with its own, Lambda proxy, payload 2.0', () => {
    for (const entry of entries()) {
      const ids = new Set(rowsOf(entry).map(functionIdOf));
      expect(ids.size, entry).toBe(1);
    }
    const perEntry = entries().map(functionIdOfEntry);
    expect(new Set([...perEntry, fallbackFunctionId()]).size).toBe(entries().length + 1);
    for (const id of perEntry) expect(resources[id]!.Type).toBe('AWS::Lambda::Function');
    for (const [, integration] of ofType('AWS::ApiGatewayV2::Integration')) {
      expect(integration.Properties).toMatchObject({ IntegrationType: 'AWS_PROXY', PayloadFormatVersion: '2.0' });
    }
  });

  it('serves the five page routes from one static function', () => {
    const pages = routeList().filter((route) => isStaticEntry(route.entry));
    expect(pages.map(routeKeyOf).sort()).toEqual(['GET /app', 'GET /app/{path+}', 'GET /assets/{file}', 'GET /r/{token}', 'GET /s/{token}']);
    expect(new Set(pages.map(functionIdOf)).size).toBe(1);
  });

  it('describes each function by the rows it serves', () => {
    for (const entry of entries()) {
      const description = resources[functionIdOfEntry(entry)]!.Properties.Description;
      expect(description).toBe(rowsOf(entry).map(routeKeyOf).join(', '));
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

// ---- region and account agnostic ------------------------------------------------------------------

describe('environment', () => {
  it('names no region, account or physical table name', () => {
    const text = JSON.stringify(template.toJSON());
    expect(text).not.toMatch(/\b(us|eu|ap|sa|ca|me|af|il|mx)-(east|west|north|south|central|northeast|southeast)-\d\b/);
    expect(text).not.toMatch(/\b\d{12}\b/);
    expect(resources[tableId()]!.Properties.TableName).toBeUndefined();
  });
});

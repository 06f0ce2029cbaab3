import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { flatTemplate } from '../support/flat-template.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  itemActionsOf,
  keyPattern,
  MissingTableAccessError,
  ROUTE_TABLE_ACCESS,
  tableAccessOfEntry,
  tableAccessOfRoute,
  tableAccessOfWorker,
  writesTable,
  type TableAccess,
  type WorkerName,
} from '../../lambdas/access/table-access.ts';
import { FALLBACK_ENTRY, ROUTES, routeList, type Route } from '../../lambdas/http/routes.ts';
import { INDEXES, RATE_PARTITION_PREFIX } from '../../lambdas/store/table.ts';
import { HandoffStack } from '../../lib/handoff-stack.ts';

/**
 * Each function's DynamoDB rights as the synthesised template has them, against its declaration
 * (lambdas/access/table-access.ts): the named functions spelt out in full here, every function
 * checked against its declaration, and the table's customer-managed key. The stack is synthesised
 * without bundling: only the policies matter.
 */

type Json = Record<string, any>;
const context = { 'aws:cdk:bundling-stacks': [], emailFrom: 'handoff@test.example' };
const outdirs: string[] = [];
const newApp = () => {
  const outdir = mkdtempSync(path.join(tmpdir(), 'handoff-table-access-'));
  outdirs.push(outdir);
  return new App({ outdir, context });
};

let resources: Record<string, Json>;

beforeAll(() => {
  resources = flatTemplate(new HandoffStack(newApp(), 'TableAccess')).toJSON().Resources;
}, 180_000);

afterAll(() => {
  for (const outdir of outdirs) rmSync(outdir, { recursive: true, force: true });
});

// ---- the template ----------------------------------------------------------------------------------

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const onlyId = (type: string) => {
  const found = ofType(type);
  expect(found, type).toHaveLength(1);
  return found[0]![0];
};
/** The main table (the one with a stream) and the rate windows' table. */
const tableId = () => {
  const found = ofType('AWS::DynamoDB::Table').filter(([, t]) => t.Properties.StreamSpecification);
  expect(found).toHaveLength(1);
  return found[0]![0];
};
const rateTableId = () => {
  const found = ofType('AWS::DynamoDB::Table').filter(([, t]) => !t.Properties.StreamSpecification);
  expect(found).toHaveLength(1);
  return found[0]![0];
};
const tableKeyId = (): string => resources[tableId()]!.Properties.SSESpecification.KMSMasterKeyId['Fn::GetAtt'][0];
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

const functionIdOfRouteKey = (routeKey: string): string => {
  const routes = ofType('AWS::ApiGatewayV2::Route').filter(([, r]) => r.Properties.RouteKey === routeKey);
  expect(routes, routeKey).toHaveLength(1);
  const integrationId: string = routes[0]![1].Properties.Target['Fn::Join'][1][1].Ref;
  return resources[integrationId]!.Properties.IntegrationUri['Fn::GetAtt'][0];
};
const functionIdOf = (route: Pick<Route, 'method' | 'path'>) => functionIdOfRouteKey(`${route.method} ${route.path}`);

/** The workers, by their handler descriptions (lib/expiry.ts, lib/webhooks.ts, lib/helpdesk-checks.ts, lib/api-read-records.ts). */
const WORKERS: Record<WorkerName, RegExp> = {
  expire: /^expiry worker/,
  purge: /^purge worker/,
  sweep: /^expiry sweep/,
  fanOut: /^webhook fan-out/,
  deliver: /^webhook delivery: /,
  deliverySweep: /^webhook delivery sweep/,
  ticketCheck: /^ticket check worker/,
  reconcile: /^ticket reconciliation/,
  recordApiReads: /^API read recorder/,
};
const workerFunctionId = (worker: WorkerName) => {
  const found = ofType('AWS::Lambda::Function').filter(([, fn]) => WORKERS[worker].test(fn.Properties.Description));
  expect(found, worker).toHaveLength(1);
  return found[0]![0];
};

interface Statement {
  Sid?: string;
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: Json;
}
const roleIdOf = (functionId: string): string => resources[functionId]!.Properties.Role['Fn::GetAtt'][0];
const statementsOfRole = (roleId: string): Statement[] =>
  ofType('AWS::IAM::Policy')
    .filter(([, p]) => (p.Properties.Roles as Json[]).some((role) => role.Ref === roleId))
    .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Statement[]);
const statementsOf = (functionId: string) => statementsOfRole(roleIdOf(functionId));
const allStatements = () => ofType('AWS::IAM::Policy').flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Statement[]);
const actionsOf = (statement: Statement) => [statement.Action].flat();
const resourcesOf = (statement: Statement) => [statement.Resource].flat();

/** Where a DynamoDB statement applies: the table, one index, the stream; anything else is named as it is. */
const resourceLabel = (resource: unknown): string => {
  const table = { 'Fn::GetAtt': [tableId(), 'Arn'] };
  if (same(resource, table)) return 'table';
  if (same(resource, { 'Fn::GetAtt': [rateTableId(), 'Arn'] })) return 'rate table';
  if (same(resource, { 'Fn::GetAtt': [tableId(), 'StreamArn'] })) return 'stream';
  for (const index of Object.values(INDEXES)) {
    if (same(resource, { 'Fn::Join': ['', [table, `/index/${index.indexName}`]] })) return `index/${index.indexName}`;
  }
  return `unexpected ${JSON.stringify(resource)}`;
};

/**
 * A role's DynamoDB rights as `"<Action> <where>" → the LeadingKeys patterns allowed (sorted), or
 * 'any key'` when the statement has no condition (the stream's). A right granted twice fails.
 */
const tableGrantsOf = (functionId: string): Record<string, string[] | 'any key'> => {
  const grants: Record<string, string[] | 'any key'> = {};
  for (const statement of statementsOf(functionId).filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')))) {
    expect(statement.Effect).toBe('Allow');
    const condition = statement.Condition;
    let patterns: string[] | 'any key' = 'any key';
    if (condition !== undefined) {
      // The one condition a table statement may carry: ForAllValues:StringLike on the leading keys.
      expect(Object.keys(condition), functionId).toEqual(['ForAllValues:StringLike']);
      expect(Object.keys(condition['ForAllValues:StringLike']), functionId).toEqual(['dynamodb:LeadingKeys']);
      patterns = [condition['ForAllValues:StringLike']['dynamodb:LeadingKeys']].flat().sort();
    }
    for (const action of actionsOf(statement)) {
      for (const resource of resourcesOf(statement)) {
        const grant = `${action.replace(/^dynamodb:/, '')} ${resourceLabel(resource)}`;
        expect(grants, `${functionId}: ${grant} granted twice`).not.toHaveProperty(grant);
        grants[grant] = patterns;
      }
    }
  }
  return grants;
};

/** The same map, as a declaration says it should be. */
const grantsOfDeclaration = (access: TableAccess): Record<string, string[] | 'any key'> => {
  const grants: Record<string, string[] | 'any key'> = {};
  for (const action of itemActionsOf(access)) {
    // Rate windows are counted in the rate table (lambdas/store/table.ts).
    for (const [where, partitions] of [
      ['table', access.items[action]!.filter((p) => !p.startsWith(RATE_PARTITION_PREFIX))],
      ['rate table', access.items[action]!.filter((p) => p.startsWith(RATE_PARTITION_PREFIX))],
    ] as const) {
      if (partitions.length > 0) grants[`${action} ${where}`] = partitions.map(keyPattern).sort();
    }
  }
  for (const [index, partitions] of Object.entries(access.indexes ?? {})) grants[`Query index/${index}`] = partitions!.map(keyPattern).sort();
  if (access.stream) for (const action of ['DescribeStream', 'GetRecords', 'GetShardIterator', 'ListStreams']) grants[`${action} stream`] = 'any key';
  return grants;
};

/** The role's statements on the table's key. */
const tableKeyStatementsOf = (roleId: string) =>
  statementsOfRole(roleId).filter((s) => resourcesOf(s).some((resource) => same(resource, { 'Fn::GetAtt': [tableKeyId(), 'Arn'] })));
const VIA_DYNAMODB = { StringEquals: { 'kms:ViaService': { 'Fn::Join': ['', ['dynamodb.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }]] } } };
const READ_KEY = ['kms:Decrypt'];
const WRITE_KEY = ['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey'];
const keyActionsOf = (functionId: string) => {
  const statements = tableKeyStatementsOf(roleIdOf(functionId));
  if (statements.length === 0) return [];
  expect(statements, functionId).toHaveLength(1);
  expect(statements[0]!.Condition, functionId).toEqual(VIA_DYNAMODB);
  return actionsOf(statements[0]!).sort();
};

/** Every function of the stack with the declaration it should follow. */
const declaredFunctions = (): Array<{ name: string; functionId: string; access: TableAccess }> => [
  ...[...new Set(routeList().map((route) => route.entry))].map((entry) => ({
    name: entry,
    functionId: functionIdOf(routeList().find((route) => route.entry === entry)!),
    access: tableAccessOfEntry(entry),
  })),
  { name: 'fallback', functionId: functionIdOfRouteKey('$default'), access: tableAccessOfEntry(FALLBACK_ENTRY) },
  ...(Object.keys(WORKERS) as WorkerName[]).map((worker) => ({ name: worker, functionId: workerFunctionId(worker), access: tableAccessOfWorker(worker) })),
];

// ---- the named functions, spelt out -----------------------------------------------------------------

/**
 * Every /v1 call: its key (and its last use, written once an hour at most), organisation and rate
 * window, and the audit entry of a refusal (an IP allowlist). What it may read it may also
 * batch-read: reads started together go as one batch.
 */
const API_KEY_CALLER = {
  'BatchGetItem table': ['APIKEY#*', 'AUDIT#*', 'ORG#*'],
  // The key checked again in each audited change's transaction.
  'ConditionCheckItem table': ['APIKEY#*'],
  'GetItem table': ['APIKEY#*', 'AUDIT#*', 'ORG#*'],
  'PutItem table': ['AUDIT#*'],
  'UpdateItem table': ['APIKEY#*', 'AUDIT#*'],
  'UpdateItem rate table': ['RATE#org#*'],
};

/** The routes whose calls leave a read record: their functions log it, and only the recorder stores it (lib/api-read-records.ts). */
const READ_ROUTES = [ROUTES.listRequests, ROUTES.getRequest, ROUTES.listEvents, ROUTES.listWebhooks, ROUTES.requestCertificate, ROUTES.shareCertificate];

describe('the named functions have exactly these DynamoDB rights', () => {
  it('sign-in: the address\'s memberships and sending window, the sign-in token, the member; nothing of requests, keys or sessions', () => {
    const id = functionIdOf(ROUTES.appSignIn);
    expect(tableGrantsOf(id)).toEqual({
      'GetItem table': ['LOGIN#*', 'ORG#*'],
      'PutItem table': ['LOGIN#*', 'SIGNIN#*'],
      'Query table': ['LOGIN#*'],
    });
    expect(keyActionsOf(id)).toEqual(WRITE_KEY);
  });

  it('session: reads the sign-in token (a preview) or spends it, reads the member, makes the session', () => {
    const id = functionIdOf(ROUTES.appSession);
    expect(tableGrantsOf(id)).toEqual({
      'DeleteItem table': ['SIGNIN#*'],
      'GetItem table': ['ORG#*', 'SIGNIN#*'],
      'PutItem table': ['SESSION#*'],
    });
  });

  it("the subject's page: reads its link, request and organisation; the changes write the request and its audit entry", () => {
    expect(tableGrantsOf(functionIdOf(ROUTES.subjectRequest))).toEqual({
      'GetItem table': ['LINK#*', 'ORG#*', 'REQ#*'],
      'Query table': ['ORG#*'],
    });
    expect(keyActionsOf(functionIdOf(ROUTES.subjectRequest))).toEqual(READ_KEY);
    for (const route of [ROUTES.subjectOpen, ROUTES.subjectEmailCode, ROUTES.subjectVerify, ROUTES.subjectReport]) {
      expect(tableGrantsOf(functionIdOf(route)), route.name).toEqual({
        'GetItem table': ['AUDIT#*', 'LINK#*', 'ORG#*', 'REQ#*'],
        'PutItem table': ['AUDIT#*', 'REQ#*'],
        'Query table': ['ORG#*'],
        'UpdateItem table': ['AUDIT#*'],
      });
      expect(keyActionsOf(functionIdOf(route))).toEqual(WRITE_KEY);
    }
    // The submission also destroys what it stored when the request's ticket is already closed.
    expect(tableGrantsOf(functionIdOf(ROUTES.subjectSubmit))).toEqual({
      'DeleteItem table': ['REQ#*'],
      'GetItem table': ['AUDIT#*', 'LINK#*', 'ORG#*', 'REQ#*'],
      'PutItem table': ['AUDIT#*', 'REQ#*'],
      'Query table': ['ORG#*', 'REQ#*'],
      'UpdateItem table': ['AUDIT#*'],
    });
    expect(keyActionsOf(functionIdOf(ROUTES.subjectSubmit))).toEqual(WRITE_KEY);
  });

  it("a share's recipient: its link and share only", () => {
    expect(tableGrantsOf(functionIdOf(ROUTES.shareDescribe))).toEqual({ 'GetItem table': ['SHARE#*', 'SHARELINK#*'] });
  });

  it('ping and the public keys: the caller and its audit entry; the signing keys partition alone, read only', () => {
    expect(tableGrantsOf(functionIdOf(ROUTES.ping))).toEqual(API_KEY_CALLER);
    expect(tableGrantsOf(functionIdOf(ROUTES.jwks))).toEqual({ 'Query table': ['SIGNING_KEYS'] });
    expect(keyActionsOf(functionIdOf(ROUTES.jwks))).toEqual(READ_KEY);
  });

  it('the public keys function cannot write the key list it publishes: no write declared, no DynamoDB write deployed', () => {
    const access = tableAccessOfRoute('jwks');
    expect(writesTable(access)).toBe(false);
    expect(itemActionsOf(access).filter((action) => !['GetItem', 'BatchGetItem', 'Query'].includes(action))).toEqual([]);
    const dynamoActions = statementsOf(functionIdOf(ROUTES.jwks)).flatMap(actionsOf).filter((action) => action.startsWith('dynamodb:'));
    expect(dynamoActions.length).toBeGreaterThan(0);
    expect(dynamoActions.filter((action) => /^dynamodb:(PutItem|UpdateItem|DeleteItem|BatchWriteItem|TransactWriteItems|PartiQL(Insert|Update|Delete))$/.test(action))).toEqual([]);
    // Registering the first key is the certificate function's, which signs with it.
    expect(tableGrantsOf(functionIdOf(ROUTES.requestCertificate))['PutItem table']).toContain('SIGNING_KEYS');
  });

  it('GET /requests/{id}: the caller and the request; nothing of its read record, which it logs', () => {
    const reads = ['APIKEY#*', 'AUDIT#*', 'ORG#*', 'REQ#*'];
    expect(tableGrantsOf(functionIdOf(ROUTES.getRequest))).toEqual({ ...API_KEY_CALLER, 'BatchGetItem table': reads, 'GetItem table': reads });
  });

  it('read records: the reading functions write none; the recorder alone stores them (BatchWriteItem on APIREAD# and nothing else of the table), and the audit log page alone reads them back', () => {
    for (const route of READ_ROUTES) {
      expect(tableGrantsOf(functionIdOf(route))['PutItem table'] ?? [], route.name).not.toContain('APIREAD#*');
    }
    const recorder = workerFunctionId('recordApiReads');
    expect(tableGrantsOf(recorder)).toEqual({ 'BatchWriteItem table': ['APIREAD#*'] });
    expect(keyActionsOf(recorder)).toEqual(WRITE_KEY);
    expect(tableGrantsOf(functionIdOf(ROUTES.appAudit))).toEqual({ 'ConditionCheckItem table': ['ORG#*'], 'GetItem table': ['ORG#*', 'SESSION#*'], 'Query table': ['APIREAD#*', 'AUDIT#*'] });
    // Every right on APIREAD#, whichever function has it: those two, and none else.
    const onReadRecords: string[] = [];
    for (const { name, functionId } of declaredFunctions()) {
      for (const [grant, patterns] of Object.entries(tableGrantsOf(functionId))) {
        if (patterns === 'any key' || !patterns.includes('APIREAD#*')) continue;
        onReadRecords.push(`${name}: ${grant}`);
      }
    }
    expect(onReadRecords.sort()).toEqual([`${ROUTES.appAudit.entry}: Query table`, 'recordApiReads: BatchWriteItem table']);
  });

  it('POST /requests: the caller, its idempotency record, the organisation, the request and its link record, audited', () => {
    expect(tableGrantsOf(functionIdOf(ROUTES.createRequest))).toEqual({
      'BatchGetItem table': ['APIKEY#*', 'AUDIT#*', 'IDEM#*', 'ORG#*'],
      // The caller's key, and the organisation's policy version the request was judged under.
      'ConditionCheckItem table': ['APIKEY#*', 'ORG#*'],
      'DeleteItem table': ['IDEM#*'],
      'GetItem table': ['APIKEY#*', 'AUDIT#*', 'IDEM#*', 'ORG#*'],
      // The request's own item in its organisation's ticket index, in the same transaction.
      'PutItem table': ['AUDIT#*', 'IDEM#*', 'LINK#*', 'REQ#*', 'TICKETS#*'],
      'Query table': ['ORG#*'],
      // The request's ticket noted in its organisation's ticket index, in the same transaction.
      'UpdateItem table': ['APIKEY#*', 'AUDIT#*', 'IDEM#*', 'TICKETS#*'],
      'UpdateItem rate table': ['RATE#org#*'],
    });
  });

  it('the ticket statuses and reads find records through the ticket index’s own items, which the GSIs may not list yet', () => {
    for (const functionId of [functionIdOf(ROUTES.markTicketStatus), functionIdOf(ROUTES.inboundTicketStatus), workerFunctionId('ticketCheck'), workerFunctionId('reconcile')]) {
      expect(tableGrantsOf(functionId)['Query table'], functionId).toContain('TICKETS#*');
    }
  });

  it('GET /requests: the four list indexes, under organisation partitions only', () => {
    expect(tableGrantsOf(functionIdOf(ROUTES.listRequests))).toEqual({
      ...API_KEY_CALLER,
      'Query index/byOrg': ['ORG#*'],
      'Query index/byStatus': ['ORG#*'],
      'Query index/byClient': ['ORG#*'],
      'Query index/byTicket': ['ORG#*'],
    });
  });

  it('the fan-out: the stream (keys only), the entries it names, the organisation (its plan) and its subscriptions, a delivery each', () => {
    const id = workerFunctionId('fanOut');
    expect(tableGrantsOf(id)).toEqual({
      'BatchGetItem table': ['AUDIT#*', 'ORG#*'],
      'DescribeStream stream': 'any key',
      'GetItem table': ['AUDIT#*', 'ORG#*'],
      'GetRecords stream': 'any key',
      'GetShardIterator stream': 'any key',
      'ListStreams stream': 'any key',
      'PutItem table': ['DELIVERY#*'],
      'Query table': ['ORG#*'],
    });
    expect(keyActionsOf(id)).toEqual(WRITE_KEY);
  });

  it('the delivery worker: the delivery, its subscription, the event entry, and the audit entry of a final failure', () => {
    expect(tableGrantsOf(workerFunctionId('deliver'))).toEqual({
      // A batch's reads started together go as one BatchGetItem: the same items, batched.
      'BatchGetItem table': ['AUDIT#*', 'DELIVERY#*', 'ORG#*'],
      'GetItem table': ['AUDIT#*', 'DELIVERY#*', 'ORG#*'],
      'PutItem table': ['AUDIT#*'],
      'UpdateItem table': ['AUDIT#*', 'DELIVERY#*', 'ORG#*'],
    });
  });

  it('the sweeps: the due shards of their index, and the expiry sweep settles requests and shares as the workers do', () => {
    expect(tableGrantsOf(workerFunctionId('deliverySweep'))).toEqual({ 'Query index/byDelivery': ['DELIVERY_DUE#*'] });
    expect(keyActionsOf(workerFunctionId('deliverySweep'))).toEqual(READ_KEY);
    expect(tableGrantsOf(workerFunctionId('sweep'))).toEqual({
      'DeleteItem table': ['REQ#*', 'SHARE#*'],
      'GetItem table': ['AUDIT#*', 'ORG#*', 'REQ#*', 'SHARE#*'],
      'PutItem table': ['AUDIT#*', 'REQ#*', 'SHARE#*'],
      'Query table': ['REQ#*'],
      'UpdateItem table': ['AUDIT#*'],
      'Query index/byDue': ['DUE#*', 'SHAREDUE#*'],
    });
  });

  it('the pages and the fallback: nothing of the table, nor its key', () => {
    for (const id of [functionIdOf(ROUTES.pageSubject), functionIdOfRouteKey('$default')]) {
      expect(tableGrantsOf(id)).toEqual({});
      expect(keyActionsOf(id)).toEqual([]);
    }
  });
});

// ---- every function ---------------------------------------------------------------------------------

describe('every function', () => {
  it('has exactly the table, index and stream rights of its declaration', () => {
    for (const { name, functionId, access } of declaredFunctions()) {
      expect(tableGrantsOf(functionId), name).toEqual(grantsOfDeclaration(access));
    }
  });

  it('may use the table key only through DynamoDB: Decrypt to read, Encrypt and GenerateDataKey too to write, nothing without table access', () => {
    for (const { name, functionId, access } of declaredFunctions()) {
      const expected = itemActionsOf(access).length === 0 && !access.indexes && !access.stream ? [] : writesTable(access) ? WRITE_KEY : READ_KEY;
      expect(keyActionsOf(functionId), name).toEqual(expected);
    }
    // No other role (the schedulers', say) may use it at all.
    const functionRoles = new Set(declaredFunctions().map(({ functionId }) => roleIdOf(functionId)));
    for (const [roleId] of ofType('AWS::IAM::Role').filter(([id]) => !functionRoles.has(id))) expect(tableKeyStatementsOf(roleId), roleId).toEqual([]);
  });

  it('has no Scan, no wildcard, no PartiQL and no batch action it does not declare; the recorder alone batch-writes', () => {
    // Batch reads: the certificate functions (the chain's entries, by sequence number), every /v1
    // function and the inbound URLs, whose reads started together go as one batch, on exactly what
    // they may GetItem, the delivery worker, which reads a batch of deliveries so, and the fan-out,
    // which reads a stream batch's entries so.
    const batchers = declaredFunctions().filter(({ access }) => (access.items.BatchGetItem?.length ?? 0) > 0);
    const v1Routes = routeList().filter((route) => route.path.startsWith('/v1/') && route.name !== 'openapi');
    expect(v1Routes.length).toBeGreaterThan(5);
    const batchingRoutes = [...v1Routes, ...routeList().filter((route) => route.path.startsWith('/inbound/'))];
    for (const route of batchingRoutes) {
      const { items } = tableAccessOfRoute(route.name);
      expect([...(items.BatchGetItem ?? [])].sort(), route.name).toEqual([...(items.GetItem ?? [])].sort());
    }
    for (const { name, access } of batchers) {
      for (const partition of access.items.BatchGetItem ?? []) expect(access.items.GetItem ?? [], `${name} batch-reads ${partition}`).toContain(partition);
      if (!batchingRoutes.some((route) => route.entry === name)) expect(name).toMatch(/certificate|^deliver$|^fanOut$/i);
    }
    const batchingRoles = new Set(batchers.map(({ functionId }) => roleIdOf(functionId)));
    const batchWriters = declaredFunctions().filter(({ access }) => (access.items.BatchWriteItem?.length ?? 0) > 0);
    expect(batchWriters.map(({ name }) => name)).toEqual(['recordApiReads']);
    const batchWritingRoles = new Set(batchWriters.map(({ functionId }) => roleIdOf(functionId)));
    for (const [roleId] of ofType('AWS::IAM::Role')) {
      const actions = statementsOfRole(roleId).flatMap(actionsOf).filter((action) => action.startsWith('dynamodb:'));
      for (const action of actions) {
        expect(action, roleId).not.toMatch(/\*/);
        expect(action, roleId).not.toMatch(/^dynamodb:(Scan|PartiQL)/);
        if (action === 'dynamodb:BatchGetItem') expect(batchingRoles.has(roleId), roleId).toBe(true);
        if (action === 'dynamodb:BatchWriteItem') expect(batchWritingRoles.has(roleId), roleId).toBe(true);
      }
    }
    expect(allStatements().flatMap(actionsOf)).not.toContain('dynamodb:*');
  });

  it('is one the declarations cover: the route functions, the fallback and the workers, nothing else', () => {
    const covered = declaredFunctions().map(({ functionId }) => functionId).sort();
    expect(ofType('AWS::Lambda::Function').map(([id]) => id).sort()).toEqual(covered);
  });
});

describe('the declarations', () => {
  it('name every route of the table, and no route that is not in it', () => {
    for (const route of routeList()) expect(() => tableAccessOfRoute(route.name), route.name).not.toThrow();
    expect(Object.keys(ROUTE_TABLE_ACCESS).sort()).toEqual(routeList().map((route) => route.name).sort());
  });

  it('a route added without one fails the synth, naming the route and where to declare it', () => {
    const table = ROUTES as unknown as Record<string, Route>;
    table.undeclaredProbe = { name: 'undeclaredProbe', method: 'GET', path: '/v1/undeclared-probe', scope: 'any', entry: 'lambdas/http/handlers/ping.ts' };
    try {
      expect(() => new HandoffStack(newApp(), 'Undeclared')).toThrow(MissingTableAccessError);
      expect(() => tableAccessOfRoute('undeclaredProbe')).toThrow(/route undeclaredProbe has no table access declaration: add one to ROUTE_TABLE_ACCESS in lambdas\/access\/table-access.ts/);
    } finally {
      delete table.undeclaredProbe;
    }
  }, 120_000);
});

// ---- the key ------------------------------------------------------------------------------------------

describe("the table's key", () => {
  it('encrypts the table (and so its indexes and stream) with the customer-managed key', () => {
    expect(resources[tableId()]!.Properties.SSESpecification).toEqual({
      SSEEnabled: true,
      SSEType: 'KMS',
      KMSMasterKeyId: { 'Fn::GetAtt': [tableKeyId(), 'Arn'] },
    });
  });

  it('rotates yearly and is retained with the table', () => {
    const key = resources[tableKeyId()]!;
    expect(key.Type).toBe('AWS::KMS::Key');
    expect(key.Properties).toMatchObject({ EnableKeyRotation: true, RotationPeriodInDays: 365 });
    expect(key.Properties.KeySpec ?? 'SYMMETRIC_DEFAULT').toBe('SYMMETRIC_DEFAULT');
    expect(key.DeletionPolicy).toBe('Retain');
    expect(key.UpdateReplacePolicy).toBe('Retain');
  });
});

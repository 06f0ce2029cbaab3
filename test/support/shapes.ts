/**
 * Checkers for SPEC.md's objects (Request, Request creation result, Request list, error body)
 * against the schemas docs/openapi.json is generated from (lambdas/http/openapi/objects.ts), so
 * what the tests accept and what the document promises are one description; and helpers that read
 * the table behind the API (audit entries, request items, stored material), shared by the
 * end-to-end tests.
 */
import { GetCommand, QueryCommand, UpdateCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { expect } from 'vitest';
import * as z from 'zod/mini';
import { errorBody, requestCreationResult, requestList, requestObject } from '../../lambdas/http/openapi/objects.ts';
import { scanTable, type ApiAnswer, type TestService } from './test-service.ts';

export const ULID = /^[0-9a-z]{26}$/;
/** ISO 8601 / RFC 3339 date-time with a zone. */
export const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/** Every field of SPEC.md's Request table, and nothing else. */
export const REQUEST_FIELDS = [
  'id',
  'object',
  'status',
  'client',
  'subject',
  'ticket',
  'justification',
  'template',
  'requester',
  'recipients',
  'ttl_minutes',
  'verification_mode',
  'allow_attachments',
  'attachments_count',
  'needs_relink',
  'unrecoverable',
  'reveal_count',
  'purge_reason',
  'revoked_reason',
  'created_at',
  'link_expires_at',
  'opened_at',
  'submitted_at',
  'record_expires_at',
  'last_revealed_at',
  'purge_scheduled_at',
  'completed_at',
  'revoked_at',
  'links',
] as const;

const sorted = (values: Iterable<string>) => [...values].sort();

export const expectKeys = (value: unknown, keys: readonly string[], where: string) => {
  expect(value !== null && typeof value === 'object' && !Array.isArray(value), `${where} is an object`).toBe(true);
  expect(sorted(Object.keys(value as object)), `${where} has exactly the specified fields`).toEqual(sorted(keys));
};

export const expectUlid = (value: unknown, where: string) => {
  expect(typeof value, `${where} is a string`).toBe('string');
  expect(value as string, `${where} is a ULID`).toMatch(ULID);
};

export const expectDateTime = (value: unknown, where: string) => {
  expect(typeof value, `${where} is a string`).toBe('string');
  expect(value as string, `${where} is an ISO 8601 date-time`).toMatch(DATE_TIME);
  expect(Number.isNaN(Date.parse(value as string)), `${where} is a real date`).toBe(false);
};

/** A URI (absolute, parseable); with `web`, an http(s) one. */
export const expectUri = (value: unknown, where: string, { web = true } = {}) => {
  expect(typeof value, `${where} is a string`).toBe('string');
  let url: URL | null = null;
  try {
    url = new URL(value as string);
  } catch {
    url = null;
  }
  expect(url, `${where} is a URI`).not.toBeNull();
  if (web) expect(['http:', 'https:'], `${where} is an http(s) URI`).toContain(url!.protocol);
};

/**
 * Parses `value` with one of the document's schemas and fails naming every field that does not
 * match it; returns the value typed by the schema.
 */
export const expectMatches = <S extends z.core.$ZodType>(schema: S, value: unknown, where: string): z.infer<S> => {
  const result = z.safeParse(schema, value);
  const problems = result.success
    ? []
    : result.error.issues.map((issue) => `${[where, ...issue.path].join('.')}: ${issue.message} (${issue.code}${'keys' in issue ? ` ${issue.keys}` : ''})`);
  expect(problems, `${where} matches its schema in docs/openapi.json (${JSON.stringify(value)})`).toEqual([]);
  return value as z.infer<S>;
};

/**
 * Checks a Request object against the document's Request schema (types, formats, enums, no extra
 * field) and SPEC.md's field list, and returns it typed for further assertions.
 */
export const expectRequest = (value: unknown, where = 'request'): RequestObject => {
  expectKeys(value, REQUEST_FIELDS, where);
  return expectMatches(requestObject, value, where);
};

/** The Request creation result of SPEC.md, checked against its schema, as a first creation (its link shown). */
export const expectCreationResult = (value: unknown): CreationResult => {
  const result = expectMatches(requestCreationResult, value, 'creation result');
  expectUri(result.link, 'link');
  expectUri(result.link_without_fragment, 'link_without_fragment');
  expectKeys(result.request, REQUEST_FIELDS, 'creation result.request');
  return result;
};

/** The Request list of SPEC.md, checked against its schema (every item a Request). */
export const expectRequestList = (value: unknown): RequestList => expectMatches(requestList, value, 'list');

/**
 * SPEC.md's error body: exactly `message` and `code`, plus `errors` (field -> messages) on a
 * validation error. With `fields`, the `errors` keys must be exactly those.
 */
export const expectError = (answer: ApiAnswer, status: number, code: string, fields?: string[]) => {
  expect(answer.status, `HTTP status (body ${answer.text})`).toBe(status);
  expect(answer.headers.get('content-type') ?? '', 'error content type').toContain('application/json');
  const body = answer.body as Record<string, any>;
  const hasErrors = code === 'validation_failed';
  expectMatches(errorBody, body, 'error body');
  expectKeys(body, hasErrors ? ['message', 'code', 'errors'] : ['message', 'code'], 'error body');
  expect(body.code, 'error code').toBe(code);
  if (hasErrors && fields) expect(sorted(Object.keys(body.errors)), 'fields named in errors').toEqual(sorted(fields));
  return body;
};

// --- The table behind the API ------------------------------------------------------------

export interface AuditItem {
  pk: string;
  sk: string;
  kind: string;
  orgId: string;
  type: string;
  actor: { type: string; label: string | null; id?: string | null };
  clientId: string | null;
  requestId: string | null;
  data: Record<string, any>;
  seq: number;
  occurredAt: string;
  prevHash: string;
  hash: string;
}

/** Every audit entry of an organisation, oldest first (strongly consistent). */
export const auditEntries = async (service: TestService, orgId: string): Promise<AuditItem[]> => {
  const items: AuditItem[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await service.deps.db.send(
      new QueryCommand({
        TableName: service.deps.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :seq)',
        ExpressionAttributeValues: { ':pk': `AUDIT#${orgId}`, ':seq': 'SEQ#' },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    items.push(...((page.Items ?? []) as AuditItem[]));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
};

/** Audit entries about one request, oldest first. */
export const auditEntriesOfRequest = async (service: TestService, orgId: string, requestId: string) =>
  (await auditEntries(service, orgId)).filter((entry) => entry.requestId === requestId);

/** The stored request item (with its storage attributes), or undefined. */
export const requestItem = async (service: TestService, requestId: string) =>
  (
    await service.deps.db.send(
      new GetCommand({ TableName: service.deps.tableName, Key: { pk: `REQ#${requestId}`, sk: 'REQ' }, ConsistentRead: true }),
    )
  ).Item as Record<string, any> | undefined;

/** Every item under one partition key (strongly consistent). */
export const itemsUnder = async (service: TestService, pk: string) =>
  ((
    await service.deps.db.send(
      new QueryCommand({
        TableName: service.deps.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ConsistentRead: true,
      }),
    )
  ).Items ?? []) as Array<Record<string, any>>;

/** Every item under the request's partition (the request itself and its material). */
export const itemsUnderRequest = (service: TestService, requestId: string) => itemsUnder(service, `REQ#${requestId}`);

export const materialItems = async (service: TestService, requestId: string) =>
  (await itemsUnderRequest(service, requestId)).filter((item) => String(item.sk).startsWith('MATERIAL#'));

/**
 * Moves a stored request into another state behind the API's back (the transitions into opened,
 * submitted and expired have no API), keeping the status index attribute in step and bumping the
 * optimistic-lock version as a real change would.
 */
export const forceRequestState = async (
  service: TestService,
  orgId: string,
  requestId: string,
  status: string,
  extra: Record<string, unknown> = {},
) => {
  const fields: Record<string, unknown> = { status, gsi2pk: `ORG#${orgId}#REQS#${status}`, ...extra };
  const names: Record<string, string> = { '#version': 'version' };
  const values: Record<string, unknown> = { ':one': 1 };
  const sets = Object.entries(fields).map(([name, value], i) => {
    names[`#f${i}`] = name;
    values[`:v${i}`] = value;
    return `#f${i} = :v${i}`;
  });
  await service.deps.db.send(
    new UpdateCommand({
      TableName: service.deps.tableName,
      Key: { pk: `REQ#${requestId}`, sk: 'REQ' },
      UpdateExpression: `SET ${sets.join(', ')}, #version = #version + :one`,
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    }),
  );
};

/** Writes a fake piece of stored ciphertext under the request. */
export const putMaterial = async (service: TestService, requestId: string, sk: string, kind: string) => {
  await service.deps.db.send(
    new PutCommand({
      TableName: service.deps.tableName,
      Item: { pk: `REQ#${requestId}`, sk, kind, ciphertext: `ciphertext-${kind}-${sk}` },
    }),
  );
};

// --- Types -------------------------------------------------------------------------------

export type RequestObject = z.infer<typeof requestObject>;
export type CreationResult = z.infer<typeof requestCreationResult>;
export type RequestList = z.infer<typeof requestList>;

/** Request items of an organisation, straight from the table (every page of a filtered scan). */
export const requestItemsOf = async (service: TestService, orgId: string): Promise<Record<string, any>[]> =>
  (await scanTable(service)).filter((item) => item.kind === 'request' && item.orgId === orgId);

/**
 * Field-by-field checkers for SPEC.md's objects (Request, Request creation result, Request list,
 * error body) and helpers that read the table behind the API (audit entries, request items,
 * stored material), shared by the end-to-end tests.
 */
import { GetCommand, QueryCommand, UpdateCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { expect } from 'vitest';
import { scanTable, type ApiAnswer, type TestService } from './test-service.ts';

export const ULID = /^[0-9a-z]{26}$/;
/** ISO 8601 / RFC 3339 date-time with a zone. */
export const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
export const E164 = /^\+[1-9]\d{6,14}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const COMMIT = /^[A-Za-z0-9_-]{22}$/;

export const REQUEST_STATUSES = ['pending', 'opened', 'submitted', 'completed', 'revoked', 'expired'];
export const VERIFICATION_MODES = ['none', 'challenge', 'email_otp', 'either', 'both'];
export const TICKET_STATUSES = ['open', 'pending', 'resolved', 'closed', 'unknown'];

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

export const NULLABLE_TIMES = [
  'link_expires_at',
  'opened_at',
  'submitted_at',
  'record_expires_at',
  'last_revealed_at',
  'purge_scheduled_at',
  'completed_at',
  'revoked_at',
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

export const expectNullableDateTime = (value: unknown, where: string) => {
  if (value !== null) expectDateTime(value, where);
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

const expectString = (value: unknown, where: string) => expect(typeof value, `${where} is a string`).toBe('string');
const expectNullableString = (value: unknown, where: string) => {
  if (value !== null) expectString(value, where);
};
const expectBoolean = (value: unknown, where: string) => expect(typeof value, `${where} is a boolean`).toBe('boolean');
const expectInteger = (value: unknown, where: string) =>
  expect(Number.isInteger(value), `${where} is an integer (got ${JSON.stringify(value)})`).toBe(true);

/**
 * Checks a Request object field by field against SPEC.md (types, formats, enums, no extra field)
 * and returns it typed for further assertions.
 */
export const expectRequest = (value: unknown, where = 'request'): RequestObject => {
  expectKeys(value, REQUEST_FIELDS, where);
  const r = value as Record<string, any>;
  expectUlid(r.id, `${where}.id`);
  expect(r.object, `${where}.object`).toBe('request');
  expect(REQUEST_STATUSES, `${where}.status`).toContain(r.status);

  expectKeys(r.client, ['id', 'name'], `${where}.client`);
  expectUlid(r.client.id, `${where}.client.id`);
  expectString(r.client.name, `${where}.client.name`);

  expectKeys(r.subject, ['name', 'email', 'phone'], `${where}.subject`);
  expectString(r.subject.name, `${where}.subject.name`);
  if (r.subject.email !== null) expect(r.subject.email, `${where}.subject.email is an email`).toMatch(EMAIL);
  if (r.subject.phone !== null) expect(r.subject.phone, `${where}.subject.phone is E.164`).toMatch(E164);

  if (r.ticket !== null) {
    expectKeys(r.ticket, ['ref', 'url', 'external_id', 'integration_id', 'status'], `${where}.ticket`);
    expectNullableString(r.ticket.ref, `${where}.ticket.ref`);
    if (r.ticket.url !== null) expectUri(r.ticket.url, `${where}.ticket.url`, { web: false });
    expectNullableString(r.ticket.external_id, `${where}.ticket.external_id`);
    if (r.ticket.integration_id !== null) expectUlid(r.ticket.integration_id, `${where}.ticket.integration_id`);
    if (r.ticket.status !== null) expect(TICKET_STATUSES, `${where}.ticket.status`).toContain(r.ticket.status);
  }

  expectString(r.justification, `${where}.justification`);

  if (r.template !== null) {
    expectKeys(r.template, ['id', 'name'], `${where}.template`);
    expectUlid(r.template.id, `${where}.template.id`);
    expectString(r.template.name, `${where}.template.name`);
  }

  expectKeys(r.requester, ['membership_id', 'name', 'email'], `${where}.requester`);
  expectUlid(r.requester.membership_id, `${where}.requester.membership_id`);
  expectNullableString(r.requester.name, `${where}.requester.name`);
  if (r.requester.email !== null) expect(r.requester.email, `${where}.requester.email`).toMatch(EMAIL);

  expect(Array.isArray(r.recipients), `${where}.recipients is an array`).toBe(true);
  (r.recipients as unknown[]).forEach((recipient, i) => {
    const at = `${where}.recipients[${i}]`;
    expectKeys(recipient, ['label', 'membership_id'], at);
    const rec = recipient as Record<string, unknown>;
    expectString(rec.label, `${at}.label`);
    if (rec.membership_id !== null) expectUlid(rec.membership_id, `${at}.membership_id`);
  });

  expectInteger(r.ttl_minutes, `${where}.ttl_minutes`);
  expect(VERIFICATION_MODES, `${where}.verification_mode`).toContain(r.verification_mode);
  expectBoolean(r.allow_attachments, `${where}.allow_attachments`);
  expectInteger(r.attachments_count, `${where}.attachments_count`);
  expectBoolean(r.needs_relink, `${where}.needs_relink`);
  expectBoolean(r.unrecoverable, `${where}.unrecoverable`);
  expectInteger(r.reveal_count, `${where}.reveal_count`);
  expectNullableString(r.purge_reason, `${where}.purge_reason`);
  expectNullableString(r.revoked_reason, `${where}.revoked_reason`);
  expectDateTime(r.created_at, `${where}.created_at`);
  for (const field of NULLABLE_TIMES) expectNullableDateTime(r[field], `${where}.${field}`);

  expectKeys(r.links, ['self', 'app'], `${where}.links`);
  expectUri(r.links.self, `${where}.links.self`);
  expectUri(r.links.app, `${where}.links.app`);
  return r as RequestObject;
};

/** The Request creation result of SPEC.md, checked field by field (first creation, not a replay). */
export const expectCreationResult = (value: unknown): CreationResult => {
  expectKeys(
    value,
    ['request', 'link', 'link_without_fragment', 'commit', 'challenge_code', 'delivery', 'excluded_recipients', 'commitment'],
    'creation result',
  );
  const c = value as Record<string, any>;
  expectRequest(c.request, 'creation result.request');
  expectUri(c.link, 'link');
  expectUri(c.link_without_fragment, 'link_without_fragment');
  expect(c.commit, 'commit is 22 base64url characters').toMatch(COMMIT);
  if (c.challenge_code !== null) expect(c.challenge_code, 'challenge_code').toMatch(/^[0-9]{6}$/);
  if (c.delivery !== null) {
    expectKeys(c.delivery, ['id', 'method'], 'delivery');
    expectUlid(c.delivery.id, 'delivery.id');
    expectString(c.delivery.method, 'delivery.method');
  }
  expect(Array.isArray(c.excluded_recipients), 'excluded_recipients is an array').toBe(true);
  for (const name of c.excluded_recipients) expectString(name, 'excluded_recipients[]');
  expectKeys(c.commitment, ['computed_by', 'note'], 'commitment');
  expect(c.commitment.computed_by, 'commitment.computed_by').toBe('server');
  expectString(c.commitment.note, 'commitment.note');
  expect(c.commitment.note.length, 'commitment.note is not empty').toBeGreaterThan(0);
  return c as CreationResult;
};

/** The Request list of SPEC.md; every item is checked as a Request. */
export const expectRequestList = (value: unknown): RequestList => {
  expectKeys(value, ['object', 'data', 'has_more', 'next_cursor'], 'list');
  const l = value as Record<string, any>;
  expect(l.object, 'list.object').toBe('list');
  expect(Array.isArray(l.data), 'list.data is an array').toBe(true);
  l.data.forEach((item: unknown, i: number) => expectRequest(item, `list.data[${i}]`));
  expectBoolean(l.has_more, 'list.has_more');
  if (l.next_cursor !== null) expectUlid(l.next_cursor, 'list.next_cursor');
  return l as RequestList;
};

/**
 * SPEC.md's error body: exactly `message` and `code`, plus `errors` (field -> messages) on a
 * validation error. With `fields`, the `errors` keys must be exactly those.
 */
export const expectError = (answer: ApiAnswer, status: number, code: string, fields?: string[]) => {
  expect(answer.status, `HTTP status (body ${answer.text})`).toBe(status);
  expect(answer.headers.get('content-type') ?? '', 'error content type').toContain('application/json');
  const body = answer.body as Record<string, any>;
  const hasErrors = code === 'validation_failed';
  expectKeys(body, hasErrors ? ['message', 'code', 'errors'] : ['message', 'code'], 'error body');
  expect(body.code, 'error code').toBe(code);
  expectString(body.message, 'error message');
  expect(body.message.length, 'error message is not empty').toBeGreaterThan(0);
  if (hasErrors) {
    expect(typeof body.errors, 'errors is an object').toBe('object');
    for (const [field, messages] of Object.entries(body.errors)) {
      expect(Array.isArray(messages), `errors.${field} is an array`).toBe(true);
      expect((messages as unknown[]).length, `errors.${field} is not empty`).toBeGreaterThan(0);
      for (const message of messages as unknown[]) expectString(message, `errors.${field}[]`);
    }
    if (fields) expect(sorted(Object.keys(body.errors)), 'fields named in errors').toEqual(sorted(fields));
  }
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

/** Every item under the request's partition (the request itself and its material). */
export const itemsUnderRequest = async (service: TestService, requestId: string) =>
  ((
    await service.deps.db.send(
      new QueryCommand({
        TableName: service.deps.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `REQ#${requestId}` },
        ConsistentRead: true,
      }),
    )
  ).Items ?? []) as Array<Record<string, any>>;

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

export interface RequestObject {
  id: string;
  object: 'request';
  status: string;
  client: { id: string; name: string };
  subject: { name: string; email: string | null; phone: string | null };
  ticket: null | {
    ref: string | null;
    url: string | null;
    external_id: string | null;
    integration_id: string | null;
    status: string | null;
  };
  justification: string;
  template: null | { id: string; name: string };
  requester: { membership_id: string; name: string | null; email: string | null };
  recipients: Array<{ label: string; membership_id: string | null }>;
  ttl_minutes: number;
  verification_mode: string;
  allow_attachments: boolean;
  attachments_count: number;
  needs_relink: boolean;
  unrecoverable: boolean;
  reveal_count: number;
  purge_reason: string | null;
  revoked_reason: string | null;
  created_at: string;
  link_expires_at: string | null;
  opened_at: string | null;
  submitted_at: string | null;
  record_expires_at: string | null;
  last_revealed_at: string | null;
  purge_scheduled_at: string | null;
  completed_at: string | null;
  revoked_at: string | null;
  links: { self: string; app: string };
}

export interface CreationResult {
  request: RequestObject;
  link: string | null;
  link_without_fragment: string | null;
  commit: string;
  challenge_code: string | null;
  delivery: null | { id: string; method: string };
  excluded_recipients: string[];
  commitment: { computed_by: 'server'; note: string };
}

export interface RequestList {
  object: 'list';
  data: RequestObject[];
  has_more: boolean;
  next_cursor: string | null;
}

/** Request items of an organisation, straight from the table (every page of a filtered scan). */
export const requestItemsOf = async (service: TestService, orgId: string): Promise<Record<string, any>[]> =>
  (await scanTable(service)).filter((item) => item.kind === 'request' && item.orgId === orgId);

import { describe, expect, it } from 'vitest';
import { createRequestBody, generateBody, listRequestsQuery, requestIdPath } from '../../lambdas/core/schemas.ts';
import { SUBSCRIBABLE_EVENT_TYPES } from '../../lambdas/core/events.ts';
import { createWebhookBody } from '../../lambdas/core/use-cases/webhooks.ts';
import { fieldErrorsOf } from '../../lambdas/core/validation.ts';

const VALID = {
  subject_name: 'Sam Subject',
  justification: 'Need the router admin password',
  recipients: ['tess@acme.test'],
};

/** The field errors of `body`, or {} when it is valid. */
const errorsOf = (schema: typeof createRequestBody | typeof generateBody | typeof listRequestsQuery, body: unknown) => {
  const result = schema.safeParse(body);
  return result.success ? {} : fieldErrorsOf(result.error);
};
const create = (patch: Record<string, unknown>) => errorsOf(createRequestBody, { ...VALID, ...patch });
const s = (n: number, ch = 'a') => ch.repeat(n);
const emails = (n: number) => Array.from({ length: n }, (_, i) => `r${i}@acme.test`);

describe('createRequestBody limits (SPEC.md Limits)', () => {
  it('accepts a minimal valid body', () => expect(create({})).toEqual({}));

  it.each([
    // field, at the lower bound, just below it, at the upper bound, just above it
    ['subject_name', s(2), s(1), s(120), s(121)],
    ['justification', s(10), s(9), s(1000), s(1001)],
    ['recipients', emails(1), [], emails(64), emails(65)],
    ['ttl_minutes', 5, 4, 43200, 43201],
  ])('%s: bounds are enforced', (field, low, belowLow, high, aboveHigh) => {
    expect(create({ [field]: low })).toEqual({});
    expect(Object.keys(create({ [field]: belowLow }))).toEqual([field]);
    expect(create({ [field]: high })).toEqual({});
    expect(Object.keys(create({ [field]: aboveHigh }))).toEqual([field]);
  });

  it.each([
    ['preset', 40],
    ['ticket_ref', 120],
    ['ticket_external_id', 64],
    ['subject_phone', 40],
  ])('%s: at most %i characters', (field, max) => {
    expect(create({ [field]: s(max as number, '1') })).toEqual({});
    expect(Object.keys(create({ [field]: s((max as number) + 1, '1') }))).toEqual([field]);
  });

  it('counts subject_name and justification after trimming', () => {
    expect(Object.keys(create({ subject_name: '  a  ' }))).toEqual(['subject_name']);
    expect(Object.keys(create({ justification: `   ${s(9)}   ` }))).toEqual(['justification']);
    expect(createRequestBody.parse({ ...VALID, subject_name: '  Sam  ' }).subject_name).toBe('Sam');
  });

  it('requires subject_name', () => {
    expect(Object.keys(create({ subject_name: undefined }))).toEqual(['subject_name']);
  });

  it('refuses a non-integer ttl and an unknown verification mode or delivery method', () => {
    expect(Object.keys(create({ ttl_minutes: 60.5 }))).toEqual(['ttl_minutes']);
    expect(Object.keys(create({ verification_mode: 'sms_otp' }))).toEqual(['verification_mode']);
    expect(Object.keys(create({ delivery: { method: 'fax' } }))).toEqual(['delivery.method']);
    expect(create({ delivery: { method: 'ticket_reply' } })).toEqual({});
  });

  it('refuses malformed emails, ULIDs and URLs by field', () => {
    expect(Object.keys(create({ recipients: ['ok@acme.test', 'not-an-email'] }))).toEqual(['recipients.1']);
    expect(Object.keys(create({ subject_email: 'nope' }))).toEqual(['subject_email']);
    expect(Object.keys(create({ requester: 'nope' }))).toEqual(['requester']);
    expect(Object.keys(create({ client_id: '01HZZZZZZZZZZZZZZZZZZZZCL1' }))).toEqual(['client_id']);
    expect(Object.keys(create({ teams: ['x'] }))).toEqual(['teams.0']);
    expect(Object.keys(create({ ticket_url: 'not a url' }))).toEqual(['ticket_url']);
  });

  it('says a webhook\u2019s url and events are required when they are left out, as every field left out says', () => {
    const parsed = createWebhookBody.safeParse({});
    expect(parsed.success).toBe(false);
    expect(fieldErrorsOf(parsed.error!)).toEqual({ url: ['Required.'], events: ['Required.'] });
    const wrong = createWebhookBody.safeParse({ url: 5, events: 'request.created' });
    expect(fieldErrorsOf(wrong.error!)).toEqual({ url: ['Must be a URL.'], events: ['Must be an array of event types.'] });
    expect(create({ subject_name: undefined })).toEqual({ subject_name: ['Required.'] });
  });

  it('bounds a webhook\u2019s events to one of each subscribable type, so a long list of wrong ones answers one message, not one per item', () => {
    const count = SUBSCRIBABLE_EVENT_TYPES.length;
    expect(createWebhookBody.safeParse({ url: 'https://acme.test/hook', events: [...SUBSCRIBABLE_EVENT_TYPES] }).success).toBe(true);
    const many = createWebhookBody.safeParse({ url: 'https://acme.test/hook', events: Array.from({ length: 20_000 }, () => 'a') });
    expect(fieldErrorsOf(many.error!)).toEqual({ events: [`Must list at most ${count} event types.`] });
  });

  it('words ticket_url\u2019s 2048-character limit as a webhook\u2019s url words the same limit', () => {
    const long = `https://acme.test/${s(2048)}`;
    const webhook = createWebhookBody.safeParse({ url: long, events: ['request.created'] });
    expect(webhook.success).toBe(false);
    const [urlMessage] = fieldErrorsOf(webhook.error!).url;
    expect(urlMessage).toBe('Must be at most 2048 characters.');
    expect(create({ ticket_url: long })).toEqual({ ticket_url: [urlMessage] });
  });

  it('reports unknown fields by name, also inside delivery', () => {
    expect(create({ colour: 'red', delivery: { method: 'none', when: 'now' } })).toEqual({
      colour: ['Unknown field.'],
      'delivery.when': ['Unknown field.'],
    });
  });
});

describe('generateBody', () => {
  it('fills the SPEC defaults', () => {
    expect(generateBody.parse({})).toEqual({ type: 'password', length: 20, lower: true, upper: true, digits: true, symbols: false });
  });

  it('bounds length to 8..128', () => {
    expect(errorsOf(generateBody, { length: 8 })).toEqual({});
    expect(errorsOf(generateBody, { length: 128 })).toEqual({});
    expect(Object.keys(errorsOf(generateBody, { length: 7 }))).toEqual(['length']);
    expect(Object.keys(errorsOf(generateBody, { length: 129 }))).toEqual(['length']);
    expect(Object.keys(errorsOf(generateBody, { length: 12.5 }))).toEqual(['length']);
  });

  it('refuses a password with no class, naming all four fields', () => {
    expect(Object.keys(errorsOf(generateBody, { lower: false, upper: false, digits: false, symbols: false })).sort()).toEqual(
      ['digits', 'lower', 'symbols', 'upper'],
    );
    expect(errorsOf(generateBody, { type: 'passphrase', lower: false, upper: false, digits: false })).toEqual({});
  });
});

describe('listRequestsQuery', () => {
  it('defaults limit to 50 and bounds it to 1..100', () => {
    expect(listRequestsQuery.parse({})).toEqual({ limit: 50 });
    expect(listRequestsQuery.parse({ limit: '100' }).limit).toBe(100);
    expect(Object.keys(errorsOf(listRequestsQuery, { limit: '0' }))).toEqual(['limit']);
    expect(Object.keys(errorsOf(listRequestsQuery, { limit: '101' }))).toEqual(['limit']);
    expect(Object.keys(errorsOf(listRequestsQuery, { limit: '1.5' }))).toEqual(['limit']);
  });

  it('bounds ticket_ref to 120 and checks status, client_id and cursor', () => {
    expect(errorsOf(listRequestsQuery, { ticket_ref: s(120) })).toEqual({});
    expect(Object.keys(errorsOf(listRequestsQuery, { ticket_ref: s(121) }))).toEqual(['ticket_ref']);
    expect(Object.keys(errorsOf(listRequestsQuery, { status: 'draft' }))).toEqual(['status']);
    expect(Object.keys(errorsOf(listRequestsQuery, { client_id: 'abc' }))).toEqual(['client_id']);
    expect(Object.keys(errorsOf(listRequestsQuery, { cursor: 'abc' }))).toEqual(['cursor']);
    expect(errorsOf(listRequestsQuery, { foo: '1' })).toEqual({ foo: ['Unknown field.'] });
  });
});

describe('requestIdPath', () => {
  it('accepts a ULID and refuses anything else', () => {
    expect(requestIdPath.safeParse({ id: '01hrequest0000000000000001' }).success).toBe(true);
    expect(requestIdPath.safeParse({ id: '../etc' }).success).toBe(false);
  });
});

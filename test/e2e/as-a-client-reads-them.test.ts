/**
 * Values as a client that checks docs/openapi.json reads them, over real HTTP: URLs are answered as
 * RFC 3986 URIs (`format: uri`; a `%` that begins no escape is refused, 422 by field); lengths are
 * counted in characters as the document's minLength and maxLength count them; a ticket reference
 * is trimmed wherever it is read (the body, the path, the filter), so the reference as entered
 * finds its request; and a certificate's refusals are no-store as its answers are.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/shapes.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Strict Client Ltd' });
});
afterAll(async () => service?.stop());

const base = { subject_name: 'Jane Doe', justification: 'Needs the VPN password', recipients: [] as string[] };
const create = (extra: Record<string, unknown>) => service.call('POST', '/requests', { key: org.key, body: { ...base, recipients: [org.owner.email], ...extra } });
/** RFC 3986's characters: what a `format: uri` check lets through. */
const RFC_3986 = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]+$/;

describe('URLs are kept and answered as URIs', () => {
  it.each([
    ['https://example.com/a b', 'https://example.com/a%20b'],
    ['https://exämple.com/ä', 'https://xn--exmple-cua.com/%C3%A4'],
    ['https://example.com/a|b^c{d}', 'https://example.com/a%7Cb%5Ec%7Bd%7D'],
    ['https://example.com/t?q=1#x y', 'https://example.com/t?q=1#x%20y'],
  ])('ticket_url %j is %j in the answer and in every read', async (sent, kept) => {
    const created = await create({ ticket_url: sent });
    expect(created.status, created.text).toBe(201);
    expect(created.body.request.ticket.url).toBe(kept);
    expect(kept).toMatch(RFC_3986);
    const read = await service.call('GET', `/requests/${created.body.request.id}`, { key: org.key });
    expect(read.body.ticket.url).toBe(kept);
  });

  it('refuses a ticket_url or a webhook url whose % begins no escape, 422 by field, and stores nothing', async () => {
    const refused = await create({ ticket_url: 'https://example.com/%zz' });
    expectError(refused, 422, 'validation_failed');
    expect(refused.body.errors).toEqual({ ticket_url: ['Must be a URL whose every % begins an escape of two hex digits.'] });
    const webhook = await service.call('POST', '/webhooks', { key: org.key, body: { url: 'https://hooks.example.com/in?x=%zz', events: ['request.created'] } });
    expectError(webhook, 422, 'validation_failed');
    expect(Object.keys(webhook.body.errors)).toEqual(['url']);
    expect((await service.call('GET', '/webhooks', { key: org.key })).body.data).toEqual([]);
  });

  it('answers a webhook url with the characters RFC 3986 does not allow escaped', async () => {
    const created = await service.call('POST', '/webhooks', { key: org.key, body: { url: 'https://hooks.example.com/a|b^c', events: ['request.created'] } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.url).toBe('https://hooks.example.com/a%7Cb%5Ec');
    const listed = (await service.call('GET', '/webhooks', { key: org.key })).body.data as Array<{ url: string }>;
    expect(listed.map((webhook) => webhook.url)).toContain('https://hooks.example.com/a%7Cb%5Ec');
  });
});

describe('lengths are counted in characters', () => {
  it('a justification of 1,000 emoji is taken and one of 1,001 refused (2,000 and 2,002 UTF-16 units)', async () => {
    expect((await create({ justification: '😀'.repeat(1000) })).status).toBe(201);
    const refused = await create({ justification: '😀'.repeat(1001) });
    expectError(refused, 422, 'validation_failed');
    expect(refused.body.errors).toEqual({ justification: ['Must be 10 to 1000 characters.'] });
  });
});

describe('a ticket reference is trimmed wherever it is read', () => {
  it('a request created with "  PAD-1  " is found by the filter and the status path as entered', async () => {
    const created = await create({ ticket_ref: '  PAD-1  ' });
    expect(created.status, created.text).toBe(201);
    expect(created.body.request.ticket.ref).toBe('PAD-1');
    const listed = await service.call('GET', `/requests?ticket_ref=${encodeURIComponent('  PAD-1  ')}`, { key: org.key });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.data.map((request: { id: string }) => request.id)).toEqual([created.body.request.id]);
    const marked = await service.call('POST', `/tickets/${encodeURIComponent('  PAD-1  ')}/status`, { key: org.key, body: { status: 'open' } });
    expect(marked.status, marked.text).toBe(202);
    expect(marked.body).toMatchObject({ ticket_ref: 'PAD-1', matched: { requests: [created.body.request.id] } });
  });

  it('a blank reference is refused in the filter and the path', async () => {
    expectError(await service.call('GET', '/requests?ticket_ref=%20%20', { key: org.key }), 422, 'validation_failed');
    const marked = await service.call('POST', '/tickets/%20%20/status', { key: org.key, body: { status: 'open' } });
    expectError(marked, 422, 'validation_failed');
    expect(Object.keys(marked.body.errors)).toEqual(['ref']);
  });
});

describe("a certificate's refusals", () => {
  it.each([
    ['an unknown request', '/requests/01hzzzzzzzzzzzzzzzzzzzzzzz/certificate', 404],
    ['an unknown format', '/requests/01hzzzzzzzzzzzzzzzzzzzzzzz/certificate?format=xml', 422],
  ])('are no-store, as its answers are: %s', async (_what, path, status) => {
    const answer = await service.call('GET', path, { key: org.key });
    expect(answer.status).toBe(status);
    expect(answer.headers.get('cache-control')).toBe('no-store');
  });

  it('without a key, too', async () => {
    const answer = await service.call('GET', '/requests/01hzzzzzzzzzzzzzzzzzzzzzzz/certificate');
    expect(answer.status).toBe(401);
    expect(answer.headers.get('cache-control')).toBe('no-store');
  });
});

import { describe, expect, it } from 'vitest';
import { isListedWord } from '../../lambdas/core/generator.ts';
import { generateCredential } from '../../lambdas/core/use-cases/generate-credential.ts';
import { listRequests } from '../../lambdas/core/use-cases/list-requests.ts';
import { ping } from '../../lambdas/core/use-cases/ping.ts';
import { findVisibleRequest } from '../../lambdas/core/use-cases/read-request.ts';
import { listRequestsQuery } from '../../lambdas/core/schemas.ts';
import { CLIENT_ID, FakeDirectory, FakeRequestRepository, makeCaller, makeRequest, ORG_ID, OTHER_CLIENT_ID, URLS } from './support/fakes.ts';

describe('generateCredential', () => {
  it('defaults to a 20-character password of lower, upper and digits', () => {
    for (let i = 0; i < 50; i++) {
      const result = generateCredential(undefined);
      expect(result.object).toBe('generated_credential');
      expect(result.type).toBe('password');
      expect(result.length).toBe(20);
      expect(result.value).toMatch(/^[A-Za-z0-9]{20}$/);
      expect(result.value).toMatch(/[a-z]/);
      expect(result.value).toMatch(/[A-Z]/);
      expect(result.value).toMatch(/[0-9]/);
    }
  });

  it('honours length and classes', () => {
    const result = generateCredential({ length: 8, lower: false, upper: false, digits: true, symbols: false });
    expect(result.value).toMatch(/^[0-9]{8}$/);
    expect(result.length).toBe(8);
  });

  it('gives a passphrase whose length is its character count', () => {
    const result = generateCredential({ type: 'passphrase', length: 8 });
    expect(result.type).toBe('passphrase');
    expect(result.length).toBe(result.value.length);
    expect(result.value.split('-').length).toBeGreaterThanOrEqual(6);
    expect(isListedWord(result.value.split('-')[0]) || isListedWord(result.value.split('-').slice(0, 2).join('-'))).toBe(true);
  });

  it('answers 422 for an out-of-range length or no class', () => {
    expect(() => generateCredential({ length: 7 })).toThrow(expect.objectContaining({ status: 422, errors: { length: ['Must be 8 to 128.'] } }));
    expect(() => generateCredential({ lower: false, upper: false, digits: false })).toThrow(expect.objectContaining({ status: 422 }));
  });
});

describe('ping', () => {
  it('describes the organisation and key, with a label', async () => {
    const result = await ping(new FakeDirectory(), makeCaller({}, { clientId: OTHER_CLIENT_ID, expiresAt: '2026-01-01T00:00:00.000Z' }));
    expect(result).toEqual({
      ok: true,
      organisation: { id: ORG_ID, name: 'Acme IT' },
      key: {
        name: 'Helpdesk integration',
        prefix: 'chs_live_abcdef',
        scopes: ['requests:read', 'requests:write'],
        client: { id: OTHER_CLIENT_ID, name: 'Other client' },
        expires_at: '2026-01-01T00:00:00.000Z',
      },
      label: 'Acme IT · Helpdesk integration (Other client)',
    });
  });

  it('gives client null for an organisation-wide key', async () => {
    const result = await ping(new FakeDirectory(), makeCaller());
    expect(result.key.client).toBeNull();
    expect(result.label).toBe('Acme IT · Helpdesk integration');
  });
});

describe('listRequests', () => {
  const seeded = () => {
    const requests = new FakeRequestRepository();
    for (const [n, client] of [[1, CLIENT_ID], [2, OTHER_CLIENT_ID], [3, CLIENT_ID]] as const) {
      const id = `01hrequest000000000000000${n}`;
      requests.items.set(id, makeRequest({ id, client: { id: client, name: 'c' } }));
    }
    return requests;
  };

  it('returns SPEC list objects and has_more from the next cursor', async () => {
    const requests = seeded();
    const page = await listRequests({ requests, urls: URLS }, makeCaller(), listRequestsQuery.parse({ limit: '2' }));
    expect(page.object).toBe('list');
    expect(page.data.map((r) => r.id)).toEqual(['01hrequest0000000000000003', '01hrequest0000000000000002']);
    expect(page.has_more).toBe(true);
    expect(page.next_cursor).toBe('01hrequest0000000000000002');
    expect(page.data[0]).not.toHaveProperty('commit');
  });

  it('restricts a client-scoped key to its client', async () => {
    const requests = seeded();
    const page = await listRequests({ requests, urls: URLS }, makeCaller({}, { clientId: OTHER_CLIENT_ID }), { limit: 50 });
    expect(page.data.map((r) => r.id)).toEqual(['01hrequest0000000000000002']);
    expect(page.has_more).toBe(false);
    expect(page.next_cursor).toBeNull();
    expect(requests.listQueries[0].clientId).toBe(OTHER_CLIENT_ID);
  });

  it('refuses a client-scoped key asking for another client with 403', async () => {
    await expect(
      listRequests({ requests: seeded(), urls: URLS }, makeCaller({}, { clientId: OTHER_CLIENT_ID }), { limit: 50, client_id: CLIENT_ID }),
    ).rejects.toMatchObject({ status: 403, code: 'forbidden' });
  });

  it('passes the filters to the repository', async () => {
    const requests = seeded();
    await listRequests({ requests, urls: URLS }, makeCaller(), { limit: 10, status: 'pending', ticket_ref: 'INC-1', cursor: '01hrequest0000000000000003' });
    expect(requests.listQueries[0]).toEqual({ orgId: ORG_ID, status: 'pending', clientId: undefined, ticketRef: 'INC-1', limit: 10, cursor: '01hrequest0000000000000003' });
  });
});

describe('findVisibleRequest', () => {
  it('returns the request of the caller\'s organisation', async () => {
    const requests = new FakeRequestRepository();
    const request = makeRequest();
    requests.items.set(request.id, request);
    await expect(findVisibleRequest(requests, makeCaller(), request.id)).resolves.toEqual(request);
    await expect(findVisibleRequest(requests, makeCaller({ id: '01hzzzzzzzzzzzzzzzzzzzzor9' }), request.id)).rejects.toMatchObject({ status: 404 });
  });
});

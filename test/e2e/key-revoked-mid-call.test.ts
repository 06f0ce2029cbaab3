/**
 * An API key revoked while one of its calls is under way: the call was let in, and the revoke
 * commits before the call's change does. The revoke wins: the call answers 401 as the key's next
 * call would, and changes nothing; in the audit chain nothing of the key follows api_key.revoked.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { apiKeyHash } from '../../lambdas/core/api-key-format.ts';
import { auditEntries, expectError, requestItem, requestItemsOf } from '../support/shapes.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Key Race Org' });
});
afterAll(() => service?.stop());
afterEach(() => vi.restoreAllMocks());

const body = { subject_name: 'Jane Doe', justification: 'The firewall admin password', recipients: [] as string[] };

/**
 * Runs `call` with `key`, revoking the key (from outside the call) once the call has read what
 * `pauseOn` reads, before it writes; answers the call's answer.
 */
const revokedMidCall = async (key: string, pauseOn: 'requests' | 'directory', call: () => ReturnType<TestService['call']>) => {
  const keyId = (await service.deps.apiKeys.findByHash(apiKeyHash(key)))!.id;
  let reached!: () => void;
  const paused = new Promise<void>((resolve) => (reached = resolve));
  let go!: () => void;
  const revoked = new Promise<void>((resolve) => (go = resolve));
  const hold = async <T>(read: Promise<T>) => {
    const value = await read;
    reached();
    await revoked;
    return value;
  };
  if (pauseOn === 'requests') {
    const get = service.deps.requests.get.bind(service.deps.requests);
    vi.spyOn(service.deps.requests, 'get').mockImplementationOnce((id) => hold(get(id)));
  } else {
    const listMembers = service.deps.directory.listMembers.bind(service.deps.directory);
    vi.spyOn(service.deps.directory, 'listMembers').mockImplementationOnce((orgId) => hold(listMembers(orgId)));
  }
  const answering = call();
  await paused;
  await service.admin.revokeApiKey(org.orgId, keyId);
  go();
  return answering;
};

const typesAfterRevoke = async () => {
  const types = (await auditEntries(service, org.orgId)).map((entry) => entry.type);
  return types.slice(types.lastIndexOf('api_key.revoked'));
};

describe('a key revoked while its call is under way', () => {
  it('POST /requests/{id}/revoke: 401, the request left pending', async () => {
    const key = await service.createKey(org.orgId, { name: 'Revoked during a revoke' });
    const created = await service.call('POST', '/requests', { key, body: { ...body, recipients: [org.owner.email] } });
    expect(created.status, created.text).toBe(201);
    const id = created.body.request.id as string;

    const answer = await revokedMidCall(key, 'requests', () => service.call('POST', `/requests/${id}/revoke`, { key }));

    expectError(answer, 401, 'unauthenticated');
    expect(answer.headers.get('www-authenticate')).toBe('Bearer realm="api", error="invalid_token"');
    expect((await requestItem(service, id))!.status).toBe('pending');
    expect(await typesAfterRevoke()).toEqual(['api_key.revoked']);
  });

  it('POST /requests: 401, no request made', async () => {
    const key = await service.createKey(org.orgId, { name: 'Revoked during a creation' });
    const before = (await requestItemsOf(service, org.orgId)).length;

    const answer = await revokedMidCall(key, 'directory', () => service.call('POST', '/requests', { key, body: { ...body, recipients: [org.owner.email] } }));

    expectError(answer, 401, 'unauthenticated');
    expect(await requestItemsOf(service, org.orgId)).toHaveLength(before);
    expect(await typesAfterRevoke()).toEqual(['api_key.revoked']);
    // The organisation's other keys go on as before.
    const other = await service.call('POST', '/requests', { key: org.key, body: { ...body, recipients: [org.owner.email] } });
    expect(other.status, other.text).toBe(201);
  });
});

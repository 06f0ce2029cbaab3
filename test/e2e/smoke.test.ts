import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation();
});
afterAll(() => service?.stop());

describe('smoke', () => {
  it('answers ping', async () => {
    const answer = await service.call('GET', '/ping', { key: org.key });
    expect(answer.status).toBe(200);
    expect(answer.body.ok).toBe(true);
  });
  it('creates and reads a request', async () => {
    const created = await service.call('POST', '/requests', {
      key: org.key,
      body: { subject_name: 'Jane Doe', justification: 'Need the VPN password', recipients: [org.owner.email] },
    });
    expect(created.status).toBe(201);
    const read = await service.call('GET', `/requests/${created.body.request.id}`, { key: org.key });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body.request);
  });
});

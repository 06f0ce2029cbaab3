/**
 * A certificate carries its record's entries alone, so an entry deleted from the table would leave
 * no trace in it: the entries after it still link to each other and verify. The record's trail
 * still names the entry, so the service refuses to issue (500 `error`, naming the entry) instead of
 * signing a certificate that leaves it out; the request's own view is unaffected.
 */
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditSortKey } from '../../lambdas/store/keys.ts';
import { auditEntriesOfRequest, expectError } from '../support/shapes.ts';
import { submitAsSubject } from '../support/submission.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';
import { movableClock } from '../support/webhooks.ts';

const clock = movableClock();
let service: TestService;
let org: TestOrganisation;

beforeAll(async () => {
  service = await startTestService({ clock });
  org = await service.createOrganisation({ name: 'Deleted Entry Org' });
});
afterAll(() => service?.stop());

const certificate = (id: string, query = '') => service.call('GET', `/requests/${id}/certificate${query}`, { key: org.key });

describe('a certificate whose record has lost an entry from the chain', () => {
  it('is refused with 500 error naming the entry, as JSON and as PDF', async () => {
    const created = await service.call('POST', '/requests', {
      key: org.key,
      body: { subject_name: 'Jane Doe', justification: 'The firewall admin password', recipients: [org.owner.email] },
    });
    expect(created.status, created.text).toBe(201);
    const id: string = created.body.request.id;
    await submitAsSubject(service, id, clock, { envelope: { v: 1, ciphertext: 'c2VhbGVk', recipients: [] }, attachments: [] });
    expect((await service.call('POST', `/requests/${id}/complete`, { key: org.key })).status).toBe(200);
    expect((await certificate(id)).status).toBe(200);

    const stored = await auditEntriesOfRequest(service, org.orgId, id);
    const submitted = stored.find((item) => item.type === 'request.submitted')!.seq;
    await service.deps.db.send(new DeleteCommand({ TableName: service.deps.tableName, Key: { pk: `AUDIT#${org.orgId}`, sk: auditSortKey(submitted) } }));

    for (const query of ['', '?format=pdf']) {
      const refused = await certificate(id, query);
      expectError(refused, 500, 'error');
      expect(refused.body.message).toBe(`The audit chain no longer holds entry ${submitted} of this record's trail: no certificate is issued that would leave it out.`);
    }
    // The request itself still reads as it stands.
    const read = await service.call('GET', `/requests/${id}`, { key: org.key });
    expect(read.status).toBe(200);
    expect(read.body.status).toBe('completed');
  });
});

/**
 * `recover-org` on an existing member (enabled again, or given a new key) works out their
 * requests' `unrecoverable` and `needs_relink` again, as enabling a member or setting a key does:
 * a credential a disabled member can open again is no longer flagged, and one sealed to a key the
 * recovery replaced is.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Flags } from '../../bin/admin/commands.ts';
import { runAdminCommand } from '../support/admin-command.ts';
import { submitAsSubject } from '../support/submission.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Recovery Flags Org' });
});
afterAll(() => service?.stop());

const run = (command: string, flags: Flags) => runAdminCommand(service, command, flags);

const flagsOf = async (id: string) => {
  const read = await service.call('GET', `/requests/${id}`, { key: org.key });
  return { unrecoverable: read.body.unrecoverable, needs_relink: read.body.needs_relink };
};

describe('recover-org and the request flags', () => {
  it('a disabled sole recipient recovered: the credential sealed to them is no longer unrecoverable', async () => {
    const created = await service.call('POST', '/requests', { key: org.key, body: { subject_name: 'Sam Subject', justification: 'Router admin password', recipients: [org.member.email] } });
    expect(created.status, created.text).toBe(201);
    await submitAsSubject(service, created.body.request.id, service.deps.clock, { envelope: { v: 1, ciphertext: 'sealed', recipients: [] }, attachments: [] });
    await run('disable-member', { org: org.orgId, member: org.member.email });
    expect(await flagsOf(created.body.request.id)).toEqual({ unrecoverable: true, needs_relink: false });

    await run('recover-org', { org: org.orgId, email: org.member.email, reason: 'Disabled by mistake during offboarding' });
    expect(await flagsOf(created.body.request.id)).toEqual({ unrecoverable: false, needs_relink: false });
  });

  it('a member recovered with a new key: a link that would seal to the old one needs a new link', async () => {
    const created = await service.call('POST', '/requests', { key: org.key, body: { subject_name: 'Pat Pending', justification: 'Mailbox password', recipients: [org.member.email] } });
    expect(created.status, created.text).toBe(201);
    await run('recover-org', { org: org.orgId, email: org.member.email, reason: 'Lost laptop, key replaced', 'generate-key': `${service.outboxDir}/recovered-key.pem` });
    expect(await flagsOf(created.body.request.id)).toEqual({ unrecoverable: false, needs_relink: true });
  });
});

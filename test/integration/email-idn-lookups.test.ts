/**
 * Addresses at internationalised domains are kept with the domain in punycode. Wherever an
 * address is looked up rather than parsed, the Unicode form must find the same member: the
 * operator CLI's --member and recover-org's --email, and a ticket's requester on the trigger URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../support/admin-command.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

const UNICODE = 'nina@müller.de';
const PUNYCODE = 'nina@xn--mller-kva.de';

describe('an address typed with a Unicode domain finds the member kept in punycode', () => {
  let service: TestService;
  let org: TestOrganisation;
  let ninaId: string;

  beforeAll(async () => {
    service = await startTestService();
    org = await service.createOrganisation({ name: 'Müller IT' });
    const nina = await service.admin.addMember({ orgId: org.orgId, name: 'Nina Müller', email: UNICODE, role: 'admin' });
    expect(nina.email).toBe(PUNYCODE);
    ninaId = nina.id;
  });
  afterAll(() => service?.stop());

  const members = () => service.admin.directory.listMembers(org.orgId);

  it('disable-member and enable-member --member take the Unicode form', async () => {
    await runAdminCommand(service, 'disable-member', { org: org.orgId, member: UNICODE });
    expect((await members()).find((member) => member.id === ninaId)?.active).toBe(false);
    await runAdminCommand(service, 'enable-member', { org: org.orgId, member: UNICODE });
    expect((await members()).find((member) => member.id === ninaId)?.active).toBe(true);
  });

  it('recover-org --email makes the same member an owner, adding nobody', async () => {
    const before = (await members()).length;
    const output = await runAdminCommand(service, 'recover-org', { org: org.orgId, email: UNICODE, reason: 'The only owner left; confirmed by phone with the director' });
    expect(output.member.membership_id).toBe(ninaId);
    const after = await members();
    expect(after).toHaveLength(before);
    expect(after.find((member) => member.id === ninaId)).toMatchObject({ role: 'owner', active: true, email: PUNYCODE });
  });
});

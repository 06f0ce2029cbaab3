/**
 * The reads that decide who may act, who receives a credential and under which policy are
 * strongly consistent: every read of the organisation's configuration (store/directory.ts), the
 * memberships a sign-in link is sent for (store/sessions.ts) and the published signing keys
 * (store/signing-keys.ts). DynamoDB Local answers every read consistently, so the test checks
 * what each read asks DynamoDB for; deployed, an eventually consistent read can be a second old
 * (a member disabled a moment ago still let in, a team's removed member still a recipient).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../lambdas/core/ids.ts';
import { DynamoDirectory } from '../../lambdas/store/directory.ts';
import { DynamoMemberAccess } from '../../lambdas/store/sessions.ts';
import { DynamoSigningKeys } from '../../lambdas/store/signing-keys.ts';
import { watchTableCalls } from '../support/table-calls.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Consistent Reads Org' });
});
afterAll(() => service?.stop());

/** Each table call sent while `during` runs: its command and whether it asked for a consistent read. */
const readsDuring = async (during: () => Promise<unknown>) => {
  const reads: Array<{ command: string; consistent: boolean }> = [];
  const note = (command: string, input: { ConsistentRead?: boolean; RequestItems?: Record<string, { ConsistentRead?: boolean }> }) => {
    const consistent = input.RequestItems ? Object.values(input.RequestItems).every((table) => table.ConsistentRead === true) : input.ConsistentRead === true;
    reads.push({ command, consistent });
  };
  await watchTableCalls(service.deps.db, note, during);
  return reads;
};

describe('strongly consistent reads', () => {
  it('every read of the organisation’s configuration', async () => {
    const directory = new DynamoDirectory(service.deps.db, service.deps.tableName);
    const id = newId();
    const reads: Array<[string, () => Promise<unknown>]> = [
      ['getOrganisation', () => directory.getOrganisation(org.orgId)],
      ['listMembers', () => directory.listMembers(org.orgId)],
      ['listClients', () => directory.listClients(org.orgId)],
      ['listTeams', () => directory.listTeams(org.orgId)],
      ['listTemplates', () => directory.listTemplates(org.orgId)],
      ['listPresets', () => directory.listPresets(org.orgId)],
      ['getMember', () => directory.getMember(org.orgId, org.member.id)],
      ['getClient', () => directory.getClient(org.orgId, org.defaultClientId)],
      ['getTeam', () => directory.getTeam(org.orgId, id)],
      ['getTemplate', () => directory.getTemplate(org.orgId, id)],
      ['getPreset', () => directory.getPreset(org.orgId, 'standard')],
      ['getIntegration', () => directory.getIntegration(org.orgId, id)],
    ];
    for (const [name, read] of reads) {
      const sent = await readsDuring(read);
      expect(sent.length, name).toBeGreaterThan(0);
      expect(sent.filter((call) => !call.consistent), name).toEqual([]);
    }
    // And what they read is there.
    expect((await directory.listMembers(org.orgId)).map((member) => member.id).sort()).toEqual([org.owner.id, org.member.id].sort());
    expect((await directory.getMember(org.orgId, org.member.id))?.email).toBe(org.member.email);
  });

  it('the memberships a sign-in link is sent for, and the published signing keys', async () => {
    const access = new DynamoMemberAccess(service.deps.db, service.deps.tableName);
    const signingKeys = new DynamoSigningKeys(service.deps.db, service.deps.tableName);
    let memberships: Array<{ orgId: string }> = [];
    const sent = [
      ...(await readsDuring(async () => {
        memberships = await access.membershipsOf(org.member.email);
      })),
      ...(await readsDuring(() => signingKeys.list())),
    ];
    expect(sent.map((call) => call.command)).toEqual(['QueryCommand', 'QueryCommand']);
    expect(sent.filter((call) => !call.consistent)).toEqual([]);
    expect(memberships.map((membership) => membership.orgId)).toContain(org.orgId);
  });
});

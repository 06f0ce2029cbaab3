import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ensureDemoOrganisation } from '../../lambdas/local/demo-seed.ts';
import { AdminStore } from '../../lambdas/store/admin-store.ts';
import { scanTable, startTestService, type TestService } from '../support/test-service.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

describe('the demo seed of the first npm start', () => {
  it('is resumed by the next start when the first was stopped halfway, leaving one demo organisation', async () => {
    const keyFolder = mkdtempSync(join(tmpdir(), 'demo-keys-'));
    const seed = () => ensureDemoOrganisation(service.deps.db, service.deps.tableName, service.admin, keyFolder);
    // The first start stops after the owner is added (Ctrl-C or a crash while the technician is added).
    const realAddMember = AdminStore.prototype.addMember;
    const stopped = vi.spyOn(AdminStore.prototype, 'addMember').mockImplementation(function (this: AdminStore, input) {
      if (input.role === 'member') return Promise.reject(new Error('the process stopped here'));
      return realAddMember.call(this, input);
    });
    await expect(seed()).rejects.toThrow('the process stopped here');
    stopped.mockRestore();

    const demo = await seed();
    const items = await scanTable(service);
    const organisations = items.filter((item) => item.kind === 'organisation');
    expect(organisations.map((org) => org.id)).toEqual([demo.orgId]);
    const members = await service.deps.directory.listMembers(demo.orgId);
    expect(members.map((member) => member.email).sort()).toEqual(['owner@example.com', 'technician@example.com']);
    expect(existsSync(join(keyFolder, 'owner@example.com.pem')) && existsSync(join(keyFolder, 'technician@example.com.pem'))).toBe(true);
    // A later start finds the finished demo and changes nothing.
    expect(await seed()).toEqual(demo);
  });
});

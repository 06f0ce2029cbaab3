import { join } from 'node:path';
import { demoApiKey, ensureDemoOrganisation } from './demo-seed.ts';
import { startLocalService, type LocalServiceOptions } from './local-service.ts';

/**
 * The local service with the demo organisation, as `npm start` runs it: the service over a data
 * folder, the demo seeded on its first run (demo-seed.ts), and the demo API key kept in the folder.
 * The first-handoff walkthrough and the screenshots start the same thing.
 */
export const startDemoService = async (options: LocalServiceOptions & { dataDir: string }) => {
  const service = await startLocalService(options);
  try {
    const demo = await ensureDemoOrganisation(service.deps.db, service.deps.tableName, service.admin, join(options.dataDir, 'keys'));
    const key = await demoApiKey(service.admin, demo.orgId, options.dataDir);
    return { service, demo, key };
  } catch (error) {
    await service.stop();
    throw error;
  }
};

import { join } from 'node:path';
import { demoIntegration } from './demo-integration.ts';
import { demoApiKey, ensureDemoOrganisation, rememberDemo } from './demo-seed.ts';
import { startLocalService, type LocalService, type LocalServiceOptions } from './local-service.ts';

/** The demo integration as its URLs' use cases need it: the service's own stores, URLs on its address. */
const integrationDepsOf = (service: LocalService) => ({
  integrations: service.deps.integrations,
  directory: service.deps.directory,
  sealer: service.deps.sealer,
  clock: service.deps.clock,
  urls: { appUrl: service.appUrl },
});

/**
 * The local service with the demo organisation, as `npm start` runs it: the service over a data
 * folder, the demo seeded on its first run (demo-seed.ts), and the demo API key and the demo
 * integration's URLs kept in the folder. The first-handoff walkthrough and the screenshots start
 * the same thing.
 */
export const startDemoService = async (options: LocalServiceOptions & { dataDir: string }) => {
  const service = await startLocalService(options);
  try {
    const seeded = await ensureDemoOrganisation(service.deps.db, service.deps.tableName, service.admin, join(options.dataDir, 'keys'));
    const integration = await demoIntegration(integrationDepsOf(service), seeded.orgId, seeded.integrationId, options.dataDir);
    const demo = { ...seeded, integrationId: integration.id };
    if (seeded.integrationId !== integration.id) await rememberDemo(service.deps.db, service.deps.tableName, demo);
    const key = await demoApiKey(service.admin, demo.orgId, options.dataDir);
    return { service, demo, key, integration };
  } catch (error) {
    await service.stop();
    throw error;
  }
};

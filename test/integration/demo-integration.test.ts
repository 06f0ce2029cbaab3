/**
 * The demo integration's URLs across starts (lambdas/local/demo-integration.ts): made once, kept
 * the same at every start, and, once rotated in the application or with the CLI, left alone: the
 * member was shown the new URLs and a helpdesk may already post to them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR_ACTOR } from '../../lambdas/core/model.ts';
import { rotateIntegrationSecrets } from '../../lambdas/core/use-cases/integrations/manage-integration.ts';
import { DEMO_INTEGRATION_FILE, demoIntegration } from '../../lambdas/local/demo-integration.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;
let dataDir: string;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Demo Integration Org' });
  dataDir = mkdtempSync(join(tmpdir(), 'demo-integration-'));
});
afterAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  await service?.stop();
});

const deps = () => ({ integrations: service.deps.integrations, directory: service.deps.directory, sealer: service.deps.sealer, clock: service.deps.clock, urls: service.deps.urls });
const post = (url: string) => service.call('POST', new URL(url).pathname, { body: { ticket_id: 'DEMO-1', status: 'open' } });

describe('the demo integration across starts', () => {
  it('is made once, kept at every start, and left alone once rotated elsewhere', async () => {
    const first = await demoIntegration(deps(), org.orgId, undefined, dataDir);
    expect(first.state).toBe('made');
    const second = await demoIntegration(deps(), org.orgId, first.id, dataDir);
    expect(second).toEqual({ ...first, state: 'kept' });

    // Rotated in the application: the member was shown these, and a helpdesk may post to them now.
    const rotated = await rotateIntegrationSecrets(deps(), OPERATOR_ACTOR, org.orgId, first.id);
    const third = await demoIntegration(deps(), org.orgId, first.id, dataDir);
    expect(third).toEqual({ id: first.id, webhookUrl: null, triggerUrl: null, state: 'rotated_elsewhere' });
    expect((await post(rotated.webhook_url)).status).toBe(202);
    expect((await post(first.webhookUrl!)).status).toBe(404);

    // Deleting the kept file asks for new URLs at the next start.
    rmSync(join(dataDir, DEMO_INTEGRATION_FILE));
    const fourth = await demoIntegration(deps(), org.orgId, first.id, dataDir);
    expect(fourth).toMatchObject({ id: first.id, state: 'made' });
    expect((await post(rotated.webhook_url)).status).toBe(404);
    expect((await post(fourth.webhookUrl!)).status).toBe(202);
  });
});

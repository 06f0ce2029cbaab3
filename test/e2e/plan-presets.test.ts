/**
 * Presets are a Team plan feature, by one rule (lambdas/core/plans.ts) every way in: the member
 * application (presets, default presets, an integration's default preset, a request naming a
 * preset), the operator CLI (save-preset, set-default-preset, set-integration --default-preset) and
 * the API. A Free organisation is refused with 403 `plan_required` and the reason, writes nothing,
 * and the app's answers say `preset_access: false` so its pages explain instead of offering the
 * forms. Clearing a default preset needs no plan. The same organisation on Team saves and uses them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../lambdas/core/ids.ts';
import { OPERATOR_ACTOR } from '../../lambdas/core/model.ts';
import { connectIntegration } from '../../lambdas/core/use-cases/integrations/manage-integration.ts';
import { KeyFileSealer } from '../../lambdas/local/key-file-sealer.ts';
import { SEALING_KEY_FILE } from '../../lambdas/local/local-service.ts';
import { runAdminCli } from '../support/admin-cli.ts';
import { MemberBrowser } from '../support/member-browser.ts';
import { auditEntries, expectError, requestItemsOf } from '../support/shapes.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

const REFUSAL = 'Your plan does not include presets. Upgrade to Team or above.';

let dataDir: string;
let service: TestService;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'handoff-plan-data-'));
  service = await startTestService({ sealer: await KeyFileSealer.fromFile(join(dataDir, SEALING_KEY_FILE)) });
});
afterAll(async () => {
  await service?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const cli = (command: string, args: string[]) =>
  runAdminCli(service.deps.tableName, command, [...args, '--app-url', service.appUrl.replace('localhost', '127.0.0.1')], { DATA_DIR: dataDir });

/** A Free organisation (made on Team, then moved to Free, as a downgrade leaves one) with its owner signed in. */
const freeOrganisation = async (options: { presetFirst?: string } = {}) => {
  const org = await service.createOrganisation({ name: `Free plan org ${newId()}` });
  if (options.presetFirst) await service.admin.savePreset(org.orgId, options.presetFirst, 'Saved on Team', { justification: 'Saved while on the Team plan' });
  await service.admin.setPlan(org.orgId, 'free');
  return { org, owner: await MemberBrowser.signIn(service, org.owner.email) };
};

const presetAudits = async (org: TestOrganisation) => (await auditEntries(service, org.orgId)).filter((e) => e.type.startsWith('preset.'));

const expectPlanRequired = (answer: { status: number; body: any; text: string; headers: Headers }) => {
  expectError(answer as never, 403, 'plan_required');
  expect(answer.body.message).toBe(REFUSAL);
};

describe('the member application on the Free plan', () => {
  it('says presets are not included, and refuses to save one or make one a default (clearing is allowed)', async () => {
    const { org, owner } = await freeOrganisation();
    const listed = await owner.call('GET', '/app/api/presets');
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.preset_access).toBe(false);
    expect((await owner.call('GET', '/app/api/request-options')).body.preset_access).toBe(false);
    expect((await owner.call('GET', '/app/api/integrations')).body.preset_access).toBe(false);

    expectPlanRequired(await owner.call('POST', '/app/api/presets', { body: { slug: 'vpn-reset', name: 'VPN reset', defaults: { ttl_minutes: 60 } } }));
    expectPlanRequired(await owner.call('POST', '/app/api/default-preset', { body: { preset: 'vpn-reset' } }));
    const cleared = await owner.call('POST', '/app/api/default-preset', { body: { preset: null } });
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.body).toEqual({ client_id: null, default_preset: null });
    expect((await service.admin.directory.listPresets(org.orgId)).map((p) => p.slug)).toEqual([]);
    // There was no default to clear: what is already so writes nothing.
    expect((await presetAudits(org)).map((e) => e.data.details)).toEqual([]);
  });

  it("refuses a request naming a preset kept from the Team plan, and an integration's default preset", async () => {
    const { org, owner } = await freeOrganisation({ presetFirst: 'kept' });
    const created = await owner.call('POST', '/app/api/requests', {
      body: { subject_name: 'Jane Doe', recipients: [org.owner.email], preset: 'kept', commit: 'A'.repeat(22) },
      headers: { 'Idempotency-Key': `plan-${newId()}` },
    });
    expectPlanRequired(created);
    expect(await requestItemsOf(service, org.orgId)).toEqual([]);

    const connected = await connectIntegration(service.deps, OPERATOR_ACTOR, { orgId: org.orgId, name: 'Free desk' });
    const id = connected.integration.id;
    expectPlanRequired(await owner.call('POST', `/app/api/integrations/${id}`, { body: { default_preset: 'kept' } }));
    expect((await owner.call('GET', `/app/api/integrations/${id}`)).body.integration.default_preset).toBeNull();
    // Everything else of the integration can still be changed (its webhook URL is on every plan).
    expect((await owner.call('POST', `/app/api/integrations/${id}`, { body: { name: 'Free desk, renamed' } })).status).toBe(200);
  });
});

describe('the operator CLI on the Free plan', () => {
  it('save-preset, set-default-preset and set-integration --default-preset are refused with the reason; none clears', async () => {
    const { org } = await freeOrganisation({ presetFirst: 'kept' });
    const saved = await cli('save-preset', ['--org', org.orgId, '--slug', 'vpn-reset', '--name', 'VPN reset']);
    expect(saved.code).toBe(1);
    expect(saved.stderr).toContain(REFUSAL);
    const madeDefault = await cli('set-default-preset', ['--org', org.orgId, '--preset', 'kept']);
    expect(madeDefault.code).toBe(1);
    expect(madeDefault.stderr).toContain(REFUSAL);
    const connected = await connectIntegration(service.deps, OPERATOR_ACTOR, { orgId: org.orgId, name: 'CLI desk' });
    const configured = await cli('set-integration', ['--org', org.orgId, '--integration', connected.integration.id, '--default-preset', 'kept']);
    expect(configured.code).toBe(1);
    expect(configured.stderr).toContain(REFUSAL);

    const cleared = await cli('set-default-preset', ['--org', org.orgId, '--preset', 'none']);
    expect(cleared.code, cleared.stderr).toBe(0);
    expect((await service.admin.directory.listPresets(org.orgId)).map((p) => p.slug)).toEqual(['kept']);
  });
});

describe('the API on the Free plan', () => {
  it('a request naming a preset is refused as every API call is: 403 plan_required', async () => {
    const { org } = await freeOrganisation({ presetFirst: 'kept' });
    const created = await service.call('POST', '/requests', { key: org.key, body: { subject_name: 'Jane Doe', recipients: [org.owner.email], preset: 'kept' } });
    expectError(created, 403, 'plan_required');
  });
});

describe('the same ways in on the Team plan', () => {
  it('save a preset, make it the default, and name it in a request', async () => {
    const org = await service.createOrganisation({ name: 'Team presets' });
    const owner = await MemberBrowser.signIn(service, org.owner.email);
    expect((await owner.call('GET', '/app/api/presets')).body.preset_access).toBe(true);
    const saved = await owner.call('POST', '/app/api/presets', { body: { slug: 'vpn-reset', name: 'VPN reset', defaults: { justification: 'Reset of the VPN credentials' } } });
    expect(saved.status, saved.text).toBe(201);
    expect((await owner.call('POST', '/app/api/default-preset', { body: { preset: 'vpn-reset' } })).status).toBe(200);
    const cli1 = await cli('save-preset', ['--org', org.orgId, '--slug', 'from-cli', '--name', 'From the CLI']);
    expect(cli1.code, cli1.stderr).toBe(0);
    const created = await service.call('POST', '/requests', { key: org.key, body: { subject_name: 'Jane Doe', recipients: [org.owner.email], preset: 'vpn-reset' } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.request.justification).toBe('Reset of the VPN credentials');
  });
});

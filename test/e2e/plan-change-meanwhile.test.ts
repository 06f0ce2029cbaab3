/**
 * A move to the Free plan that commits while a call on the Team plan is under way: the call read
 * the organisation on Team, the operator's set-plan lands before its write. The plan change wins,
 * as a policy change does (test/integration/policy-and-preset-race.test.ts): the call is judged
 * again under the plan now in force and refused with 403 `plan_required`, writing nothing, so no
 * preset is saved, made a default or used after the organisation left the plan that includes them.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { newId } from '../../lambdas/core/ids.ts';
import { OPERATOR_ACTOR } from '../../lambdas/core/model.ts';
import { connectIntegration } from '../../lambdas/core/use-cases/integrations/manage-integration.ts';
import { changeAfterRead } from '../support/change-meanwhile.ts';
import { MemberBrowser } from '../support/member-browser.ts';
import { auditEntries, expectError, requestItemsOf } from '../support/shapes.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());
afterEach(() => vi.restoreAllMocks());

/** A Team organisation with a preset saved, and its owner signed in. */
const teamOrganisation = async () => {
  const org = await service.createOrganisation({ name: `Plan race org ${newId()}` });
  await service.admin.savePreset(org.orgId, 'standard', 'Standard', { justification: 'Saved while on the Team plan' });
  return { org, owner: await MemberBrowser.signIn(service, org.owner.email) };
};

/**
 * Makes `call` as the service would, moving the organisation to Free (from outside the call, as
 * the operator's CLI would) once the call has read a preset (or a client), before it writes.
 */
const movedToFreeMidCall = <T>(org: TestOrganisation, call: () => Promise<T>, read: 'getPreset' | 'getClient' = 'getPreset') =>
  changeAfterRead(service.deps.directory, read, call, () => service.admin.setPlan(org.orgId, 'free'));

/** The types of the audit entries written after the organisation moved to Free. */
const typesSinceFree = async (org: TestOrganisation) => {
  const types = (await auditEntries(service, org.orgId)).map((entry) => entry.type);
  expect(types).toContain('organisation.plan_changed');
  return types.slice(types.lastIndexOf('organisation.plan_changed') + 1);
};

describe('the organisation moves to Free while a call on Team is under way', () => {
  it('a preset saved in the app: 403 plan_required, no preset written after the change', async () => {
    const { org, owner } = await teamOrganisation();
    const answer = await movedToFreeMidCall(org, () =>
      owner.call('POST', '/app/api/presets', { body: { slug: 'late', name: 'Saved late', defaults: { justification: 'Saved as the plan changed' } } }),
    );
    expectError(answer as never, 403, 'plan_required');
    expect(await service.admin.directory.getPreset(org.orgId, 'late')).toBeNull();
    expect(await typesSinceFree(org)).toEqual([]);
  });

  it('a default preset set in the app: 403 plan_required, no default set after the change', async () => {
    const { org, owner } = await teamOrganisation();
    const answer = await movedToFreeMidCall(org, () => owner.call('POST', '/app/api/default-preset', { body: { preset: 'standard' } }));
    expectError(answer as never, 403, 'plan_required');
    expect((await service.admin.directory.getOrganisation(org.orgId))!.defaultPreset ?? null).toBeNull();
    expect(await typesSinceFree(org)).toEqual([]);
  });

  it("a client's default preset set in the app: 403 plan_required, the client left without one", async () => {
    const { org, owner } = await teamOrganisation();
    const answer = await movedToFreeMidCall(org, () => owner.call('POST', '/app/api/default-preset', { body: { client_id: org.defaultClientId, preset: 'standard' } }));
    expectError(answer as never, 403, 'plan_required');
    expect((await service.admin.directory.getClient(org.orgId, org.defaultClientId))!.defaultPreset ?? null).toBeNull();
    expect(await typesSinceFree(org)).toEqual([]);
  });

  it("an integration's default preset set in the app: 403 plan_required, the integration left without one", async () => {
    const { org, owner } = await teamOrganisation();
    const { integration } = await connectIntegration(service.deps, OPERATOR_ACTOR, { orgId: org.orgId, name: 'Plan race desk', clientId: null });
    const answer = await movedToFreeMidCall(org, () => owner.call('POST', `/app/api/integrations/${integration.id}`, { body: { default_preset: 'standard' } }));
    expectError(answer as never, 403, 'plan_required');
    expect((await service.deps.integrations.get(org.orgId, integration.id))!.defaultPreset ?? null).toBeNull();
    expect(await typesSinceFree(org)).toEqual([]);
  });

  it('a webhook added in the app: 403 plan_required, no subscription made after the change', async () => {
    const { org, owner } = await teamOrganisation();
    // The subscription's secret is sealed once everything else was judged, just before it is written.
    const answer = await changeAfterRead(
      service.deps.sealer,
      'seal',
      () => owner.call('POST', '/app/api/webhooks', { body: { url: 'https://hooks.example.com/handoff', events: ['request.created'] } }),
      () => service.admin.setPlan(org.orgId, 'free'),
    );
    expectError(answer as never, 403, 'plan_required');
    expect(await service.deps.webhooks.listForOrg(org.orgId)).toEqual([]);
    expect(await typesSinceFree(org)).toEqual([]);
  });

  it('a request naming a preset through the API: 403 plan_required, no request made after the change', async () => {
    const { org } = await teamOrganisation();
    const answer = await movedToFreeMidCall(org, () =>
      service.call('POST', '/requests', {
        key: org.key,
        body: { preset: 'standard', subject_name: 'Sam Subject', recipients: [org.member.email], verification_mode: 'none' },
      }),
    );
    expectError(answer as never, 403, 'plan_required');
    expect(await requestItemsOf(service, org.orgId)).toEqual([]);
    expect(await typesSinceFree(org)).toEqual([]);
  });

  it('a request through the API, naming no preset: 403 plan_required (the plan has no API), no request made after the change', async () => {
    const { org } = await teamOrganisation();
    const answer = await movedToFreeMidCall(
      org,
      () =>
        service.call('POST', '/requests', {
          key: org.key,
          body: { subject_name: 'Sam Subject', justification: 'Needed for the ticket', recipients: [org.member.email], verification_mode: 'none' },
        }),
      'getClient',
    );
    expectError(answer as never, 403, 'plan_required');
    expect(await requestItemsOf(service, org.orgId)).toEqual([]);
    expect(await typesSinceFree(org)).toEqual([]);
  });
});

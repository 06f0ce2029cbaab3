/**
 * A policy change and a preset save judged at once, each against the other as it was read: never
 * both pass. Narrowing the TTL options to [1440] while a preset of 60 minutes is saved ends with
 * either the narrower policy and no such preset (the save refused), or the preset and the policy
 * unchanged (the change refused because a preset uses 60) — never a preset no request can use.
 * Against DynamoDB Local, as two function instances would race.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ApiError } from '../../lambdas/core/errors.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

const outcome = (settled: PromiseSettledResult<unknown>) => {
  if (settled.status === 'fulfilled') return 'saved';
  expect(settled.reason, String(settled.reason)).toBeInstanceOf(ApiError);
  return (settled.reason as ApiError).status === 422 ? 'refused' : `failed ${(settled.reason as ApiError).status}`;
};

it('20 races of narrowing the TTL options against saving a preset that uses the option narrowed away: exactly one passes each time', async () => {
  for (let race = 0; race < 20; race += 1) {
    const { orgId } = await service.createOrganisation({ name: `Race ${race}` });
    await service.admin.changePolicy(orgId, { ttl_options_minutes: [60, 1440], default_ttl_minutes: 1440 });
    const [policy, preset] = await Promise.allSettled([
      service.admin.changePolicy(orgId, { ttl_options_minutes: [1440] }),
      service.admin.putPreset(orgId, { slug: 'hour', name: 'An hour', defaults: { ttl_minutes: 60 } }),
    ]);
    const outcomes = [outcome(policy), outcome(preset)];
    expect(outcomes.sort(), `race ${race}`).toEqual(['refused', 'saved']);
    const org = await service.admin.directory.getOrganisation(orgId);
    const stored = await service.admin.directory.getPreset(orgId, 'hour');
    // Whatever won, the preset (if any) is one the policy allows.
    if (stored?.defaults.ttl_minutes !== undefined) expect(org!.policy.ttlOptionsMinutes, `race ${race}`).toContain(stored.defaults.ttl_minutes);
  }
});

/**
 * A request is judged under the organisation's policy as it was read; a policy change that
 * commits before the request's own transaction must refuse that write, and the request is judged
 * again under the new policy. A second gateway over the same table stands for another Lambda
 * container whose request store lets the policy change commit between the read and the write.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { auditEntries, expectError, requestItemsOf } from '../support/shapes.ts';
import { gatewayWithChangeMeanwhile, type GatewayWithChangeMeanwhile } from '../support/change-meanwhile.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;
/** A second gateway over the same table, whose request store lets a change commit just before its write. */
let changed: GatewayWithChangeMeanwhile;
let base: string;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation();
  changed = await gatewayWithChangeMeanwhile(service.deps, 'create');
  base = `${changed.root}/v1`;
});

afterAll(async () => {
  changed?.close();
  await service?.stop();
});

const create = async (body: Record<string, unknown>) => {
  const response = await fetch(`${base}/requests`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${org.key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: JSON.parse(text) };
};

const body = (extra: Record<string, unknown>) => ({
  subject_name: 'Jane Doe',
  subject_email: 'jane@example.com',
  justification: 'Need the VPN password to finish the migration',
  recipients: [org.owner.email],
  ...extra,
});

it('refuses a request whose verification the minimum raised meanwhile no longer allows, and makes nothing', async () => {
  changed.before(() => service.admin.setPolicy(org.orgId, { minimumVerification: 'both', defaultVerification: 'both' }));
  const answer = await create(body({ verification_mode: 'none' }));

  expectError(answer, 422, 'validation_failed', ['verification_mode']);
  expect(answer.body.errors.verification_mode).toEqual(["Must be at least the organisation's minimum, both."]);
  expect(await requestItemsOf(service, org.orgId)).toEqual([]);
  const entries = await auditEntries(service, org.orgId);
  expect(entries.map((entry) => entry.type)).not.toContain('request.created');
  expect(entries.at(-1)!.type).toBe('organisation.policy_changed');
});

it('judges the request again under the new policy: a TTL option removed meanwhile is refused, the new default applies', async () => {
  await service.admin.setPolicy(org.orgId, { minimumVerification: 'none', defaultVerification: 'none' });
  changed.before(() => service.admin.setPolicy(org.orgId, { ttlOptionsMinutes: [60, 120], defaultTtlMinutes: 120 }));
  expectError(await create(body({ ttl_minutes: 1440 })), 422, 'validation_failed', ['ttl_minutes']);
  expect(await requestItemsOf(service, org.orgId)).toEqual([]);

  changed.before(() => service.admin.setPolicy(org.orgId, { ttlOptionsMinutes: [60, 120], defaultTtlMinutes: 60 }));
  const made = await create(body({}));
  expect(made.status, made.text).toBe(201);
  expect(made.body.request.ttl_minutes).toBe(60);
  const [item] = await requestItemsOf(service, org.orgId);
  expect(item).toMatchObject({ id: made.body.request.id, ttlMinutes: 60 });
  // In the chain the request comes after the change it was judged under, and the chain still links up.
  const entries = await auditEntries(service, org.orgId);
  expect(entries.slice(-2).map((entry) => entry.type)).toEqual(['organisation.policy_changed', 'request.created']);
  entries.forEach((entry, index) => {
    expect(entry.seq).toBe(index + 1);
    if (index > 0) expect(entry.prevHash).toBe(entries[index - 1].hash);
  });
});

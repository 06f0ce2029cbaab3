/**
 * A trigger post admitted while its integration was enabled, whose request would be stored after
 * a disable answered: the disable wins, as for a post that arrives disabled (409, nothing made).
 * A second gateway over the same table stands for another Lambda container whose request store
 * lets the disable commit between the post's checks and its write.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OPERATOR_ACTOR } from '../../lambdas/core/model.ts';
import { configureIntegration, rotateIntegrationSecrets } from '../../lambdas/core/use-cases/integrations/manage-integration.ts';
import { connect, org, preset, service, ticketId, useTriggerService } from '../support/inbound-trigger.ts';
import { gatewayWithChangeMeanwhile, type GatewayWithChangeMeanwhile } from '../support/change-meanwhile.ts';
import { auditEntries, expectError, requestItemsOf } from '../support/shapes.ts';

useTriggerService();

/** A second gateway over the same table, whose request store lets a change commit just before its write. */
let changed: GatewayWithChangeMeanwhile;
let root: string;

beforeAll(async () => {
  changed = await gatewayWithChangeMeanwhile(service.deps, 'create');
  root = changed.root;
});

afterAll(() => {
  changed?.close();
});

it('answers 409 and makes nothing when the integration is disabled before the request is stored', async () => {
  const slug = await preset(
    { justification: 'Need the VPN admin password for this ticket', ttl_minutes: 60, verification_mode: 'none', recipients: [org.owner.email], delivery: { method: 'none' } },
    { fallbackRequester: org.owner.email },
  );
  const integration = await connect();
  changed.before(() => configureIntegration(service.deps, OPERATOR_ACTOR, org.orgId, integration.integrationId, { enabled: false }));
  const response = await fetch(`${root}${integration.path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ ticket_id: ticketId(), preset: slug, subject: { name: 'Sam Subject', email: 'sam@example.com' } }),
  });
  const text = await response.text();
  expectError({ status: response.status, headers: response.headers, text, body: JSON.parse(text) }, 409, 'conflict');
  expect(JSON.parse(text).message).toBe('This integration is disabled.');

  expect(await requestItemsOf(service, org.orgId)).toEqual([]);
  const types = (await auditEntries(service, org.orgId)).map((entry) => entry.type);
  expect(types.at(-1)).toBe('integration.disabled');
  expect(types).not.toContain('request.created');
});

it('answers 404 and makes nothing when the trigger URL is rotated before the request is stored', async () => {
  const slug = await preset(
    { justification: 'Need the VPN admin password for this ticket', ttl_minutes: 60, verification_mode: 'none', recipients: [org.owner.email], delivery: { method: 'none' } },
    { fallbackRequester: org.owner.email },
  );
  const integration = await connect();
  const before = (await requestItemsOf(service, org.orgId)).length;
  changed.before(() => rotateIntegrationSecrets(service.deps, OPERATOR_ACTOR, org.orgId, integration.integrationId));
  const response = await fetch(`${root}${integration.path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ ticket_id: ticketId(), preset: slug, subject: { name: 'Sam Subject', email: 'sam@example.com' } }),
  });
  expect(response.status, await response.text()).toBe(404);

  expect(await requestItemsOf(service, org.orgId)).toHaveLength(before);
  const types = (await auditEntries(service, org.orgId)).map((entry) => entry.type);
  expect(types.at(-1)).toBe('integration.secret_rotated');
});

it('uses the default preset that stands when the request is stored', async () => {
  const first = await preset(
    { justification: 'The first default preset', ttl_minutes: 60, verification_mode: 'none', recipients: [org.owner.email], delivery: { method: 'none' } },
    { fallbackRequester: org.owner.email },
  );
  const second = await preset(
    { justification: 'The second default preset', ttl_minutes: 60, verification_mode: 'none', recipients: [org.owner.email], delivery: { method: 'none' } },
    { fallbackRequester: org.owner.email },
  );
  const integration = await connect({ configure: { defaultPreset: first } });
  changed.before(() => configureIntegration(service.deps, OPERATOR_ACTOR, org.orgId, integration.integrationId, { defaultPreset: second }));
  const ticket = ticketId();
  const response = await fetch(`${root}${integration.path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ ticket_id: ticket, subject: { name: 'Sam Subject', email: 'sam@example.com' } }),
  });
  expect(response.status).toBe(202);
  expect(await response.json()).toMatchObject({ preset: second });
  const types = (await auditEntries(service, org.orgId)).map((entry) => entry.type);
  expect(types.slice(-2)).toEqual(['integration.updated', 'request.created']);
});

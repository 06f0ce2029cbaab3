/**
 * A trigger post admitted while its integration was enabled, whose request would be stored after
 * a disable answered: the disable wins, as for a post that arrives disabled (409, nothing made).
 * A second gateway over the same table stands for another Lambda container whose request store
 * lets the disable commit between the post's checks and its write.
 */
import type { Server } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AppDeps } from '../../lambdas/app-deps.ts';
import { OPERATOR_ACTOR, type HandoffRequest } from '../../lambdas/core/model.ts';
import type { AuditEntryInput, TriggerGuard } from '../../lambdas/core/ports.ts';
import { configureIntegration } from '../../lambdas/core/use-cases/integrations/manage-integration.ts';
import { createGateway, listen } from '../../lambdas/local/gateway.ts';
import { connect, org, preset, service, ticketId, useTriggerService } from '../support/inbound-trigger.ts';
import { auditEntries, expectError, requestItemsOf } from '../support/shapes.ts';

useTriggerService();

let gateway: Server;
let root: string;
let meanwhile: (() => Promise<unknown>) | null = null;

beforeAll(async () => {
  const store = service.deps.requests;
  const requests = Object.create(store, {
    create: {
      value: async (request: HandoffRequest, hash: string, audit: AuditEntryInput, guard: TriggerGuard | undefined, policyVersion: number) => {
        const change = meanwhile;
        meanwhile = null;
        await change?.();
        return store.create(request, hash, audit, guard, policyVersion);
      },
    },
  }) as AppDeps['requests'];
  gateway = createGateway({ ...service.deps, requests });
  root = `http://127.0.0.1:${await listen(gateway, 0)}`;
});

afterAll(() => {
  gateway?.closeAllConnections();
  gateway?.close();
});

it('answers 409 and makes nothing when the integration is disabled before the request is stored', async () => {
  const slug = await preset(
    { justification: 'Need the VPN admin password for this ticket', ttl_minutes: 60, verification_mode: 'none', recipients: [org.owner.email], delivery: { method: 'none' } },
    { fallbackRequester: org.owner.email },
  );
  const integration = await connect();
  meanwhile = () => configureIntegration(service.deps, OPERATOR_ACTOR, org.orgId, integration.integrationId, { enabled: false });
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

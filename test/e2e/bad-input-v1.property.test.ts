/**
 * Issue 10, scope 5, for the API under /v1: generated bodies, queries, paths and headers sent to
 * every /v1 route of the route table over real HTTP, with an all-scope key, without one, with a
 * wrong one and with two Authorization headers. Never a 5xx, always SPEC.md's error body, and
 * afterwards nothing half-written in the table.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeList } from '../../lambdas/http/routes.ts';
import { closeConnections, expectAnswered, extraHeaders, propertyOptions, send, type HeaderList } from '../support/bad-input.ts';
import { callsTo, knownBadCalls, type RealValues } from '../support/bad-input-routes.ts';
import { expectNoPartialWrite } from '../support/no-partial-write.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

const RUNS_PER_ROUTE = 25;

let service: TestService;
let org: TestOrganisation;
let origin: string;
const real: RealValues = { emails: [], requestIds: [], shareIds: [], webhookIds: [], memberIds: [], ticketRefs: [], tokens: [], secrets: [], fingerprints: [] };

beforeAll(async () => {
  service = await startTestService();
  origin = new URL(service.appUrl).origin;
  org = await service.createOrganisation();
  // The limits are not under test here: every generated call should reach the route.
  await service.admin.setRateLimits(org.orgId, { perKeyPerMinute: 100_000, perOrgPerMinute: 100_000 });
  const created = await service.call('POST', '/requests', {
    key: org.key,
    body: { subject_name: 'Jane Doe', justification: 'Reset the VPN password', recipients: [org.owner.email], ticket_ref: 'T-100' },
  });
  expect(created.status, created.text).toBe(201);
  const webhook = await service.call('POST', '/webhooks', { key: org.key, body: { url: 'https://hooks.example.com/x', events: ['request.created'] } });
  expect(webhook.status, webhook.text).toBe(201);
  Object.assign(real, {
    emails: [org.owner.email, org.member.email],
    requestIds: [created.body.request.id],
    webhookIds: [webhook.body.id ?? webhook.body.webhook?.id],
    memberIds: [org.owner.id, org.member.id],
    ticketRefs: ['T-100', 'T 100/x'],
  });
});
afterAll(async () => {
  closeConnections();
  await service?.stop();
});

/** The key, none, a wrong one, or two Authorization headers (the valid one first, last or twice). */
const apiCredential = (): fc.Arbitrary<HeaderList> =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constant<HeaderList>([['Authorization', `Bearer ${org.key}`]]) },
    { weight: 1, arbitrary: fc.constant<HeaderList>([]) },
    { weight: 1, arbitrary: fc.constantFrom<HeaderList>([['Authorization', 'Bearer nonsense']], [['Authorization', org.key]], [['Authorization', `bearer  ${org.key}  `]], [['authorization', `Basic ${org.key}`]]) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<HeaderList>(
        [['Authorization', `Bearer ${org.key}`], ['Authorization', 'Bearer nonsense']],
        [['Authorization', 'Bearer nonsense'], ['Authorization', `Bearer ${org.key}`]],
        [['Authorization', `Bearer ${org.key}`], ['Authorization', `Bearer ${org.key}`]],
      ),
    },
  );

describe('every /v1 route answers generated input without a 5xx, in SPEC.md’s error shape', () => {
  const routes = routeList().filter((route) => route.path.startsWith('/v1/'));

  it('covers the /v1 routes of the table', () => {
    expect(routes.length).toBeGreaterThanOrEqual(15);
  });

  for (const route of routes) {
    it(`${route.method} ${route.path}`, async () => {
      await fc.assert(
        fc.asyncProperty(callsTo(route, real, apiCredential(), extraHeaders), async (call) => {
          expectAnswered(route, call, await send(origin, call.method, call.path, call.headers, call.body));
        }),
        propertyOptions(RUNS_PER_ROUTE, knownBadCalls(route, real, [['Authorization', `Bearer ${org.key}`]]).map((call) => [call] as [typeof call])),
      );
    });
  }

  it('left nothing half-written: the audit chain is whole and every request has its creation entry', async () => {
    const found = await expectNoPartialWrite(service, org.orgId);
    console.info(`after the /v1 run: ${found.entries} audit entries, ${found.requests} requests`);
  });
});

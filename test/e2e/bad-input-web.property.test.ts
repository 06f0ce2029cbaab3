/**
 * Issue 10, scope 5, for everything outside /v1: the subject's endpoints with a real link token,
 * the member application's with a real session and CSRF header, the share recipient's with a real
 * share token, the inbound ticket URLs with their real URL secrets, sign-in, the signing keys and
 * the pages. Generated bodies, queries, paths and headers over real HTTP: never a 5xx, every 4xx
 * SPEC.md's error body, a page HTML or a JSON 404, and afterwards nothing half-written.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR_ACTOR } from '../../lambdas/core/model.ts';
import { connectIntegration } from '../../lambdas/core/use-cases/integrations/manage-integration.ts';
import { routeList, type Route } from '../../lambdas/http/routes.ts';
import { closeConnections, expectAnswered, extraHeaders, propertyOptions, send, type HeaderList } from '../support/bad-input.ts';
import { callsTo, knownBadCalls, type RealValues } from '../support/bad-input-routes.ts';
import { MemberBrowser } from '../support/member-browser.ts';
import { expectNoPartialWrite } from '../support/no-partial-write.ts';
import { createShareAs } from '../support/shares.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

const RUNS_PER_ROUTE = 20;

let service: TestService;
let org: TestOrganisation;
let origin: string;
/** The owner's session, for every member endpoint but sign-out. */
let member: MemberBrowser;
/** A session of its own for sign-out, which ends it. */
let leaving: MemberBrowser;
const real: RealValues = { emails: [], requestIds: [], shareIds: [], webhookIds: [], memberIds: [], ticketRefs: [], tokens: [], secrets: [], fingerprints: [] };
let linkToken: string;
let shareToken: string;

beforeAll(async () => {
  service = await startTestService();
  origin = new URL(service.appUrl).origin;
  org = await service.createOrganisation();
  await service.admin.setRateLimits(org.orgId, { perKeyPerMinute: 100_000, perOrgPerMinute: 100_000 });
  member = await MemberBrowser.signIn(service, org.owner.email);
  leaving = await MemberBrowser.signIn(service, org.owner.email);
  const created = await service.call('POST', '/requests', {
    key: org.key,
    body: { subject_name: 'Jane Doe', justification: 'Reset the VPN password', recipients: [org.owner.email, org.member.email], ticket_ref: 'T-1' },
  });
  expect(created.status, created.text).toBe(201);
  linkToken = new URL(created.body.link).pathname.split('/').pop()!;
  const share = await createShareAs(member, { label: 'Wi-Fi' });
  shareToken = share.token;
  // The trigger URL's posts name this preset, so they reach the request creation they drive.
  await service.admin.savePreset(
    org.orgId,
    'vpn',
    'VPN',
    { justification: 'VPN access for the ticket', ttl_minutes: 60, verification_mode: 'none', recipients: [org.owner.email], delivery: { method: 'none' } },
    { requesterFromTicket: true, fallbackRequester: org.owner.email },
  );
  const connected = await connectIntegration(service.deps, OPERATOR_ACTOR, { orgId: org.orgId, name: 'Helpdesk', recipe: null });
  const described = await service.call('GET', '/subject/request', { headers: { 'X-Link-Token': linkToken } });
  expect(described.status, described.text).toBe(200);
  Object.assign(real, {
    emails: [org.owner.email, org.member.email],
    requestIds: [created.body.request.id],
    shareIds: [share.id],
    memberIds: [org.owner.id, org.member.id],
    ticketRefs: ['T-1'],
    tokens: [linkToken, shareToken],
    secrets: [new URL(connected.webhook_url).pathname.split('/').pop()!, new URL(connected.trigger_url).pathname.split('/').pop()!],
    fingerprints: described.body.recipients.map((recipient: { fingerprint?: string }) => recipient.fingerprint).filter(Boolean),
  });
});
afterAll(async () => {
  closeConnections();
  await service?.stop();
});

/** A header holding `value` mostly; else none, a wrong one, or the header twice. */
const tokenHeader = (name: string, value: () => string): fc.Arbitrary<HeaderList> =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constant(null).map((): HeaderList => [[name, value()]]) },
    { weight: 1, arbitrary: fc.constant<HeaderList>([]) },
    { weight: 1, arbitrary: fc.string({ maxLength: 60 }).map((text): HeaderList => [[name, encodeURIComponent(text)]]) },
    { weight: 1, arbitrary: fc.constant(null).map((): HeaderList => [[name, value()], [name, 'A'.repeat(43)]]) },
  );

/**
 * The session cookie and CSRF header as the application's page sends them; else without either,
 * with a wrong CSRF token, with the cookie split over two Cookie headers (as HTTP/2 does), with a
 * second, different session cookie, or from another origin.
 */
const sessionHeaders = (browser: () => MemberBrowser): fc.Arbitrary<HeaderList> =>
  fc.constantFrom('valid', 'valid', 'valid', 'valid', 'no-cookie', 'no-csrf', 'wrong-csrf', 'split-cookie', 'two-sessions', 'foreign-origin').map((variant): HeaderList => {
    const { cookie, csrf } = browser();
    const valid: HeaderList = [['Cookie', cookie!], ['X-CSRF-Token', csrf!]];
    switch (variant) {
      case 'no-cookie':
        return [['X-CSRF-Token', csrf!]];
      case 'no-csrf':
        return [['Cookie', cookie!]];
      case 'wrong-csrf':
        return [['Cookie', cookie!], ['X-CSRF-Token', 'A'.repeat(43)]];
      case 'split-cookie':
        return [['Cookie', 'theme=dark'], ['Cookie', cookie!], ['X-CSRF-Token', csrf!]];
      case 'two-sessions':
        return [['Cookie', `${cookie}; handoff_session=${'B'.repeat(43)}`], ['X-CSRF-Token', csrf!]];
      case 'foreign-origin':
        return [...valid, ['Origin', 'https://evil.example']];
      default:
        return valid;
    }
  });

/** What the route's own page would send. */
const validCredentialFor = (route: Route): HeaderList => {
  const browser = route.name === 'appSignOut' ? leaving : member;
  if (route.scope === 'link') return [['X-Link-Token', linkToken]];
  if (route.scope === 'share_link') return [['X-Share-Token', shareToken]];
  if (route.scope === 'session') return [['Cookie', browser.cookie!], ['X-CSRF-Token', browser.csrf!]];
  return [];
};

const credentialFor = (route: Route): fc.Arbitrary<HeaderList> => {
  switch (route.scope) {
    case 'link':
      return tokenHeader('X-Link-Token', () => linkToken);
    case 'share_link':
      return tokenHeader('X-Share-Token', () => shareToken);
    case 'session':
      return sessionHeaders(() => (route.name === 'appSignOut' ? leaving : member));
    default:
      // Public routes and inbound URLs (whose secret is the path): nothing, or a stray cookie.
      return fc.constantFrom<HeaderList>([], [], [['Cookie', 'handoff_session=x']]);
  }
};

describe('every route outside /v1 answers generated input without a 5xx, in SPEC.md’s error shape', () => {
  const routes = routeList().filter((route) => !route.path.startsWith('/v1/'));

  it('covers the subject, member, share, inbound, sign-in, key and page routes of the table', () => {
    const scopes = new Set(routes.map((route) => route.scope));
    for (const scope of ['link', 'session', 'share_link', 'url_secret', 'public']) expect(scopes).toContain(scope);
  });

  for (const route of routes) {
    it(`${route.method} ${route.path}`, async () => {
      await fc.assert(
        fc.asyncProperty(callsTo(route, real, credentialFor(route), extraHeaders), async (call) => {
          expectAnswered(route, call, await send(origin, call.method, call.path, call.headers, call.body));
        }),
        propertyOptions(RUNS_PER_ROUTE, knownBadCalls(route, real, validCredentialFor(route)).map((call) => [call] as [typeof call])),
      );
    });
  }

  it('left nothing half-written: the audit chain is whole, every request and share has its creation entry', async () => {
    const found = await expectNoPartialWrite(service, org.orgId);
    console.info(`after the web run: ${found.entries} audit entries, ${found.requests} requests, ${found.shares} shares`);
  });
});

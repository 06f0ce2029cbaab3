/**
 * At the edge of HTTP itself: bodies over the 4 MiB limit answer 413
 * `payload_too_large`, a request line and headers over API Gateway's 10,240 bytes answer a JSON
 * 431 `request_header_fields_too_large` (never a bare status or a reset), two Authorization headers
 * or two session cookies authenticate nobody, and any method on any path is answered: never a
 * 5xx, always SPEC.md's error body on a 4xx.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR_ACTOR } from '../../lambdas/core/model.ts';
import { connectIntegration } from '../../lambdas/core/use-cases/integrations/manage-integration.ts';
import { MAX_BODY_BYTES, MAX_REQUEST_LINE_AND_HEADER_VALUES_BYTES } from '../../lambdas/http/request-limits.ts';
import { closeConnections, expectAnswered, PROTOTYPE_NAMES, propertyOptions, send, sendRaw, type RawAnswer } from '../support/bad-input.ts';
import { MemberBrowser } from '../support/member-browser.ts';
import { expectNoPartialWrite } from '../support/no-partial-write.ts';
import { requestItemsOf } from '../support/shapes.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;
let origin: string;
let member: MemberBrowser;
let inboundPath: string;

beforeAll(async () => {
  service = await startTestService();
  origin = new URL(service.appUrl).origin;
  org = await service.createOrganisation();
  await service.admin.setRateLimits(org.orgId, { perKeyPerMinute: 100_000, perOrgPerMinute: 100_000 });
  member = await MemberBrowser.signIn(service, org.owner.email);
  const connected = await connectIntegration(service.deps, OPERATOR_ACTOR, { orgId: org.orgId, name: 'Helpdesk', recipe: null });
  inboundPath = new URL(connected.webhook_url).pathname;
});
afterAll(async () => {
  closeConnections();
  await service?.stop();
});

const expectError = (answer: RawAnswer, status: number, code: string) => {
  expect(answer.status, answer.text.slice(0, 300)).toBe(status);
  expect(String(answer.headers['content-type'])).toMatch(/^application\/json/);
  const body = JSON.parse(answer.text);
  expect(typeof body.message).toBe('string');
  expect(body.code).toBe(code);
};

const validCreate = () => ({ subject_name: 'Jane Doe', justification: 'Reset the VPN password', recipients: [org.owner.email] });

describe('a body over the 4 MiB a function can take answers 413 payload_too_large, read to its end', () => {
  const oversized = () => Buffer.alloc(MAX_BODY_BYTES + 1, 'x');

  it.each([
    ['POST /v1/requests with a key', () => ['/v1/requests', [['Authorization', `Bearer ${org.key}`], ['Content-Type', 'application/json']]] as const],
    ['POST /app/api/sign-in, unauthenticated', () => ['/app/api/sign-in', [['Content-Type', 'application/json']]] as const],
    ['POST to an inbound ticket URL', () => [inboundPath, [['Content-Type', 'application/json']]] as const],
    ['POST to a path no route has', () => ['/nowhere', []] as const],
  ])('%s', async (_, target) => {
    const [path, headers] = target();
    const answer = await send(origin, 'POST', path, headers.map(([name, value]) => [name, value]), oversized());
    expectError(answer, 413, 'payload_too_large');
  });

  it('also when the body comes chunked, with no Content-Length, and far past the limit', async () => {
    const head = `POST /v1/requests HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${org.key}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n`;
    const chunk = Buffer.alloc(1024 * 1024, 'y');
    const chunked = Buffer.concat([
      Buffer.from(head),
      ...Array.from({ length: 12 }, () => Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')])),
      Buffer.from('0\r\n\r\n'),
    ]);
    expectError(await sendRaw(origin, chunked), 413, 'payload_too_large');
  });

  it('a body of exactly the limit is read and judged as JSON instead', async () => {
    const answer = await send(origin, 'POST', '/v1/requests', [['Authorization', `Bearer ${org.key}`]], Buffer.alloc(MAX_BODY_BYTES, ' '));
    // Only blanks: no body at all, so the create's own validation answers.
    expectError(answer, 422, 'validation_failed');
  });
});

describe('a request line and headers past API Gateway’s quota answer a JSON 431', () => {
  /** The bytes API Gateway counts: the request line and every header value. */
  const countedBytes = (requestLine: string, headers: Array<[string, string]>) =>
    Buffer.byteLength(requestLine) + headers.reduce((sum, [, value]) => sum + Buffer.byteLength(value), 0);

  it('answers 431 exactly when the request line and header values pass 10,240 bytes (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 14_000 }),
        fc.array(fc.integer({ min: 0, max: 5_000 }), { maxLength: 4 }),
        fc.constantFrom('/v1/ping', '/app/api/me', '/subject/request'),
        async (queryLength, paddings, path) => {
          const requestLine = `GET ${path}?q=${'q'.repeat(queryLength)} HTTP/1.1`;
          const headers: Array<[string, string]> = [
            ['Host', 'localhost'],
            ['Authorization', `Bearer ${org.key}`],
            ['Connection', 'close'],
            ...paddings.map((length, index): [string, string] => [`X-Pad-${index}`, 'h'.repeat(length)]),
          ];
          const raw = `${requestLine}\r\n${headers.map(([name, value]) => `${name}: ${value}`).join('\r\n')}\r\n\r\n`;
          const answer = await sendRaw(origin, raw);
          if (countedBytes(requestLine, headers) > MAX_REQUEST_LINE_AND_HEADER_VALUES_BYTES) {
            expectError(answer, 431, 'request_header_fields_too_large');
          } else {
            expect(answer.status).not.toBe(431);
            expect(answer.status).toBeLessThan(500);
          }
        },
      ),
      propertyOptions(60),
    );
  });

  it('a query string far past Node’s own header limit is a JSON 431 too, read by fetch without a reset', async () => {
    const answer = await service.call('GET', `/requests?ticket_ref=${'x'.repeat(70_000)}`, { key: org.key });
    expect(answer.status).toBe(431);
    expect(answer.body).toMatchObject({ code: 'request_header_fields_too_large' });
    expect(typeof answer.body.message).toBe('string');
  });

  it('a request Node cannot parse is a JSON 400 bad_request', async () => {
    expectError(await sendRaw(origin, 'GARBAGE\r\n\r\n'), 400, 'bad_request');
  });
});

describe('a repeated credential authenticates nobody', () => {
  it('two Authorization headers, the valid key first, last or twice: 401 unauthenticated, nothing written', async () => {
    const before = (await requestItemsOf(service, org.orgId)).length;
    for (const pair of [
      [`Bearer ${org.key}`, 'Bearer nonsense'],
      ['Bearer nonsense', `Bearer ${org.key}`],
      [`Bearer ${org.key}`, `Bearer ${org.key}`],
    ]) {
      const headers = pair.map((value): [string, string] => ['Authorization', value]);
      expectError(await send(origin, 'GET', '/v1/requests', headers, null), 401, 'unauthenticated');
      const created = await send(origin, 'POST', '/v1/requests', [...headers, ['Content-Type', 'application/json']], Buffer.from(JSON.stringify(validCreate())));
      expectError(created, 401, 'unauthenticated');
    }
    expect(await requestItemsOf(service, org.orgId)).toHaveLength(before);
    // The same key alone is accepted, so the refusal above is the repetition's.
    expect((await send(origin, 'GET', '/v1/requests', [['Authorization', `Bearer ${org.key}`]], null)).status).toBe(200);
  });

  it('two different session cookies: 401 and the cookie cleared; one session split over two Cookie headers is still signed in', async () => {
    const twoSessions = await send(origin, 'GET', '/app/api/me', [['Cookie', `${member.cookie}; handoff_session=${'B'.repeat(43)}`]], null);
    expectError(twoSessions, 401, 'unauthenticated');
    expect(String(twoSessions.headers['set-cookie'])).toContain('handoff_session=;');
    const reversed = await send(origin, 'GET', '/app/api/me', [['Cookie', `handoff_session=${'B'.repeat(43)}`], ['Cookie', member.cookie!]], null);
    expectError(reversed, 401, 'unauthenticated');
    const split = await send(origin, 'GET', '/app/api/me', [['Cookie', 'theme=dark'], ['Cookie', member.cookie!]], null);
    expect(split.status, split.text).toBe(200);
    const twice = await send(origin, 'GET', '/app/api/me', [['Cookie', member.cookie!], ['Cookie', member.cookie!]], null);
    expect(twice.status, twice.text).toBe(200);
  });
});

describe('any method on any path is answered', () => {
  const segment = fc.oneof(
    fc.constantFrom('v1', 'app', 'api', 'subject', 'share', 'inbound', 'ticket-status', 'requests', 'shares', 'r', 's', 'assets', '.well-known', 'jwks.json'),
    fc.constantFrom('', '.', '..', '%2e%2e', '%2F', '%', '%zz', '%00', '%ED%A0%80', '[', ']', '@', ':', ';', '*', '\\', '~'),
    fc.constantFrom(...PROTOTYPE_NAMES),
    fc.string({ maxLength: 20 }).map(encodeURIComponent),
  );

  it('never a 5xx, a 4xx always in the error shape (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'PROPFIND'),
        fc.array(segment, { minLength: 0, maxLength: 6 }),
        fc.constantFrom('/', '//', '/v1/', '/app/', '/app/api/'),
        fc.boolean(),
        async (method, segments, prefix, withKey) => {
          const path = `${prefix}${segments.join('/')}`;
          const headers: Array<[string, string]> = withKey ? [['Authorization', `Bearer ${org.key}`]] : [];
          const call = { method, path, headers, body: method === 'POST' ? Buffer.from('{}') : null };
          expectAnswered(null, call, await send(origin, method, path, headers, call.body));
        },
      ),
      propertyOptions(100),
    );
  });

  it('a path that is no URL (`//[`) is a JSON 404, not a failure of the gateway', async () => {
    expectError(await send(origin, 'GET', '//[', [], null), 404, 'not_found');
  });

  it('left nothing half-written', async () => {
    await expectNoPartialWrite(service, org.orgId);
  });
});

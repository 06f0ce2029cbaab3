import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HelpdeskHttp, reasonOfStatus, retryAfterSeconds, type HelpdeskCall } from '../../lambdas/adapters/helpdesks/helpdesk-http.ts';
import { OAuthTokenCache, requestToken, type IssuedToken } from '../../lambdas/adapters/helpdesks/oauth-token.ts';
import { HELPDESK_FAILURE_REASONS, HelpdeskCallFailed } from '../../lambdas/core/helpdesk.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { helpdeskFailures } from '../support/helpdesk-failure.ts';

/**
 * The helpdesk adapters' HTTP helper and token cache, against a plain server on loopback: how
 * each answer is classified, Retry-After in both forms, the timeout, what is never retried, and
 * the token's caching, refresh and single repeat after a 401.
 */

const NOW = Date.parse('2026-11-26T09:00:00Z');
const SECRET = 'client-secret-9d1f0b7e3a5c2468';
const TOKEN_PREFIX = 'tok-';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;
let server: Server;
let base: string;
let handle: Handler;
let hits: Array<{ path: string; method: string; headers: IncomingMessage['headers']; body: string }>;
const hanging = new Set<ServerResponse>();

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      hits.push({ path: req.url ?? '', method: req.method ?? '', headers: req.headers, body });
      handle(req, res, body);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const res of hanging) res.destroy();
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
});
beforeEach(() => {
  hits = [];
  handle = (_req, res) => json(res, 200, { ok: true });
});

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers }).end(JSON.stringify(body));

const clock = new FakeClock(NOW);
const http = (timeoutMs = 2_000, maxAnswerBytes?: number) => new HelpdeskHttp({ timeoutMs, clock, maxAnswerBytes, allowLoopback: true });
const get = (path = '/thing'): HelpdeskCall => ({ call: 'Vendor ReadThing', method: 'GET', url: `${base}${path}` });

/** Every HelpdeskCallFailed a test saw, searched for secrets at the end. */
const { seen: seenErrors, failure } = helpdeskFailures();

describe('reasonOfStatus', () => {
  it.each([
    [200, null],
    [201, null],
    [204, null],
    [401, 'unauthorized'],
    [403, 'unauthorized'],
    [404, 'not_found'],
    [429, 'rate_limited'],
    [500, 'unavailable'],
    [502, 'unavailable'],
    [503, 'unavailable'],
    [504, 'unavailable'],
    [400, 'unexpected_answer'],
    [409, 'unexpected_answer'],
    [422, 'unexpected_answer'],
    [301, 'unexpected_answer'],
  ] as const)('%i → %s', (status, reason) => {
    expect(reasonOfStatus(status)).toBe(reason);
  });

  it('names only reasons of the port', () => {
    for (let status = 100; status < 600; status++) {
      const reason = reasonOfStatus(status);
      if (reason !== null) expect(HELPDESK_FAILURE_REASONS).toContain(reason);
    }
  });
});

describe('retryAfterSeconds', () => {
  const now = new Date(NOW);
  it.each([
    ['93', 93],
    [' 0 ', 0],
    [new Date(NOW + 120_000).toUTCString(), 120],
    // An HTTP date has whole seconds: a wait that ends within a second rounds up, never to 0 early.
    [new Date(NOW + 1_500).toUTCString(), 1],
    [new Date(NOW - 60_000).toUTCString(), 0],
    ['Sunday, 06-Nov-94 08:49:37 GMT', 0],
    ['Sun Nov  6 08:49:37 1994', 0],
  ])('reads %j as %i seconds', (value, seconds) => {
    expect(retryAfterSeconds(value, now)).toBe(seconds);
  });

  it.each([null, '', 'soon', '1.5', '-3', 'Nov 2026', '2026-11-26T09:02:00Z', '99999999999999999999'])('does not read %j', (value) => {
    expect(retryAfterSeconds(value, now)).toBeUndefined();
  });
});

describe('HelpdeskHttp.send', () => {
  it('sends JSON and reads the JSON answer', async () => {
    handle = (_req, res, body) => json(res, 201, { echoed: JSON.parse(body), extra: 'ignored' });
    const answer = await http().send({ call: 'Vendor WriteThing', method: 'POST', url: `${base}/things`, json: { a: 1 }, headers: { 'X-Vendor': 'v' } });
    expect(answer).toEqual({ status: 201, body: { echoed: { a: 1 }, extra: 'ignored' } });
    expect(hits[0]).toMatchObject({ method: 'POST', path: '/things', body: '{"a":1}' });
    expect(hits[0]!.headers).toMatchObject({ accept: 'application/json', 'content-type': 'application/json', 'x-vendor': 'v' });
  });

  it('sends a form URL-encoded, with exactly that content type, and reads the JSON answer', async () => {
    handle = (_req, res) => json(res, 200, { access_token: 'tok-form', token_type: 'Bearer' });
    const form = { grant_type: 'client_credentials', client_id: 'id', client_secret: `${SECRET}&=+ é`, scope: 'read:tickets edit:tickets' };
    const answer = await http().send({ call: 'Vendor Token', method: 'POST', url: `${base}/auth/token`, form });
    expect(answer).toEqual({ status: 200, body: { access_token: 'tok-form', token_type: 'Bearer' } });
    expect(hits[0]!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    // Reserved characters are escaped (a secret with `&` or `=` stays one field), spaces are `+`.
    expect(hits[0]!.body).toBe(
      'grant_type=client_credentials&client_id=id&client_secret=client-secret-9d1f0b7e3a5c2468%26%3D%2B+%C3%A9&scope=read%3Atickets+edit%3Atickets',
    );
    expect(Object.fromEntries(new URLSearchParams(hits[0]!.body))).toEqual(form);
    // requestToken sends what the call names, a form as well as JSON.
    expect(await requestToken(http(), { call: 'Vendor Token', method: 'POST', url: `${base}/auth/token`, form })).toEqual({ accessToken: 'tok-form', expiresInSeconds: null });
    expect(hits[1]!.body).toBe(hits[0]!.body);
  });

  it('refuses a call that names both a JSON body and a form, without sending it', async () => {
    const both: HelpdeskCall = { call: 'Vendor Token', method: 'POST', url: `${base}/auth/token`, json: { a: 1 }, form: { a: '1' } };
    await expect(http().send(both)).rejects.toThrow(TypeError);
    expect(hits).toEqual([]);
  });

  it.each([
    [401, 'unauthorized'],
    [403, 'unauthorized'],
    [404, 'not_found'],
    [400, 'unexpected_answer'],
    [422, 'unexpected_answer'],
    [500, 'unavailable'],
    [502, 'unavailable'],
  ] as const)('classifies %i as %s, once, without reading or showing its body', async (status, reason) => {
    handle = (_req, res) => json(res, status, { error: `detail with ${SECRET}` });
    const error = await failure(http().send(get()));
    expect(error).toMatchObject({ reason, status, call: 'Vendor ReadThing' });
    expect(error.message.startsWith('Vendor ReadThing: ')).toBe(true);
    expect(error.message).toContain(`(HTTP ${status})`);
    // A 4xx with no meaning of its own is worded as the refusal it is, not as an answer not understood.
    if (status === 400 || status === 422) expect(error.message).toBe(`Vendor ReadThing: the helpdesk refused the call (HTTP ${status})`);
    expect(hits).toHaveLength(1);
  });

  it('classifies 429 with Retry-After in seconds or as an HTTP date, and never retries it', async () => {
    handle = (_req, res) => res.writeHead(429, { 'Content-Type': 'text/html', 'Retry-After': '93' }).end('<h1>Too many</h1>');
    expect(await failure(http().send(get()))).toMatchObject({ reason: 'rate_limited', status: 429, retryAfterSeconds: 93, transient: true });
    handle = (_req, res) => res.writeHead(429, { 'Retry-After': new Date(NOW + 45_000).toUTCString() }).end();
    expect(await failure(http().send(get()))).toMatchObject({ reason: 'rate_limited', retryAfterSeconds: 45 });
    expect(hits).toHaveLength(2);
  });

  it('classifies 503 as unavailable with its Retry-After, and never retries it', async () => {
    handle = (_req, res) => res.writeHead(503, { 'Retry-After': '7' }).end();
    expect(await failure(http().send(get()))).toMatchObject({ reason: 'unavailable', status: 503, retryAfterSeconds: 7, transient: true });
    expect(hits).toHaveLength(1);
  });

  it('does not follow a redirect: it is an unexpected_answer', async () => {
    handle = (req, res) => (req.url === '/moved' ? json(res, 200, {}) : res.writeHead(302, { Location: `${base}/moved` }).end());
    expect(await failure(http().send(get()))).toMatchObject({ reason: 'unexpected_answer', status: 302 });
    expect(hits.map((hit) => hit.path)).toEqual(['/thing']);
  });

  it('calls a 2xx that is not JSON an unexpected_answer, a write\'s too (no write is proven by its status alone)', async () => {
    handle = (_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<html>maintenance</html>');
    expect(await failure(http().send(get()))).toMatchObject({ reason: 'unexpected_answer', status: 200 });
    expect(await failure(http().send({ ...get(), method: 'POST', json: { note: 'link' } }))).toMatchObject({ reason: 'unexpected_answer', status: 200 });
    handle = (_req, res) => res.writeHead(204).end();
    expect(await failure(http().send(get()))).toMatchObject({ reason: 'unexpected_answer', status: 204 });
  });

  it('refuses an answer larger than the limit, declared or streamed', async () => {
    const big = JSON.stringify({ padding: 'x'.repeat(5_000) });
    handle = (_req, res) => res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(big.length) }).end(big);
    expect((await failure(http(2_000, 1_000).send(get()))).reason).toBe('unexpected_answer');
    handle = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(`{"padding":"${'x'.repeat(5_000)}"}`);
    };
    expect((await failure(http(2_000, 1_000).send(get()))).reason).toBe('unexpected_answer');
  });

  it('ends in timeout within the configured timeout when no answer comes', async () => {
    handle = (_req, res) => hanging.add(res);
    const started = performance.now();
    const error = await failure(http(300).send(get()));
    const elapsed = performance.now() - started;
    expect(error).toMatchObject({ reason: 'timeout', transient: true });
    expect(error.status).toBeUndefined();
    expect(elapsed).toBeGreaterThanOrEqual(280);
    expect(elapsed).toBeLessThan(1_500);
  });

  it('ends in timeout when the body stops half way', async () => {
    handle = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"ticket":');
      hanging.add(res);
    };
    const started = performance.now();
    expect((await failure(http(300).send(get()))).reason).toBe('timeout');
    expect(performance.now() - started).toBeLessThan(1_500);
  });

  it('calls a refused connection unavailable', async () => {
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((done) => closed.close(done));
    const error = await failure(http().send({ call: 'Vendor ReadThing', method: 'GET', url: `http://127.0.0.1:${port}/thing` }));
    expect(error).toMatchObject({ reason: 'unavailable', transient: true });
  });
});

/** A token source that counts its requests and issues `tok-<n>` with the given lifetime. */
const countingSource = (expiresInSeconds: number | null) => {
  const source = Object.assign(
    async (): Promise<IssuedToken> => {
      source.requests += 1;
      await new Promise((done) => setTimeout(done, 10));
      return { accessToken: `${TOKEN_PREFIX}${source.requests}`, expiresInSeconds };
    },
    { requests: 0 },
  );
  return source;
};

describe('OAuthTokenCache', () => {
  beforeEach(() => clock.set(NOW));

  it('requests a token once, for calls that start together and for later ones', async () => {
    const source = countingSource(1_800);
    const tokens = new OAuthTokenCache(source, clock);
    expect(await Promise.all([tokens.get(), tokens.get(), tokens.get()])).toEqual(['tok-1', 'tok-1', 'tok-1']);
    expect(await tokens.get()).toBe('tok-1');
    expect(source.requests).toBe(1);
  });

  it('refreshes a margin before expires_in: 60 s, or a tenth of a short lifetime', async () => {
    const long = new OAuthTokenCache(countingSource(1_800), clock);
    await long.get();
    clock.advance(1_739_000);
    expect(await long.get()).toBe('tok-1');
    clock.advance(1_000);
    expect(await long.get()).toBe('tok-2');

    clock.set(NOW);
    const short = new OAuthTokenCache(countingSource(300), clock);
    await short.get();
    clock.advance(269_000);
    expect(await short.get()).toBe('tok-1');
    clock.advance(1_000);
    expect(await short.get()).toBe('tok-2');
  });

  it('keeps a token with no expires_in until it is refused', async () => {
    const source = countingSource(null);
    const tokens = new OAuthTokenCache(source, clock);
    await tokens.get();
    clock.advance(90 * 24 * 3600 * 1000);
    expect(await tokens.get()).toBe('tok-1');
    tokens.refused('tok-1');
    expect(await tokens.get()).toBe('tok-2');
  });

  it('ignores a refusal of a token it already replaced', async () => {
    const tokens = new OAuthTokenCache(countingSource(1_800), clock);
    await tokens.get();
    tokens.refused('tok-1');
    expect(await tokens.get()).toBe('tok-2');
    tokens.refused('tok-1');
    expect(await tokens.get()).toBe('tok-2');
  });

  it('does not keep a failed request: the next call asks again', async () => {
    let fail = true;
    const tokens = new OAuthTokenCache(async () => {
      if (fail) throw new HelpdeskCallFailed('unavailable', 'Vendor Token', { status: 503 });
      return { accessToken: 'tok-ok', expiresInSeconds: 1_800 };
    }, clock);
    expect((await failure(tokens.get())).reason).toBe('unavailable');
    fail = false;
    expect(await tokens.get()).toBe('tok-ok');
  });

  it('shows no token when inspected or serialised', async () => {
    const tokens = new OAuthTokenCache(countingSource(1_800), clock);
    await tokens.get();
    expect(inspect(tokens, { depth: 10, showHidden: true })).not.toContain(TOKEN_PREFIX);
    expect(JSON.stringify(tokens)).not.toContain(TOKEN_PREFIX);
  });
});

describe('HelpdeskHttp.sendWithToken', () => {
  beforeEach(() => clock.set(NOW));

  /** The server accepts only `accepted` tokens (401 otherwise) and counts calls. */
  const acceptOnly = (accepted: Set<string>) => {
    handle = (req, res) => {
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
      if (accepted.has(token)) json(res, 200, { ok: token });
      else json(res, 401, { error: 'invalid token' });
    };
  };

  it('sends the cached token as a bearer token', async () => {
    const source = countingSource(1_800);
    const tokens = new OAuthTokenCache(source, clock);
    acceptOnly(new Set(['tok-1']));
    await http().sendWithToken(get(), tokens);
    await http().sendWithToken(get(), tokens);
    expect(hits.map((hit) => hit.headers.authorization)).toEqual(['Bearer tok-1', 'Bearer tok-1']);
    expect(source.requests).toBe(1);
  });

  it('after a 401, drops the token and repeats the call once with a new one', async () => {
    const source = countingSource(1_800);
    const tokens = new OAuthTokenCache(source, clock);
    await tokens.get();
    acceptOnly(new Set(['tok-2']));
    expect(await http().sendWithToken({ call: 'Vendor AddComment', method: 'POST', url: `${base}/comments`, json: { body: 'x' } }, tokens)).toEqual({ status: 200, body: { ok: 'tok-2' } });
    expect(hits.map((hit) => [hit.headers.authorization, hit.body])).toEqual([
      ['Bearer tok-1', '{"body":"x"}'],
      ['Bearer tok-2', '{"body":"x"}'],
    ]);
  });

  it('gives up after the one repeat: a second 401 is unauthorized', async () => {
    const source = countingSource(1_800);
    acceptOnly(new Set());
    const error = await failure(http().sendWithToken(get(), new OAuthTokenCache(source, clock)));
    expect(error).toMatchObject({ reason: 'unauthorized', status: 401 });
    expect(hits).toHaveLength(2);
    expect(source.requests).toBe(2);
  });

  it.each([
    [403, 'unauthorized'],
    [429, 'rate_limited'],
    [503, 'unavailable'],
    [404, 'not_found'],
  ] as const)('does not repeat a %i, nor drop the token', async (status, reason) => {
    const source = countingSource(1_800);
    handle = (_req, res) => json(res, status, {}, status === 429 ? { 'Retry-After': '5' } : {});
    expect((await failure(http().sendWithToken(get(), new OAuthTokenCache(source, clock)))).reason).toBe(reason);
    expect(hits).toHaveLength(1);
    expect(source.requests).toBe(1);
  });
});

describe('requestToken', () => {
  const call = (): HelpdeskCall => ({ call: 'Vendor Token', method: 'POST', url: `${base}/oauth/token`, json: { grant_type: 'client_credentials', client_id: 'id', client_secret: SECRET } });

  it('reads access_token and expires_in, and tolerates other fields', async () => {
    handle = (_req, res) => json(res, 201, { access_token: 'tok-a', token_type: 'Bearer', expires_in: 1800, scope: 'read', refresh_token: 'r' });
    expect(await requestToken(http(), call())).toEqual({ accessToken: 'tok-a', expiresInSeconds: 1800 });
    handle = (_req, res) => json(res, 200, { access_token: 'tok-b', token_type: 'bearer' });
    expect(await requestToken(http(), call())).toEqual({ accessToken: 'tok-b', expiresInSeconds: null });
  });

  it.each([
    [{}],
    [{ access_token: '' }],
    [{ access_token: 42 }],
    [{ access_token: 'tok-c', expires_in: '1800' }],
    [{ access_token: 'tok-d', expires_in: -1 }],
    [{ access_token: 'tok-e', token_type: 'mac' }],
    [[{ access_token: 'tok-f' }]],
  ])('calls the token answer %j an unexpected_answer', async (body) => {
    handle = (_req, res) => json(res, 200, body);
    expect((await failure(requestToken(http(), call()))).reason).toBe('unexpected_answer');
  });

  it.each([400, 401, 403])('calls a token request refused with %i unauthorized', async (status) => {
    handle = (_req, res) => json(res, status, { error: 'invalid_client', error_description: `bad ${SECRET}` });
    expect(await failure(requestToken(http(), call()))).toMatchObject({ reason: 'unauthorized', status });
  });

  it('leaves a rate limit on the token endpoint a rate limit', async () => {
    handle = (_req, res) => json(res, 429, {}, { 'Retry-After': '12' });
    expect(await failure(requestToken(http(), call()))).toMatchObject({ reason: 'rate_limited', retryAfterSeconds: 12 });
  });
});

describe('error messages', () => {
  it('never hold a secret, a token, a URL or an answer body', () => {
    expect(seenErrors.length).toBeGreaterThan(20);
    for (const error of seenErrors) {
      const shown = [String(error), inspect(error, { depth: 5 }), JSON.stringify(error)].join('\n');
      expect(shown).not.toContain(SECRET);
      expect(shown).not.toContain('Bearer');
      expect(shown).not.toMatch(/tok-/);
      expect(shown).not.toContain(base);
      expect(shown).not.toContain('invalid_client');
    }
  });
});

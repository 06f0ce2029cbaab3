import { randomBytes, randomInt } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { format } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIVE_KEY_PREFIX } from '../../lambdas/core/api-key-format.ts';
import { OPERATOR_ACTOR } from '../../lambdas/core/model.ts';
import { configureIntegration, connectIntegration } from '../../lambdas/core/use-cases/integrations/manage-integration.ts';
import { connectHelpdesk } from '../../lambdas/core/use-cases/integrations/connect-helpdesk.ts';
import { runTicketCheck } from '../../lambdas/core/use-cases/tickets/verify-ticket.ts';
import { startFakeZendesk } from '../support/fake-zendesk.ts';
import { routeList, type Route } from '../../lambdas/http/routes.ts';
import { seal } from '../../web/crypto/envelope.ts';
import { fingerprintOf } from '../../web/crypto/identity.ts';
import { MemberBrowser, sessionCookieOf } from '../support/member-browser.ts';
import { startReceiver } from '../support/receiver.ts';
import { createShareAs } from '../support/shares.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

/**
 * No log line carries a token (issue: "the access log carries the route key, never the path";
 * SPEC: secrets are never logged). One run holds every kind of secret the service handles, real
 * ones from a real flow (API keys, link tokens, challenge and emailed codes, the sign-in token,
 * the session cookie and CSRF token, share tokens, inbound URL secrets and the integration's
 * shared header value, a webhook signing secret, a generated password, idempotency keys), then
 * drives EVERY route of the route table and paths of none, twice (once with made-up credentials,
 * once with real ones), with fresh token-shaped values in the path, the query, the headers
 * (Authorization, cookies, the link and share token headers) and the body, JSON and not. Every
 * line written meanwhile is kept: the service logger's JSON lines (at DEBUG, so none is held
 * back), anything else on stdout and stderr, console calls, and the outbox notices `npm start`
 * prints. No secret, nor a distinctive part of one, may appear in any of them.
 */

let service: TestService;
let org: TestOrganisation;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

// ---- the capture --------------------------------------------------------------------------------

const captured: string[] = [];
const realWrite = { stdout: process.stdout.write, stderr: process.stderr.write };
const consoleMethods = ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const;
const realConsole = Object.fromEntries(consoleMethods.map((name) => [name, console[name]]));
const previousLogLevel = process.env.LOG_LEVEL;
const capture = ((chunk: string | Uint8Array) => {
  captured.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
  return true;
}) as typeof process.stdout.write;

const startCapture = () => {
  process.env.LOG_LEVEL = 'DEBUG';
  process.stdout.write = capture;
  process.stderr.write = capture;
  for (const name of consoleMethods) console[name] = (...args: unknown[]) => void captured.push(`${format(...args)}\n`);
};
const stopCapture = () => {
  process.stdout.write = realWrite.stdout;
  process.stderr.write = realWrite.stderr;
  for (const name of consoleMethods) console[name] = realConsole[name] as never;
  if (previousLogLevel === undefined) delete process.env.LOG_LEVEL;
  else process.env.LOG_LEVEL = previousLogLevel;
};

const lines = (text = captured.join('')) => text.split('\n').filter((line) => line.trim() !== '');

// ---- the secrets --------------------------------------------------------------------------------

/** Long random secrets: looked for whole and by a distinctive inner part. */
const secrets: Array<{ what: string; value: string }> = [];
/** Six-digit codes: looked for as words of their own (a plain substring turns up by chance in numbers). */
const codes: Array<{ what: string; value: string }> = [];

const keep = (what: string, value: string) => {
  expect(value.length, what).toBeGreaterThanOrEqual(16);
  secrets.push({ what, value });
  return value;
};
const keepCode = (what: string, value: string) => {
  expect(value, what).toMatch(/^\d{6}$/);
  codes.push({ what, value });
  return value;
};
/** A fresh value shaped like the service's tokens (32 random bytes, base64url), kept as a secret. */
const tokenLike = (what: string) => keep(what, randomBytes(32).toString('base64url'));

/** The parts of a secret worth looking for: the whole, URL-encoded, and a 16-character piece from its random middle. */
const needles = (value: string) => {
  const found = new Set([value, encodeURIComponent(value)]);
  if (value.length >= 32) found.add(value.slice(value.length - 24, value.length - 8));
  return [...found];
};

/** Every leak in `text`: which secret, and the line it is on. */
const leaksIn = (text: string) => {
  const found: string[] = [];
  const all = lines(text);
  for (const { what, value } of secrets) {
    for (const needle of needles(value)) {
      const line = all.find((candidate) => candidate.includes(needle));
      if (line) {
        found.push(`${what} (${needle === value ? 'whole' : 'part'}) in: ${line.slice(0, 400)}`);
        break;
      }
    }
  }
  for (const { what, value } of codes) {
    const pattern = new RegExp(`(?<![0-9A-Za-z])${value}(?![0-9A-Za-z])`);
    const line = all.find((candidate) => pattern.test(candidate));
    if (line) found.push(`${what} ${value} in: ${line.slice(0, 400)}`);
  }
  return found;
};

// ---- HTTP ---------------------------------------------------------------------------------------

interface Sent {
  status: number;
  text: string;
  headers: Headers;
  body: any;
}

/** One call at the root of the service (the route table's paths are absolute). */
const send = async (method: string, path: string, options: { headers?: Record<string, string>; body?: string } = {}): Promise<Sent> => {
  const root = service.appUrl.replace('localhost', '127.0.0.1');
  const response = await fetch(`${root}${path}`, { method, headers: options.headers, body: options.body, redirect: 'manual' });
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: response.status, text, headers: response.headers, body };
};

const json = (value: unknown) => ({ headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(value) });

// ---- the real flow ------------------------------------------------------------------------------

/** Real credentials of each kind, for the second sweep over the routes. */
const real = {
  linkToken: '',
  shareToken: '',
  cookie: '',
  csrf: '',
  statusSecret: '',
  triggerSecret: '',
  headerName: 'X-Helpdesk-Secret',
  headerValue: '',
  requestId: '',
  shareId: '',
  webhookId: '',
  memberId: '',
};

const outboxTexts = () =>
  readdirSync(service.outboxDir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => JSON.parse(readFileSync(join(service.outboxDir, name), 'utf8')) as { purpose: string; to: string; text: string });

const createRequest = async (extra: Record<string, unknown>, idempotencyKey?: string) => {
  const headers: Record<string, string> = { Authorization: `Bearer ${org.key}`, 'Content-Type': 'application/json' };
  if (idempotencyKey) headers['Idempotency-Key'] = idempotencyKey;
  const body = { subject_name: 'Logan Lines', justification: 'The log scan needs a request', recipients: [org.owner.email, org.member.email], ...extra };
  const created = await send('POST', '/v1/requests', { headers, body: JSON.stringify(body) });
  expect(created.status, created.text).toBe(201);
  const link: string = created.body.link;
  keep('subject link', link);
  const token = keep('link token', /\/r\/([A-Za-z0-9_-]{43})/.exec(link)![1]!);
  if (created.body.challenge_code) keepCode('challenge code', created.body.challenge_code);
  return { id: created.body.request.id as string, token, code: created.body.challenge_code as string | null, body: created.body };
};

/** The subject pass each link's page holds once a code passed: sent back as the page sends it, and looked for in the logs. */
const subjectPasses = new Map<string, string>();

const subject = async (token: string, method: string, path: string, body?: unknown) => {
  const pass = subjectPasses.get(token);
  const answer = await send(method, path, {
    headers: { 'X-Link-Token': token, ...(pass ? { 'X-Subject-Pass': pass } : {}), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const issued = answer.body?.verification?.subject_pass;
  if (typeof issued === 'string') subjectPasses.set(token, keep('subject pass', issued));
  return answer;
};

const waitFor = async <T>(probe: () => T | undefined, what: string, ms = 20_000): Promise<T> => {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 100));
  }
};

const runRealFlow = async () => {
  keep('API key', org.key);
  keep('API key tail', org.key.slice(LIVE_KEY_PREFIX.length + 6));

  // A webhook to a loopback receiver whose URL holds a token in its query, then events for it.
  const hookUrl = `${receiver.url}/hook?token=${tokenLike('token in a webhook URL query')}`;
  const hook = await send('POST', '/v1/webhooks', { headers: { Authorization: `Bearer ${org.key}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ url: hookUrl, events: ['request.created', 'request.submitted', 'request.opened'] }) });
  expect(hook.status, hook.text).toBe(201);
  keep('webhook signing secret', hook.body.secret);
  real.webhookId = hook.body.id;

  // Requests: a challenge code (with an Idempotency-Key, replayed), an emailed code, and one for the sweeps.
  const idempotencyKey = tokenLike('Idempotency-Key');
  const challenged = await createRequest({ verification_mode: 'challenge' }, idempotencyKey);
  const replay = await send('POST', '/v1/requests', {
    headers: { Authorization: `Bearer ${org.key}`, 'Content-Type': 'application/json', 'Idempotency-Key': idempotencyKey },
    body: JSON.stringify({ subject_name: 'Logan Lines', justification: 'The log scan needs a request', recipients: [org.owner.email, org.member.email], verification_mode: 'challenge' }),
  });
  expect(replay.headers.get('idempotency-replayed')).toBe('true');
  const emailed = await createRequest({ verification_mode: 'email_otp', subject_email: 'logan@example.com', delivery: { method: 'email' } });
  const sweepTarget = await createRequest({ verification_mode: 'none' });
  real.linkToken = sweepTarget.token;
  real.requestId = sweepTarget.id;

  // The subject's flow with the challenge code: describe, open, a wrong code, the right one, submit.
  const described = await subject(challenged.token, 'GET', '/subject/request');
  expect(described.status, described.text).toBe(200);
  expect((await subject(challenged.token, 'POST', '/subject/open')).status).toBe(200);
  const wrong = String((Number(challenged.code) + 1) % 1_000_000).padStart(6, '0');
  keepCode('wrong challenge code', wrong);
  expect((await subject(challenged.token, 'POST', '/subject/verify', { challenge_code: wrong })).status).toBe(422);
  expect((await subject(challenged.token, 'POST', '/subject/verify', { challenge_code: challenged.code })).status).toBe(200);
  const recipients = await Promise.all(
    described.body.recipients.map(async (r: any) => ({ membershipId: r.membership_id, publicKey: r.public_key, fingerprint: await fingerprintOf(r.public_key) })),
  );
  const credential = keep('the credential itself', `pw-${randomBytes(24).toString('base64url')}`);
  const { envelope } = await seal(JSON.stringify({ credential }), recipients, challenged.id);
  keep('envelope ciphertext', envelope.ciphertext);
  const submitted = await subject(challenged.token, 'POST', '/subject/submit', { envelope, attachments: [] });
  expect(submitted.status, submitted.text).toBe(200);

  // The emailed code: sent to the outbox, read from it, verified.
  expect((await subject(emailed.token, 'POST', '/subject/email-code')).status).toBe(202);
  const codeMail = await waitFor(() => outboxTexts().find((m) => m.purpose === 'email_code'), 'the email code');
  const emailCode = keepCode('emailed code', /(\d{6})/.exec(codeMail.text)![1]!);
  expect((await subject(emailed.token, 'POST', '/subject/verify', { email_code: emailCode })).status).toBe(200);

  // A member signs in (the emailed sign-in token, the session cookie, the CSRF token) and makes a share.
  const browser = await MemberBrowser.signIn(service, org.member.email);
  const signInMail = outboxTexts().filter((m) => m.purpose === 'sign_in').at(-1)!;
  keep('sign-in token', /#token=([A-Za-z0-9_-]{43})/.exec(signInMail.text)![1]!);
  real.cookie = browser.cookie!;
  keep('session cookie', sessionCookieOf(browser.session!)!.pair.split('=')[1]!);
  real.csrf = keep('CSRF token', browser.csrf!);
  expect((await browser.call('GET', '/app/api/me')).status).toBe(200);
  real.memberId = org.member.id;
  const share = await createShareAs(browser, { view_limit: 5 });
  keep('share link', share.link);
  real.shareToken = keep('share token', share.token);
  real.shareId = share.id;
  for (const value of share.material.secrets) keep('share envelope part', value);
  expect((await send('GET', '/share/describe', { headers: { 'X-Share-Token': share.token } })).status).toBe(200);

  // An integration: both inbound URL secrets, a shared header value, a trigger and a status post.
  const connected = await connectIntegration(service.deps, OPERATOR_ACTOR, { orgId: org.orgId, name: 'Log Desk', clientId: null });
  real.statusSecret = keep('inbound status URL secret', new URL(connected.webhook_url).pathname.split('/').pop()!);
  real.triggerSecret = keep('inbound trigger URL secret', new URL(connected.trigger_url).pathname.split('/').pop()!);
  real.headerValue = keep('integration shared header value', `hdr-${randomBytes(24).toString('base64url')}`);
  await configureIntegration(service.deps, OPERATOR_ACTOR, org.orgId, connected.integration.id, { auth: { mode: 'header', headerName: real.headerName, secret: real.headerValue } });
  const inboundHeaders = { [real.headerName]: real.headerValue, 'Content-Type': 'application/json' };
  const triggered = await send('POST', `/inbound/ticket-trigger/${real.triggerSecret}`, { headers: inboundHeaders, body: JSON.stringify({ ticket: { id: 'LOG-1' } }) });
  expect(triggered.status, triggered.text).toBe(202);
  const status = await send('POST', `/inbound/ticket-status/${real.statusSecret}`, { headers: inboundHeaders, body: JSON.stringify({ ticket: { id: 'LOG-1', status: 'closed' } }) });
  expect(status.status, status.text).toBe(202);

  // A helpdesk connection: its client secret and access tokens, a link posted in a ticket, a failed
  // read and a verified close, all logged on the way (the check worker logs at info).
  const helpdeskSecret = keep('helpdesk client secret', `zd-${randomBytes(24).toString('base64url')}`);
  const zendesk = await startFakeZendesk({ clientId: 'log-desk', clientSecret: helpdeskSecret, now: () => Date.now() });
  try {
    zendesk.setTicket('9001', 'open');
    await connectHelpdesk(service.deps, OPERATOR_ACTOR, org.orgId, connected.integration.id, {
      adapter: 'zendesk',
      url: zendesk.url,
      credentials: { client_id: 'log-desk', client_secret: helpdeskSecret },
    });
    const replied = await createRequest({ verification_mode: 'challenge', ticket_integration_id: connected.integration.id, ticket_external_id: '9001', delivery: { method: 'ticket_reply' } });
    expect(replied.body.delivery).toMatchObject({ status: 'sent' });
    zendesk.setTicket('9001', 'closed');
    zendesk.answerNext('show', { status: 503, body: {} });
    const check = { orgId: org.orgId, integrationId: connected.integration.id, externalId: '9001', attempt: 0 };
    expect(await runTicketCheck(service.deps, check)).toMatchObject({ kind: 'failed' });
    expect(await runTicketCheck(service.deps, check)).toMatchObject({ kind: 'applied' });
    for (const token of zendesk.issuedTokens()) keep('helpdesk access token', token);
  } finally {
    await zendesk.close();
  }

  // A generated password, and the certificate of the submitted request.
  const generated = await send('POST', '/v1/generate', { headers: { Authorization: `Bearer ${org.key}`, 'Content-Type': 'application/json' }, body: '{}' });
  expect(generated.status).toBe(200);
  keep('generated password', generated.body.value);
  expect((await send('GET', `/v1/requests/${challenged.id}/certificate`, { headers: { Authorization: `Bearer ${org.key}` } })).status).toBeLessThan(500);

  // The webhook pipeline ran: the receiver got signed deliveries (the fan-out and delivery workers logged on the way).
  await waitFor(() => (receiver.receipts.some((r) => r.path.startsWith('/hook')) ? true : undefined), 'a webhook delivery');
};

// ---- every route, twice -------------------------------------------------------------------------

const API_KEY_SCOPES = (scope: Route['scope']) => !['link', 'share_link', 'session', 'url_secret', 'public'].includes(scope);

/** A body that names every field a token or code could hide in, each a fresh token-shaped value. */
const tokenBody = (where: string) => ({
  token: tokenLike(`body token of ${where}`),
  secret: tokenLike(`body secret of ${where}`),
  password: tokenLike(`body password of ${where}`),
  api_key: `${LIVE_KEY_PREFIX}${tokenLike(`body API key of ${where}`)}`,
  link: `https://handoff.example/r/${tokenLike(`body link of ${where}`)}`,
  challenge_code: keepCode(`body code of ${where}`, String(randomInt(100_000, 1_000_000))),
  public_key: tokenLike(`body public key of ${where}`),
  envelope: { ciphertext: tokenLike(`body ciphertext of ${where}`) },
  status: tokenLike(`body status of ${where}`),
  ticket: { id: tokenLike(`body ticket id of ${where}`) },
});

/** The route's path with each parameter filled: the real value where one is given, else a fresh token-shaped one. */
const pathOf = (route: Route, realValues: Record<string, string> = {}) =>
  route.path.replace(/\{(\w+)\+?\}/g, (_, name: string) => realValues[name] ?? tokenLike(`path {${name}} of ${route.method} ${route.path}`));

const query = (where: string) => `?token=${tokenLike(`query token of ${where}`)}&access_token=${tokenLike(`query access_token of ${where}`)}&cursor=${tokenLike(`query cursor of ${where}`)}`;

/** Made-up credentials of every kind, all at once. */
const madeUpHeaders = (where: string): Record<string, string> => ({
  Authorization: `Bearer ${LIVE_KEY_PREFIX}${tokenLike(`Authorization of ${where}`)}`,
  Cookie: `handoff_session=${tokenLike(`session cookie of ${where}`)}; other=${tokenLike(`another cookie of ${where}`)}`,
  'X-Link-Token': tokenLike(`X-Link-Token of ${where}`),
  'X-Subject-Pass': tokenLike(`X-Subject-Pass of ${where}`),
  'X-Share-Token': tokenLike(`X-Share-Token of ${where}`),
  'X-CSRF-Token': tokenLike(`X-CSRF-Token of ${where}`),
  'Idempotency-Key': tokenLike(`Idempotency-Key of ${where}`),
  [real.headerName]: tokenLike(`integration header of ${where}`),
  'X-Hub-Signature-256': `sha256=${randomBytes(32).toString('hex')}`,
  Referer: `https://handoff.example/r/${tokenLike(`Referer of ${where}`)}`,
});

/** The real credential a route asks for, and real ids for its path. */
const realAccess = (route: Route): { headers: Record<string, string>; values: Record<string, string> } => {
  const ids = (id: string) => ({ id, ref: tokenLike(`ticket ref of ${route.method} ${route.path}`) });
  switch (route.scope) {
    case 'link':
      return { headers: { 'X-Link-Token': real.linkToken }, values: {} };
    case 'share_link':
      return { headers: { 'X-Share-Token': real.shareToken }, values: {} };
    case 'session':
      return { headers: { Cookie: real.cookie, 'X-CSRF-Token': real.csrf }, values: ids(route.path.includes('/shares/') ? real.shareId : route.path.includes('/members/') ? real.memberId : real.requestId) };
    case 'url_secret':
      return { headers: { [real.headerName]: real.headerValue }, values: { secret: route.path.includes('ticket-status') ? real.statusSecret : real.triggerSecret } };
    case 'public':
      return { headers: {}, values: {} };
    default:
      return {
        headers: { Authorization: `Bearer ${org.key}` },
        values: ids(route.path.startsWith('/v1/shares/') ? real.shareId : route.path.startsWith('/v1/webhooks/') ? real.webhookId : real.requestId),
      };
  }
};

const statuses: Array<{ call: string; status: number }> = [];

const sweep = async (route: Route, pass: 'made-up' | 'real') => {
  const where = `${route.method} ${route.path} (${pass} credentials)`;
  const access = pass === 'real' ? realAccess(route) : { headers: madeUpHeaders(where), values: {} };
  const target = `${pathOf(route, access.values)}${query(where)}`;
  const extra = { 'User-Agent': `agent-${tokenLike(`User-Agent of ${where}`)}` };
  const record = (sent: Sent, how: string) => statuses.push({ call: `${how} ${where}`, status: sent.status });
  if (route.method === 'GET' || route.method === 'DELETE') {
    record(await send(route.method, target, { headers: { ...access.headers, ...extra } }), 'plain');
    return;
  }
  const body = json(tokenBody(where));
  record(await send(route.method, target, { headers: { ...access.headers, ...extra, ...body.headers }, body: body.body }), 'JSON');
  // A body that is no JSON at all, which a parser's error message would quote.
  const raw = `xyz${tokenLike(`non-JSON body of ${where}`)}{"token":"${tokenLike(`broken JSON body of ${where}`)}"`;
  record(await send(route.method, target, { headers: { ...access.headers, ...extra, 'Content-Type': 'application/json' }, body: raw }), 'non-JSON');
};

/** Paths no route matches (404) or matches under another method (405), each holding a token. */
const unmatched = async () => {
  const t = (what: string) => tokenLike(`unmatched path: ${what}`);
  const calls: Array<[string, string]> = [
    ['GET', `/v1/${t('under /v1')}`],
    ['GET', `/${t('at the root')}`],
    ['GET', `/r/${t('below a subject link')}/more`],
    ['POST', `/v1/requests/${t('an unknown action')}/unknown`],
    ['DELETE', `/v1/requests/${t('405 on a request')}`],
    ['GET', `/inbound/ticket-status/${t('405 on an inbound URL')}`],
    ['PUT', `/s/${t('405 on a share link')}`],
    ['GET', `/v1/ping${query('the ping query')}`],
    ['GET', `/assets/${t('a missing asset')}.js`],
  ];
  for (const [method, path] of calls) {
    const sent = await send(method, path, { headers: { ...madeUpHeaders(`${method} ${path}`) } });
    statuses.push({ call: `${method} unmatched`, status: sent.status });
  }
};

beforeAll(async () => {
  startCapture();
  try {
    receiver = await startReceiver();
    service = await startTestService({ webhooks: true, allowLoopbackWebhooks: true, announce: (line) => captured.push(`${line}\n`) });
    org = await service.createOrganisation({ name: 'Log Scan Org' });
  } catch (error) {
    stopCapture();
    throw error;
  }
}, 120_000);

afterAll(async () => {
  try {
    await service?.stop();
    await receiver?.close();
  } finally {
    stopCapture();
  }
});

describe('a run with every kind of secret, over every route', () => {
  it('captures what the service logger writes, at every level', () => {
    const canary = `canary-${randomBytes(12).toString('hex')}`;
    service.deps.logger.debug('capture check', { canary });
    expect(captured.join('')).toContain(canary);
  });

  it('runs the real flow: requests, the subject, the codes, a member session, a share, an integration, a webhook', async () => {
    await runRealFlow();
    expect(secrets.length).toBeGreaterThanOrEqual(20);
    expect(codes.length).toBeGreaterThanOrEqual(3);
  }, 120_000);

  it('calls every route of the table with made-up and with real credentials, and paths of none', async () => {
    for (const pass of ['made-up', 'real'] as const) for (const route of routeList()) await sweep(route, pass);
    await unmatched();
    // Every route was reached and answered; none with a 5xx (no failure path hides in the scan).
    const per = routeList().length;
    expect(statuses.length).toBeGreaterThanOrEqual(2 * per);
    expect(statuses.filter((s) => s.status >= 500)).toEqual([]);
    // The real pass got past authentication somewhere on every kind of access.
    expect(statuses.filter((s) => s.call.includes('(real credentials)') && s.status < 300).length).toBeGreaterThan(5);
  }, 240_000);

  it('finds a leak where there is one: a line logging a path as a gateway might', () => {
    const before = captured.length;
    service.deps.logger.info('request', { path: `/r/${real.linkToken}`, query: `token=${secrets.at(-1)!.value}` });
    const planted = captured.splice(before).join('');
    expect(leaksIn(planted).length).toBeGreaterThanOrEqual(2);
  });

  it('writes no secret, nor a distinctive part of one, in any line', () => {
    const all = lines();
    // The scan has real material: the service logged (deliveries, failures, refusals) and the outbox spoke.
    expect(all.length).toBeGreaterThan(10);
    expect(all.some((line) => line.includes('[outbox]'))).toBe(true);
    expect(all.some((line) => /"level":"(INFO|WARN|ERROR|DEBUG)"/.test(line))).toBe(true);
    const leaks = leaksIn(captured.join(''));
    expect(leaks, `secrets in log lines:\n${leaks.join('\n')}`).toEqual([]);
  });
});

/**
 * The inbound generic ticket webhook over real HTTP (SPEC.md, "Inbound generic ticket webhook
 * (outside {base_url})"): status words in any capitals, status maps, dotted paths, JSON / form /
 * query-string posts, the optional hardening (shared header, X-Service-Signature, hub-sha256,
 * hub-sha1, Zendesk), 404 for wrong / rotated / trigger URLs, 409 while disabled, 429 over the
 * integration's limit, 202 for unknown tickets and unusable posts (with the activity view), every
 * helpdesk sample of test/fixtures/helpdesks through its recipe, and no auth secret in the table
 * or in any answer.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../lambdas/core/clock.ts';
import { OPERATOR_ACTOR } from '../../lambdas/core/model.ts';
import { toRequestView } from '../../lambdas/core/request-view.ts';
import { rateTableNameOf, TTL_ATTRIBUTE } from '../../lambdas/store/table.ts';
import { submit } from '../../lambdas/core/subject-flow.ts';
import {
  configureIntegration,
  connectIntegration,
  integrationActivity,
  rotateIntegrationSecrets,
  type IntegrationChanges,
} from '../../lambdas/core/use-cases/integrations/manage-integration.ts';
import { DATE_TIME, expectCreationResult, expectError, materialItems, type RequestObject } from '../support/shapes.ts';
import { scanTable, startTestService, type ApiAnswer, type TestOrganisation, type TestService } from '../support/test-service.ts';

const FIXTURES = new URL('../fixtures/helpdesks/', import.meta.url);
const fixtureText = (file: string) => readFileSync(new URL(file, FIXTURES), 'utf8');
/** The fixture signatures cover the file's bytes without its trailing newline. */
const signedBytes = (file: string) => fixtureText(file).replace(/\n$/, '');

interface ManifestEntry {
  file: string;
  vendor: string;
  recipe: string;
  ticket_id: string;
  status: string;
  signature?: { scheme: string; secret: string; headers: Record<string, string> };
}
const MANIFEST = JSON.parse(fixtureText('manifest.json')) as ManifestEntry[];
const FIXTURE_SECRET = 'fixture-signing-secret-0123456789';
/** The recipe's native signature mode, for the samples that sign. */
const NATIVE_AUTH: Record<string, string> = { zendesk: 'zendesk', jira: 'hub-sha256', zammad: 'hub-sha1' };
/** What each sample's status field holds, as the service echoes it back (trimmed, lower case). */
const STATUS_RECEIVED: Record<string, string> = {
  'zendesk-event.json': 'solved',
  'zendesk-trigger.json': 'solved',
  'jira-issue-updated.json': 'done',
  'zammad-trigger.json': 'closed',
  'freshdesk-automation.json': '4',
  'connectwise-callback.json': 'true',
  'autotask-ticket.json': '5',
  'servicenow-business-rule.json': '6',
  'halopsa-webhook.json': '9',
};
/** The manifest's status starts with the status it must be read as. */
const expectedStatusOf = (entry: ManifestEntry) => {
  const first = entry.status.split(/[ (]/)[0];
  expect(['resolved', 'closed']).toContain(first);
  return first;
};

// Every auth secret configured anywhere in this file: none may be stored in plain text or answered.
const HEADER_SECRET = 'header-value-9f3c1e7a5b2d4f60';
const HMAC_SECRET = 'hmac-signing-secret-7d1e2f3a4b5c';
const HUB256_SECRET = 'hub256-signing-secret-1a2b3c4d5e';
const HUB1_SECRET = 'hub1-signing-secret-6f7e8d9c0b1a';
const ZENDESK_SECRET = 'zendesk-signing-secret-a1b2c3d4e5';
const AUTH_SECRETS = [HEADER_SECRET, HMAC_SECRET, HUB256_SECRET, HUB1_SECRET, ZENDESK_SECRET, FIXTURE_SECRET];

const REASON = {
  missing: 'The signature or shared header is missing.',
  mismatch: 'The signature or shared header does not match.',
  stale: 'The signature timestamp is more than five minutes away.',
};
const NOT_UNDERSTOOD = (word: string) => `Status "${word}" is not understood; map it in the integration's status map.`;

const ack = (ticketId: string | null, status: string, statusReceived: string | null, problem: string | null = null) => ({
  accepted: true,
  url: 'webhook',
  ticket_id: ticketId,
  status,
  status_received: statusReceived,
  problem,
});

const hmacHex = (algorithm: 'sha256' | 'sha1', secret: string, text: string) => createHmac(algorithm, secret).update(text).digest('hex');
const serviceSignature = (secret: string, body: string, at: Date) => {
  const t = Math.floor(at.getTime() / 1000);
  return `t=${t},v1=${hmacHex('sha256', secret, `${t}.${body}`)}`;
};
const zendeskHeaders = (secret: string, body: string, timestamp: string) => ({
  'X-Zendesk-Webhook-Signature-Timestamp': timestamp,
  'X-Zendesk-Webhook-Signature': createHmac('sha256', secret).update(`${timestamp}${body}`).digest('base64'),
});
/** The body with one byte changed (a digit or letter bumped), same length. */
const oneByteChanged = (body: string) => {
  const at = body.search(/[0-8]/);
  return `${body.slice(0, at)}${String(Number(body[at]) + 1)}${body.slice(at + 1)}`;
};
const randomUrlSecret = () => randomBytes(32).toString('base64url');

/** Everything shared by the two services' describes: posting, connecting, requests in states. */
const harness = (getService: () => TestService, answers: string[]) => {
  const post = async (path: string, rawBody: string, headers: Record<string, string> = {}): Promise<ApiAnswer> => {
    const answer = await getService().call('POST', path, { rawBody, headers });
    answers.push(answer.text, JSON.stringify([...answer.headers]));
    return answer;
  };
  const postJson = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    post(path, JSON.stringify(body), { 'Content-Type': 'application/json', ...headers });

  const connect = async (orgId: string, name: string, recipe?: string) => {
    const connected = await connectIntegration(getService().deps, OPERATOR_ACTOR, { orgId, name, recipe: recipe ?? null });
    answers.push(JSON.stringify(connected));
    return {
      id: connected.integration.id,
      orgId,
      path: new URL(connected.webhook_url).pathname,
      triggerPath: new URL(connected.trigger_url).pathname,
      recommendedAuth: connected.recommended_auth,
    };
  };
  const configure = async (integration: { orgId: string; id: string }, changes: IntegrationChanges) => {
    const view = await configureIntegration(getService().deps, OPERATOR_ACTOR, integration.orgId, integration.id, changes);
    answers.push(JSON.stringify(view));
    return view;
  };
  const activity = async (integration: { orgId: string; id: string }) => {
    const entries = await integrationActivity(getService().deps, integration.orgId, integration.id);
    answers.push(JSON.stringify(entries));
    return entries;
  };

  const create = async (org: TestOrganisation, ticketRef: string, extra: Record<string, unknown> = {}): Promise<RequestObject> => {
    const answer = await getService().call('POST', '/requests', {
      key: org.key,
      body: { subject_name: 'Jane Doe', justification: 'Need the VPN admin password', recipients: [org.owner.email], ticket_ref: ticketRef, ...extra },
    });
    expect(answer.status, answer.text).toBe(201);
    return expectCreationResult(answer.body).request;
  };
  /** Submitted as the subject's browser would: the request and its stand-in ciphertext in one transaction. */
  const submitted = async (org: TestOrganisation, ticketRef: string, extra: Record<string, unknown> = {}) => {
    const service = getService();
    const created = await create(org, ticketRef, extra);
    const before = (await service.deps.requests.get(created.id))!;
    const after = submit(before, service.deps.clock.now(), 1);
    const actor = { type: 'subject' as const, label: before.subject.name };
    await service.deps.requests.submit(
      before,
      after,
      { envelope: { v: 1, ciphertext: `sealed-${created.id}`, recipients: [] }, attachments: [{ iv: 'aXY', ciphertext: `sealed-${created.id}` }] },
      { orgId: org.orgId, type: 'request.submitted', actor, clientId: after.client.id, requestId: after.id, data: { request: toRequestView(after, service.deps.urls), actor, details: {} } },
    );
    expect(await materialItems(service, created.id)).toHaveLength(2);
    return created;
  };
  const read = async (org: TestOrganisation, id: string) => {
    const answer = await getService().call('GET', `/requests/${id}`, { key: org.key });
    expect(answer.status, answer.text).toBe(200);
    return answer.body as RequestObject;
  };
  const trustPolicy = (org: TestOrganisation, trust: boolean) =>
    getService().admin.setPolicy(org.orgId, {
      ticket: { trustUnverifiedWebhooks: trust, gracePeriodMinutes: 0, closeStatuses: ['resolved', 'closed'], revokeUnsubmittedOnClose: false } as never,
    });

  /** No item of the table holds any of the secrets in plain text. */
  const expectNoSecretInTable = async (secrets: string[]) => {
    const dump = (await scanTable(getService())).map((item) => JSON.stringify(item));
    for (const secret of secrets) expect(dump.filter((item) => item.includes(secret)), `items holding ${secret}`).toEqual([]);
  };
  return { post, postJson, connect, configure, activity, create, submitted, read, trustPolicy, expectNoSecretInTable };
};

describe('inbound generic ticket webhook (real clock)', () => {
  let service: TestService;
  /** Org with the default trust (off): statuses are recorded, nothing destroyed. */
  let plain: TestOrganisation;
  /** Org that trusts unverified webhooks, no grace period: a close purges at once. */
  let trusting: TestOrganisation;
  const answers: string[] = [];
  const urlSecrets: string[] = [];
  const h = harness(() => service, answers);

  beforeAll(async () => {
    service = await startTestService();
    [plain, trusting] = await Promise.all([service.createOrganisation({ name: 'Plain Org' }), service.createOrganisation({ name: 'Trusting Org' })]);
    await Promise.all([h.trustPolicy(plain, false), h.trustPolicy(trusting, true)]);
  });
  afterAll(() => service?.stop());

  const connect = async (org: TestOrganisation, name: string, recipe?: string) => {
    const connected = await h.connect(org.orgId, name, recipe);
    urlSecrets.push(connected.path.split('/').pop()!, connected.triggerPath.split('/').pop()!);
    return connected;
  };

  describe('1. status words', () => {
    // Ordered so that consecutive posts to the request always change its ticket status.
    const WORDS: Array<[string, string]> = [
      ['complete', 'closed'],
      ['open', 'open'],
      ['closed', 'closed'],
      ['pending', 'pending'],
      ['completed', 'closed'],
      ['resolved', 'resolved'],
      ['new', 'open'],
      ['on hold', 'pending'],
      ['solved', 'resolved'],
    ];
    const titleCase = (word: string) => word.replace(/\b\w/g, (c) => c.toUpperCase());
    const alternating = (word: string) => [...word].map((c, i) => (i % 2 ? c.toUpperCase() : c.toLowerCase())).join('');
    const VARIANTS: Array<(word: string) => string> = [
      (word) => word,
      (word) => word.toUpperCase(),
      (word) => `  ${titleCase(word)}  `,
      (word) => `\t${alternating(word)} \n`,
    ];

    it('every SPEC word in any capitals and with surrounding spaces is understood and updates the ticket card', async () => {
      const integration = await connect(plain, 'Words');
      const request = await h.create(plain, 'WORDS-1');
      expect(request.ticket).toEqual({ ref: 'WORDS-1', url: null, external_id: null, integration_id: null, status: null });
      const cases = VARIANTS.flatMap((variant, v) => WORDS.map(([word, status], w) => ({ w, sent: variant(word), word, status, onRequest: w % VARIANTS.length === v })));
      expect(cases).toHaveLength(36);
      // Each word, in one of the variants (every variant used), goes to the request and is read back
      // through GET /v1/requests/{id}; the others go to a ticket no request quotes (same answer, faster).
      const onRequest = cases.filter((c) => c.onRequest).sort((a, b) => a.w - b.w);
      expect(onRequest.map((c) => c.word).sort()).toEqual(WORDS.map(([word]) => word).sort());
      for (const { sent, word, status } of onRequest) {
        const answer = await h.postJson(integration.path, { ticket_id: 'WORDS-1', status: sent });
        expect(answer.status, `${JSON.stringify(sent)}: ${answer.text}`).toBe(202);
        expect(answer.body, JSON.stringify(sent)).toEqual(ack('WORDS-1', status, word));
        expect(answer.headers.get('content-type')).toBe('application/json');
        const shown = await h.read(plain, request.id);
        expect(shown.ticket, JSON.stringify(sent)).toEqual({ ref: 'WORDS-1', url: null, external_id: null, integration_id: null, status });
        expect(shown.status).toBe('pending');
      }
      const others = cases.filter((c) => !c.onRequest);
      const answers = await Promise.all(others.map(({ sent }) => h.postJson(integration.path, { ticket_id: 'WORDS-OTHER', status: sent })));
      others.forEach(({ sent, word, status }, i) => {
        expect(answers[i].status, JSON.stringify(sent)).toBe(202);
        expect(answers[i].body, JSON.stringify(sent)).toEqual(ack('WORDS-OTHER', status, word));
      });
      expect(await h.activity(integration)).toEqual([]);
    });

    it('the ticket id matches the reference exactly: other capitals or a prefix do not touch the request', async () => {
      const integration = await connect(plain, 'Exact ids');
      const request = await h.create(plain, 'Case-7');
      for (const other of ['case-7', 'CASE-7', '#Case-7', 'Case-70']) {
        const answer = await h.postJson(integration.path, { ticket_id: other, status: 'open' });
        expect(answer.status).toBe(202);
        expect(answer.body).toEqual(ack(other, 'open', 'open'));
      }
      expect((await h.read(plain, request.id)).ticket!.status).toBeNull();
      const exact = await h.postJson(integration.path, { ticket_id: 'Case-7', status: 'pending' });
      expect(exact.body).toEqual(ack('Case-7', 'pending', 'pending'));
      expect((await h.read(plain, request.id)).ticket!.status).toBe('pending');
    });

    it('any other word is unknown, never purges (trust on, submitted request), until it is mapped', async () => {
      const integration = await connect(trusting, 'Unknown words');
      const request = await h.submitted(trusting, 'UNK-1');
      const others: Array<[string, string]> = [
        ['Escalated', 'escalated'],
        ['  DONE ', 'done'],
        ['close', 'close'],
        ['Resolve', 'resolve'],
        ['on   hold now', 'on hold now'],
        ['closed!', 'closed!'],
        ['fermé', 'fermé'],
      ];
      for (const [sent, word] of others) {
        const answer = await h.postJson(integration.path, { ticket_id: 'UNK-1', status: sent });
        expect(answer.status, answer.text).toBe(202);
        expect(answer.body).toEqual(ack('UNK-1', 'unknown', word, NOT_UNDERSTOOD(word)));
      }
      const still = await h.read(trusting, request.id);
      expect(still).toMatchObject({ status: 'submitted', purge_reason: null, completed_at: null, ticket: { ref: 'UNK-1', status: 'unknown' } });
      expect(await materialItems(service, request.id)).toHaveLength(2);

      // Mapped under the integration's status map, the same word closes the ticket and purges.
      await h.configure(integration, { statusMap: { Escalated: 'closed' } });
      const mapped = await h.postJson(integration.path, { ticket_id: 'UNK-1', status: 'ESCALATED' });
      expect(mapped.body).toEqual(ack('UNK-1', 'closed', 'escalated'));
      expect(await h.read(trusting, request.id)).toMatchObject({ status: 'completed', purge_reason: 'ticket_closed', ticket: { status: 'closed' } });
      expect(await materialItems(service, request.id)).toEqual([]);
    });
  });

  it('2. numbers go through the status map: JSON number 5 and string "5"', async () => {
    const integration = await connect(plain, 'Numbers');
    const view = await h.configure(integration, { statusMap: { '4': 'resolved', '5': 'closed' } });
    expect(view.status_map).toEqual({ '4': 'resolved', '5': 'closed' });
    const request = await h.create(plain, 'NUM-1');
    const cases: Array<[unknown, string, string]> = [
      [5, 'closed', '5'],
      [4, 'resolved', '4'],
      ['5', 'closed', '5'],
      [' 4 ', 'resolved', '4'],
    ];
    for (const [sent, status, word] of cases) {
      const answer = await h.postJson(integration.path, { ticket_id: 'NUM-1', status: sent });
      expect(answer.status).toBe(202);
      expect(answer.body, JSON.stringify(sent)).toEqual(ack('NUM-1', status, word));
      expect((await h.read(plain, request.id)).ticket!.status).toBe(status);
    }
    // An unmapped number is unknown: recorded as the ticket's latest status, and in the activity log.
    const unmapped = await h.postJson(integration.path, { ticket_id: 'NUM-1', status: 3 });
    expect(unmapped.body).toEqual(ack('NUM-1', 'unknown', '3', NOT_UNDERSTOOD('3')));
    expect((await h.read(plain, request.id)).ticket!.status).toBe('unknown');
  });

  describe('3. dotted paths', () => {
    it('nested: ticket.id and ticket.status', async () => {
      const integration = await connect(plain, 'Nested');
      await h.configure(integration, { ticketIdPaths: ['ticket.id'], statusPaths: ['ticket.status'] });
      const request = await h.create(plain, 'NEST-1');
      const answer = await h.postJson(integration.path, { ticket: { id: 'NEST-1', status: 'Solved' }, ticket_id: 'ignored', status: 'open' });
      expect(answer.status).toBe(202);
      expect(answer.body).toEqual(ack('NEST-1', 'resolved', 'solved'));
      expect((await h.read(plain, request.id)).ticket!.status).toBe('resolved');
    });

    it('array index: items.0.ticket and items[0].ticket', async () => {
      const request = await h.create(plain, 'ARR-1');
      const body = { items: [{ ticket: 'ARR-1', state: { name: 'On Hold' } }, { ticket: 'ARR-2', state: { name: 'closed' } }] };
      const dotted = await connect(plain, 'Array dotted');
      await h.configure(dotted, { ticketIdPaths: ['items.0.ticket'], statusPaths: ['items.0.state.name'] });
      const first = await h.postJson(dotted.path, body);
      expect(first.body).toEqual(ack('ARR-1', 'pending', 'on hold'));
      expect((await h.read(plain, request.id)).ticket!.status).toBe('pending');

      const bracketed = await connect(plain, 'Array brackets');
      await h.configure(bracketed, { ticketIdPaths: ['items[0].ticket'], statusPaths: ['items[1].state.name'] });
      const second = await h.postJson(bracketed.path, body);
      expect(second.body).toEqual(ack('ARR-1', 'closed', 'closed'));
      expect((await h.read(plain, request.id)).ticket!.status).toBe('closed');
    });

    it('JSON inside a string (ConnectWise Entity)', async () => {
      const integration = await connect(plain, 'Embedded');
      await h.configure(integration, { ticketIdPaths: ['Entity.id'], statusPaths: ['Entity.status.name'] });
      const request = await h.create(plain, '48299');
      const entity = JSON.stringify({ id: 48299, summary: 'VPN', status: { id: 7, name: 'Completed' } });
      const answer = await h.postJson(integration.path, { ID: 1, Entity: entity });
      expect(answer.body).toEqual(ack('48299', 'closed', 'completed'));
      expect((await h.read(plain, request.id)).ticket!.status).toBe('closed');
    });
  });

  describe('4. body formats', () => {
    it('JSON (with a charset), form-encoded and query-string posts are all read', async () => {
      const integration = await connect(plain, 'Formats');
      const request = await h.create(plain, 'FMT 1/a');

      const json = await h.post(integration.path, JSON.stringify({ ticket_id: 'FMT 1/a', status: 'Pending' }), { 'Content-Type': 'application/json; charset=utf-8' });
      expect(json.body).toEqual(ack('FMT 1/a', 'pending', 'pending'));
      expect((await h.read(plain, request.id)).ticket!.status).toBe('pending');

      const form = await h.post(integration.path, 'ticket_id=FMT+1%2Fa&status=Resolved', { 'Content-Type': 'application/x-www-form-urlencoded' });
      expect(form.status, form.text).toBe(202);
      expect(form.body).toEqual(ack('FMT 1/a', 'resolved', 'resolved'));
      expect((await h.read(plain, request.id)).ticket!.status).toBe('resolved');

      const query = await h.post(`${integration.path}?ticket_id=${encodeURIComponent('FMT 1/a')}&status=closed`, '');
      expect(query.status, query.text).toBe(202);
      expect(query.body).toEqual(ack('FMT 1/a', 'closed', 'closed'));
      expect((await h.read(plain, request.id)).ticket!.status).toBe('closed');

      expect(await h.activity(integration)).toEqual([]);
    });
  });

  describe('5. hardening', () => {
    const body = JSON.stringify({ ticket_id: 'AUTH-1', status: 'open' });
    // RFC 9110: every 401 names what it asks for; a shared header's name is not said.
    const CHALLENGE = {
      header: 'SharedHeader realm="inbound"',
      hmac: 'Signature realm="inbound", header="X-Service-Signature"',
      'hub-sha256': 'Signature realm="inbound", header="X-Hub-Signature-256"',
      'hub-sha1': 'Signature realm="inbound", header="X-Hub-Signature"',
      zendesk: 'Signature realm="inbound", header="X-Zendesk-Webhook-Signature"',
    };
    const expectRefused = (answer: ApiAnswer, reason: string, mode: keyof typeof CHALLENGE) => {
      expectError(answer, 401, 'unauthenticated');
      expect(answer.body).toEqual({ message: reason, code: 'unauthenticated' });
      expect(answer.headers.get('www-authenticate')).toBe(CHALLENGE[mode]);
    };
    const expectAccepted = (answer: ApiAnswer) => {
      expect(answer.status, answer.text).toBe(202);
      expect(answer.body).toEqual(ack('AUTH-1', 'open', 'open'));
    };
    const refusal = (reason: string) => ({ at: expect.stringMatching(DATE_TIME), url: 'webhook', reason, ticket_id: null, status: null });
    const JSON_TYPE = { 'Content-Type': 'application/json' };

    it('header: the configured header name and value', async () => {
      const integration = await connect(plain, 'Header');
      const view = await h.configure(integration, { auth: { mode: 'header', headerName: 'X-Helpdesk-Token', secret: HEADER_SECRET } });
      expect(view.auth).toEqual({ mode: 'header', header_name: 'X-Helpdesk-Token', secret_set: true });
      expectAccepted(await h.post(integration.path, body, { ...JSON_TYPE, 'X-Helpdesk-Token': HEADER_SECRET }));
      expectRefused(await h.post(integration.path, body, { ...JSON_TYPE, 'X-Helpdesk-Token': `${HEADER_SECRET}x` }), REASON.mismatch, 'header');
      expectRefused(await h.post(integration.path, body, { ...JSON_TYPE, 'X-Other-Token': HEADER_SECRET }), REASON.missing, 'header');
      expect(await h.activity(integration)).toEqual([refusal(REASON.missing), refusal(REASON.mismatch)]);
    });

    it('hmac: X-Service-Signature t=<unix>,v1=<hex>; wrong and 6-minute-old signatures are refused', async () => {
      const integration = await connect(plain, 'HMAC');
      await h.configure(integration, { auth: { mode: 'hmac', secret: HMAC_SECRET } });
      const now = new Date();
      expectAccepted(await h.post(integration.path, body, { ...JSON_TYPE, 'X-Service-Signature': serviceSignature(HMAC_SECRET, body, now) }));
      expectRefused(await h.post(integration.path, body, { ...JSON_TYPE, 'X-Service-Signature': serviceSignature(`${HMAC_SECRET}-wrong`, body, now) }), REASON.mismatch, 'hmac');
      // The signature covers the exact bytes: the same JSON re-serialised with a space is not signed.
      expectRefused(
        await h.post(integration.path, body.replace(':', ': '), { ...JSON_TYPE, 'X-Service-Signature': serviceSignature(HMAC_SECRET, body, now) }),
        REASON.mismatch,
        'hmac',
      );
      const staleAt = new Date(now.getTime() - 6 * 60_000);
      expectRefused(await h.post(integration.path, body, { ...JSON_TYPE, 'X-Service-Signature': serviceSignature(HMAC_SECRET, body, staleAt) }), REASON.stale, 'hmac');
      expectRefused(await h.post(integration.path, body, JSON_TYPE), REASON.missing, 'hmac');
      expect(await h.activity(integration)).toEqual([refusal(REASON.missing), refusal(REASON.stale), refusal(REASON.mismatch), refusal(REASON.mismatch)]);
    });

    it('hmac: the exact sent bytes are signed, also when they are not UTF-8 (a Latin-1 body)', async () => {
      const integration = await connect(plain, 'HMAC bytes');
      await h.configure(integration, { auth: { mode: 'hmac', secret: HMAC_SECRET } });
      // `{"ticket_id":"LAT-1","status":"closed","note":"café"}` in ISO-8859-1: é is the single byte 0xE9.
      const bytes = Buffer.concat([Buffer.from('{"ticket_id":"LAT-1","status":"closed","note":"caf', 'latin1'), Buffer.from([0xe9]), Buffer.from('"}', 'latin1')]);
      const t = Math.floor(Date.now() / 1000);
      const signature = createHmac('sha256', HMAC_SECRET).update(Buffer.concat([Buffer.from(`${t}.`), bytes])).digest('hex');
      const response = await fetch(`${service.appUrl.replace('localhost', '127.0.0.1')}${integration.path}`, {
        method: 'POST',
        body: bytes,
        headers: { 'Content-Type': 'application/json; charset=iso-8859-1', 'X-Service-Signature': `t=${t},v1=${signature}` },
      });
      const text = await response.text();
      answers.push(text);
      expect(response.status, text).toBe(202);
      expect(JSON.parse(text)).toEqual(ack('LAT-1', 'closed', 'closed'));
    });

    it('hub-sha256: X-Hub-Signature-256 (or X-Hub-Signature) sha256=<hex>', async () => {
      const integration = await connect(plain, 'Hub 256');
      await h.configure(integration, { auth: { mode: 'hub-sha256', secret: HUB256_SECRET } });
      expectAccepted(await h.post(integration.path, body, { ...JSON_TYPE, 'X-Hub-Signature-256': `sha256=${hmacHex('sha256', HUB256_SECRET, body)}` }));
      expectAccepted(await h.post(integration.path, body, { ...JSON_TYPE, 'X-Hub-Signature': `sha256=${hmacHex('sha256', HUB256_SECRET, body)}` }));
      expectRefused(await h.post(integration.path, body, { ...JSON_TYPE, 'X-Hub-Signature-256': `sha256=${hmacHex('sha256', 'another-secret-0123456789', body)}` }), REASON.mismatch, 'hub-sha256');
      expectRefused(await h.post(integration.path, body, { ...JSON_TYPE, 'X-Hub-Signature': `sha1=${hmacHex('sha1', HUB256_SECRET, body)}` }), REASON.missing, 'hub-sha256');
      expect(await h.activity(integration)).toEqual([refusal(REASON.missing), refusal(REASON.mismatch)]);
    });

    it('hub-sha1: X-Hub-Signature sha1=<hex>', async () => {
      const integration = await connect(plain, 'Hub 1');
      await h.configure(integration, { auth: { mode: 'hub-sha1', secret: HUB1_SECRET } });
      expectAccepted(await h.post(integration.path, body, { ...JSON_TYPE, 'X-Hub-Signature': `sha1=${hmacHex('sha1', HUB1_SECRET, body)}` }));
      expectRefused(await h.post(integration.path, body, { ...JSON_TYPE, 'X-Hub-Signature': `sha1=${hmacHex('sha1', HUB256_SECRET, body)}` }), REASON.mismatch, 'hub-sha1');
      expectRefused(await h.post(integration.path, `${body} `, { ...JSON_TYPE, 'X-Hub-Signature': `sha1=${hmacHex('sha1', HUB1_SECRET, body)}` }), REASON.mismatch, 'hub-sha1');
      expect(await h.activity(integration)).toEqual([refusal(REASON.mismatch), refusal(REASON.mismatch)]);
    });

    it('zendesk: base64 HMAC-SHA256 over timestamp + body; wrong and 6-minute-old signatures are refused', async () => {
      const integration = await connect(plain, 'Zendesk signed', 'zendesk');
      expect(integration.recommendedAuth).toBe('zendesk');
      await h.configure(integration, { auth: { mode: 'zendesk', secret: ZENDESK_SECRET } });
      const zendeskBody = JSON.stringify({ ticket: { id: 'AUTH-1', status: 'open' } });
      const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
      const good = await h.post(integration.path, zendeskBody, { ...JSON_TYPE, ...zendeskHeaders(ZENDESK_SECRET, zendeskBody, now) });
      expectAccepted(good);
      expectRefused(await h.post(integration.path, zendeskBody, { ...JSON_TYPE, ...zendeskHeaders(`${ZENDESK_SECRET}-wrong`, zendeskBody, now) }), REASON.mismatch, 'zendesk');
      const stale = new Date(Date.now() - 6 * 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
      expectRefused(await h.post(integration.path, zendeskBody, { ...JSON_TYPE, ...zendeskHeaders(ZENDESK_SECRET, zendeskBody, stale) }), REASON.stale, 'zendesk');
      expect(await h.activity(integration)).toEqual([refusal(REASON.stale), refusal(REASON.mismatch)]);
    });
  });

  it('6. a rotated URL answers 404 and the new one 202; a wrong secret and the trigger secret on the webhook path 404', async () => {
    const integration = await connect(plain, 'Rotation');
    const body = { ticket_id: 'ROT-1', status: 'open' };
    expect((await h.postJson(integration.path, body)).status).toBe(202);

    const notFound = (answer: ApiAnswer) => {
      expectError(answer, 404, 'not_found');
      expect(answer.body).toEqual({ message: 'No such URL.', code: 'not_found' });
    };
    notFound(await h.postJson(`/inbound/ticket-status/${randomUrlSecret()}`, body));
    notFound(await h.postJson('/inbound/ticket-status/short', body));
    const triggerSecret = integration.triggerPath.split('/').pop()!;
    notFound(await h.postJson(`/inbound/ticket-status/${triggerSecret}`, body));

    const rotated = await rotateIntegrationSecrets(service.deps, OPERATOR_ACTOR, plain.orgId, integration.id);
    answers.push(JSON.stringify(rotated));
    const newPath = new URL(rotated.webhook_url).pathname;
    urlSecrets.push(newPath.split('/').pop()!, new URL(rotated.trigger_url).pathname.split('/').pop()!);
    expect(newPath).not.toBe(integration.path);
    notFound(await h.postJson(integration.path, body));
    notFound(await h.postJson(integration.triggerPath, { ticket_id: 'ROT-1', subject: { name: 'Jane Doe' } }));
    const fresh = await h.postJson(newPath, body);
    expect(fresh.status, fresh.text).toBe(202);
    expect(fresh.body).toEqual(ack('ROT-1', 'open', 'open'));
  });

  it('7. a disabled integration answers 409; enabled again, 202', async () => {
    const integration = await connect(plain, 'Switch');
    const request = await h.create(plain, 'OFF-1');
    const view = await h.configure(integration, { enabled: false });
    expect(view.enabled).toBe(false);
    const refused = await h.postJson(integration.path, { ticket_id: 'OFF-1', status: 'pending' });
    expectError(refused, 409, 'conflict');
    expect(refused.body).toEqual({ message: 'This integration is disabled.', code: 'conflict' });
    expect((await h.read(plain, request.id)).ticket!.status).toBeNull();
    await h.configure(integration, { enabled: true });
    const accepted = await h.postJson(integration.path, { ticket_id: 'OFF-1', status: 'pending' });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toEqual(ack('OFF-1', 'pending', 'pending'));
    expect((await h.read(plain, request.id)).ticket!.status).toBe('pending');
  });

  it('9. an unknown ticket gets byte-for-byte the same answer as a known one', async () => {
    const integration = await connect(plain, 'Existence');
    await h.create(plain, 'KNOWN-0001');
    for (const status of ['closed', 'open', 'Escalated']) {
      const known = await h.postJson(integration.path, { ticket_id: 'KNOWN-0001', status });
      const unknown = await h.postJson(integration.path, { ticket_id: 'NOSUCH-001', status });
      expect(known.status).toBe(202);
      expect(unknown.status).toBe(202);
      expect(unknown.text.replace('NOSUCH-001', 'TICKET')).toBe(known.text.replace('KNOWN-0001', 'TICKET'));
      for (const header of ['content-type', 'cache-control', 'content-length']) {
        expect(unknown.headers.get(header), header).toBe(known.headers.get(header));
      }
      expect(Object.keys(unknown.body)).toEqual(['accepted', 'url', 'ticket_id', 'status', 'status_received', 'problem']);
    }
  });

  it('10. every unusable post is 202 with a problem and is listed in the activity view, newest first', async () => {
    const integration = await connect(plain, 'Unusable');
    const JSON_TYPE = { 'Content-Type': 'application/json' };
    const cases: Array<{ send: () => Promise<ApiAnswer>; answer: ReturnType<typeof ack> }> = [
      { send: () => h.post(integration.path, '{"ticket_id": "BAD-1", "status": ', JSON_TYPE), answer: ack(null, 'unknown', null, 'The body is not valid JSON.') },
      { send: () => h.post(integration.path, 'ticket BAD-1 is closed', { 'Content-Type': 'text/plain' }), answer: ack(null, 'unknown', null, 'Unsupported content type text/plain.') },
      { send: () => h.post(integration.path, '[{"ticket_id":"BAD-2","status":"closed"}]', JSON_TYPE), answer: ack(null, 'unknown', null, 'The body is not a JSON object.') },
      { send: () => h.postJson(integration.path, { status: 'Closed' }), answer: ack(null, 'closed', 'closed', 'No ticket id at ticket_id.') },
      {
        send: () => h.postJson(integration.path, { ticket_id: 'x'.repeat(121), status: 'open' }),
        answer: ack(null, 'open', 'open', 'The ticket id at ticket_id is not text of 1 to 120 characters or a whole number.'),
      },
      { send: () => h.postJson(integration.path, { ticket_id: 'BAD-4', status: ' Escalated ' }), answer: ack('BAD-4', 'unknown', 'escalated', NOT_UNDERSTOOD('escalated')) },
      { send: () => h.postJson(integration.path, { ticket_id: 'BAD-5' }), answer: ack('BAD-5', 'unknown', null, 'No status at status.') },
      { send: () => h.postJson(integration.path, { ticket_id: 'BAD-6', status: { name: 'closed' } }), answer: ack('BAD-6', 'unknown', null, 'The status at status is not a word or a number.') },
    ];
    for (const { send, answer } of cases) {
      const got = await send();
      expect(got.status, got.text).toBe(202);
      expect(got.body).toEqual(answer);
    }
    const listed = await h.activity(integration);
    expect(listed).toEqual(
      [...cases].reverse().map(({ answer }) => ({ at: expect.stringMatching(DATE_TIME), url: 'webhook', reason: answer.problem, ticket_id: answer.ticket_id, status: answer.status_received })),
    );
    const times = listed.map((entry) => entry.at);
    expect(times).toEqual([...times].sort().reverse());
  });

  describe('11. helpdesk samples through their recipes', () => {
    it.each(MANIFEST.map((entry) => [entry.file, entry] as const))('%s: 202 with its ticket id, and a trusted close completes the linked request', async (file, entry) => {
      const integration = await connect(trusting, entry.vendor.slice(0, 100), entry.recipe);
      const request = await h.submitted(trusting, entry.ticket_id, { ticket_integration_id: integration.id, ticket_external_id: entry.ticket_id });
      const status = expectedStatusOf(entry);
      const answer = await h.post(integration.path, fixtureText(file), { 'Content-Type': 'application/json' });
      expect(answer.status, answer.text).toBe(202);
      expect(answer.body).toEqual(ack(entry.ticket_id, status, STATUS_RECEIVED[file]));
      const shown = await h.read(trusting, request.id);
      expect(shown).toMatchObject({
        status: 'completed',
        purge_reason: 'ticket_closed',
        ticket: { ref: entry.ticket_id, external_id: entry.ticket_id, integration_id: integration.id, status },
      });
      expect(await materialItems(service, request.id)).toEqual([]);

      if (entry.signature && entry.recipe !== 'zendesk') {
        // Jira and Zammad: their native signature on, the manifest's headers sign the file's bytes.
        expect(entry.signature.secret).toBe(FIXTURE_SECRET);
        expect(integration.recommendedAuth).toBe(NATIVE_AUTH[entry.recipe]);
        await h.configure(integration, { auth: { mode: NATIVE_AUTH[entry.recipe], secret: FIXTURE_SECRET } });
        const bytes = signedBytes(file);
        const signed = await h.post(integration.path, bytes, { 'Content-Type': 'application/json', ...entry.signature.headers });
        expect(signed.status, signed.text).toBe(202);
        expect(signed.body).toEqual(ack(entry.ticket_id, status, STATUS_RECEIVED[file]));
        const changed = oneByteChanged(bytes);
        expect(changed.length).toBe(bytes.length);
        const refused = await h.post(integration.path, changed, { 'Content-Type': 'application/json', ...entry.signature.headers });
        expectError(refused, 401, 'unauthenticated');
        expect(refused.body).toEqual({ message: REASON.mismatch, code: 'unauthenticated' });
        const unsignedNow = await h.post(integration.path, bytes, { 'Content-Type': 'application/json' });
        expect(unsignedNow.body).toEqual({ message: REASON.missing, code: 'unauthenticated' });
        expect((await h.activity(integration)).map((e) => e.reason)).toEqual([REASON.missing, REASON.mismatch]);
      }
    });
  });

  it('12. no auth secret or URL secret is stored in plain text, and no answer carries one', async () => {
    await h.expectNoSecretInTable([...AUTH_SECRETS, ...urlSecrets]);
    // The URL secrets' hashes are what is stored; the auth secrets appear in no answer at all.
    expect(urlSecrets.length).toBeGreaterThan(20);
    const hashes = urlSecrets.map((secret) => createHash('sha256').update(secret).digest('hex'));
    const dump = JSON.stringify(await scanTable(service));
    expect(hashes.filter((hash) => dump.includes(hash)).length).toBeGreaterThan(0);
    expect(answers.length).toBeGreaterThan(100);
    for (const secret of AUTH_SECRETS) expect(answers.filter((text) => text.includes(secret)), secret).toEqual([]);
  });
});

describe('inbound generic ticket webhook (fake clock): Zendesk fixture signature and the rate limit', () => {
  let now = Date.parse('2025-01-08T16:46:00Z');
  const clock: Clock = { now: () => new Date(now) };
  let service: TestService;
  let org: TestOrganisation;
  const answers: string[] = [];
  const h = harness(() => service, answers);

  beforeAll(async () => {
    service = await startTestService({ clock });
    // This clock is in January 2025, when the Zendesk fixture was signed, so every item written here
    // (a rate window, an activity entry) carries a TTL already past, which DynamoDB Local deletes
    // within seconds: a window would restart between two posts. DynamoDB itself may keep expired
    // items for up to two days and the service never relies on their deletion, so these tables
    // keep them.
    const { db, tableName } = service.deps;
    for (const table of [tableName, rateTableNameOf(tableName)]) {
      await db.send(new UpdateTimeToLiveCommand({ TableName: table, TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: false } }));
    }
    org = await service.createOrganisation({ name: 'Zendesk Org' });
    await h.trustPolicy(org, true);
  });
  afterAll(() => service?.stop());

  it('11. the Zendesk event sample with its fixture signature: 202 and purged; one changed byte 401; stale 401', async () => {
    const entry = MANIFEST.find((e) => e.file === 'zendesk-event.json')!;
    const integration = await h.connect(org.orgId, 'Zendesk', entry.recipe);
    await h.configure(integration, { auth: { mode: 'zendesk', secret: FIXTURE_SECRET } });
    const request = await h.submitted(org, entry.ticket_id, { ticket_integration_id: integration.id, ticket_external_id: entry.ticket_id });
    const bytes = signedBytes(entry.file);

    const changed = await h.post(integration.path, oneByteChanged(bytes), { 'Content-Type': 'application/json', ...entry.signature!.headers });
    expectError(changed, 401, 'unauthenticated');
    expect(changed.body).toEqual({ message: REASON.mismatch, code: 'unauthenticated' });
    expect((await h.read(org, request.id)).status).toBe('submitted');

    const signed = await h.post(integration.path, bytes, { 'Content-Type': 'application/json', ...entry.signature!.headers });
    expect(signed.status, signed.text).toBe(202);
    expect(signed.body).toEqual(ack('5158', 'resolved', 'solved'));
    expect(await h.read(org, request.id)).toMatchObject({ status: 'completed', purge_reason: 'ticket_closed', ticket: { status: 'resolved', integration_id: integration.id } });
    expect(await materialItems(service, request.id)).toEqual([]);

    // The same signed post six minutes later is stale.
    now = Date.parse('2025-01-08T16:51:22Z');
    const stale = await h.post(integration.path, bytes, { 'Content-Type': 'application/json', ...entry.signature!.headers });
    expect(stale.body).toEqual({ message: REASON.stale, code: 'unauthenticated' });
    expect((await h.activity(integration)).map((e) => e.reason)).toEqual([REASON.stale, REASON.mismatch]);
    now = Date.parse('2025-01-08T16:52:00Z');
  });

  it('8. over rateLimitPerMinute the post is 429 with a numeric Retry-After', async () => {
    now = Date.parse('2025-01-08T17:00:00Z');
    const integration = await h.connect(org.orgId, 'Limited');
    const view = await h.configure(integration, { rateLimitPerMinute: 3 });
    expect(view.rate_limit_per_minute).toBe(3);
    for (let i = 1; i <= 3; i++) {
      const answer = await h.postJson(integration.path, { ticket_id: `RL-${i}`, status: 'open' });
      expect(answer.status, answer.text).toBe(202);
    }
    now += 15_000;
    const limited = await h.postJson(integration.path, { ticket_id: 'RL-4', status: 'open' });
    expectError(limited, 429, 'rate_limited');
    expect(limited.body).toEqual({ message: 'Too many requests. Retry after the time in Retry-After.', code: 'rate_limited' });
    expect(limited.headers.get('retry-after')).toBe('45');
    // The next window lets posts through again.
    now = Date.parse('2025-01-08T17:01:00Z');
    expect((await h.postJson(integration.path, { ticket_id: 'RL-5', status: 'open' })).status).toBe(202);
  });

  it('10. posts refused in the same instant are still listed newest first', async () => {
    now = Date.parse('2025-01-08T18:00:00Z');
    const integration = await h.connect(org.orgId, 'Same instant');
    for (const word of ['first', 'second', 'third']) {
      const answer = await h.postJson(integration.path, { ticket_id: `SAME-${word}`, status: word });
      expect(answer.body).toEqual(ack(`SAME-${word}`, 'unknown', word, NOT_UNDERSTOOD(word)));
    }
    expect((await h.activity(integration)).map((entry) => [entry.at, entry.ticket_id])).toEqual([
      ['2025-01-08T18:00:00.000Z', 'SAME-third'],
      ['2025-01-08T18:00:00.000Z', 'SAME-second'],
      ['2025-01-08T18:00:00.000Z', 'SAME-first'],
    ]);
  });

  it('12. the fixture signing secret is not stored in plain text nor answered', async () => {
    await h.expectNoSecretInTable([FIXTURE_SECRET]);
    expect(answers.filter((text) => text.includes(FIXTURE_SECRET))).toEqual([]);
  });
});

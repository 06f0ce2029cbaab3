/**
 * The inbound generic ticket webhook over real HTTP (SPEC.md, "Inbound generic ticket webhook
 * (outside {base_url})"): status words in any capitals, status maps, dotted paths, JSON / form /
 * query-string posts, the optional hardening (shared header, X-Service-Signature, hub-sha256,
 * hub-sha1, Zendesk), 404 for wrong / rotated / trigger URLs, 409 while disabled, 202 for unknown
 * tickets and unusable posts (with the activity view), every helpdesk sample of
 * test/fixtures/helpdesks through its recipe, and no auth secret in the table or in any answer.
 * The Zendesk sample's own signature and the integration's rate limit need a clock set to when the
 * sample was signed: inbound-webhook-fake-clock.test.ts.
 */
import { createHash, createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR_ACTOR } from '../../lambdas/core/model.ts';
import { rotateIntegrationSecrets } from '../../lambdas/core/use-cases/integrations/manage-integration.ts';
import {
  fixtureText,
  signedBytes,
  MANIFEST,
  FIXTURE_SECRET,
  NATIVE_AUTH,
  STATUS_RECEIVED,
  expectedStatusOf,
  HEADER_SECRET,
  HMAC_SECRET,
  HUB256_SECRET,
  HUB1_SECRET,
  ZENDESK_SECRET,
  AUTH_SECRETS,
  REASON,
  NOT_UNDERSTOOD,
  ack,
  hmacHex,
  serviceSignature,
  zendeskHeaders,
  oneByteChanged,
  randomUrlSecret,
  harness,
} from '../support/inbound-webhook-harness.ts';
import { DATE_TIME, expectError, materialItems } from '../support/shapes.ts';
import { scanTable, startTestService, type ApiAnswer, type TestOrganisation, type TestService } from '../support/test-service.ts';

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

    it('a reference sent with surrounding spaces is stored trimmed, as a post\u2019s ticket id is read, so the post finds it', async () => {
      const integration = await connect(plain, 'Spaced refs');
      const request = await h.create(plain, ' SPACED-1 ');
      expect(request.ticket!.ref).toBe('SPACED-1');
      const answer = await h.postJson(integration.path, { ticket_id: 'SPACED-1 ', status: 'pending' });
      expect(answer.body).toEqual(ack('SPACED-1', 'pending', 'pending'));
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
      'hub-sha256': 'Signature realm="inbound", header="X-Hub-Signature"',
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

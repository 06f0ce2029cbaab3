/**
 * The operator CLI's ticketing-integration commands as a process (the run's bundle of bin/admin.ts)
 * on the test's table (--endpoint/--table) with a DATA_DIR holding the sealing key, against a
 * service that seals with the same key file, so the URLs the CLI prints and the secrets it seals
 * work against the service: connect-integration, set-integration, rotate-integration-secret,
 * integration-activity, set-default-preset; and the ticket flags of save-preset and set-policy.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../lambdas/core/hashing.ts';
import { OPERATOR_ACTOR } from '../../lambdas/core/model.ts';
import { connectIntegration } from '../../lambdas/core/use-cases/integrations/manage-integration.ts';
import { KeyFileSealer } from '../../lambdas/local/key-file-sealer.ts';
import { SEALING_KEY_FILE } from '../../lambdas/local/local-service.ts';
import { keys } from '../../lambdas/store/keys.ts';
import { runAdminCli } from '../support/admin-cli.ts';
import { recordShownSecrets } from '../support/shown-secrets.ts';
import { startFakeServiceNow } from '../support/fake-servicenow.ts';
import { startFakeZendesk } from '../support/fake-zendesk.ts';
import { auditEntries, expectCreationResult, ULID } from '../support/shapes.ts';
import { scanTable, startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

const URL_SECRET = '[A-Za-z0-9_-]{43}';

let dataDir: string;
let service: TestService;
let org: TestOrganisation;
/** The service's web address on the loopback address, as the operator would give it. */
let appUrl: string;
let seq = 0;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'handoff-cli-data-'));
  service = await startTestService({ sealer: await KeyFileSealer.fromFile(join(dataDir, SEALING_KEY_FILE)) });
  org = await service.createOrganisation({ name: 'Integration CLI Org' });
  appUrl = service.appUrl.replace('localhost', '127.0.0.1');
});
afterAll(async () => {
  await service?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const cli = (command: string, args: string[]) => runAdminCli(service.deps.tableName, command, args, { DATA_DIR: dataDir });
/** The integration commands build their stores with the web address (the table is a deployed one as far as the CLI knows). */
const integrationCli = (command: string, args: string[]) => cli(command, [...args, '--app-url', appUrl]);

/** A command's plain lines (on stderr, for a person) and its JSON (on stdout, alone, for jq). */
const linesAndJson = (run: { stdout: string; stderr: string }) => ({ lines: run.stderr.trimEnd().split('\n'), json: JSON.parse(run.stdout) });

const getItem = async (key: { pk: string; sk: string }) =>
  (await service.deps.db.send(new GetCommand({ TableName: service.deps.tableName, Key: key, ConsistentRead: true }))).Item as Record<string, any> | undefined;

const integrationItem = (integrationId: string) => getItem(keys.integration(org.orgId, integrationId));

/** POSTs JSON to an inbound URL as a helpdesk would. */
const postTo = async (url: string, body: unknown, headers: Record<string, string> = {}) => {
  const response = await fetch(url.replace('localhost', '127.0.0.1'), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, body: parsed, text };
};

/** An integration connected straight through the use case (for tests about other commands). */
const connected = async (name: string, recipe: string | null = null) =>
  connectIntegration({ ...service.deps, urls: { appUrl } }, OPERATOR_ACTOR, { orgId: org.orgId, name, recipe });

const createRequest = async (ticketRef: string) => {
  const answer = await service.call('POST', '/requests', {
    key: org.key,
    body: { subject_name: 'Jane Doe', justification: 'Needs the helpdesk admin password', recipients: [org.owner.email], ticket_ref: ticketRef },
  });
  expect(answer.status, answer.text).toBe(201);
  return expectCreationResult(answer.body).request;
};

const ticketOf = async (requestId: string) => (await service.call('GET', `/requests/${requestId}`, { key: org.key })).body.ticket;

describe('connect-integration and rotate-integration-secret', () => {
  let webhookUrl: string;
  let triggerUrl: string;
  let integrationId: string;

  it('connect-integration prints the integration id and both URLs; only the SHA-256 of their secrets is in the table', async () => {
    const done = await cli('connect-integration', ['--org', org.orgId, '--name', 'Zendesk', '--recipe', 'zendesk', '--app-url', appUrl]);
    expect(done.code, done.stderr).toBe(0);
    const { lines, json } = linesAndJson(done);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(new RegExp(`^Integration: [0-9a-z]{26}$`));
    expect(lines[1]).toMatch(new RegExp(`^Webhook URL: ${appUrl.replace(/[.]/g, '\\.')}/inbound/ticket-status/${URL_SECRET}$`));
    expect(lines[2]).toMatch(new RegExp(`^Trigger URL: ${appUrl.replace(/[.]/g, '\\.')}/inbound/ticket-trigger/${URL_SECRET}$`));
    integrationId = lines[0].slice('Integration: '.length);
    webhookUrl = lines[1].slice('Webhook URL: '.length);
    triggerUrl = lines[2].slice('Trigger URL: '.length);
    expect(integrationId).toMatch(ULID);
    expect(json).toMatchObject({ integration: { id: integrationId, object: 'integration', name: 'Zendesk', recipe: 'zendesk', enabled: true }, webhook_url: webhookUrl, trigger_url: triggerUrl });

    const statusSecret = webhookUrl.split('/').pop()!;
    const triggerSecret = triggerUrl.split('/').pop()!;
    expect(statusSecret).not.toBe(triggerSecret);
    const items = await scanTable(service);
    for (const secret of [statusSecret, triggerSecret]) {
      expect(items.filter((item) => JSON.stringify(item).includes(secret)), 'items holding the URL secret').toEqual([]);
      expect(await getItem(keys.inboundSecret(sha256Hex(secret)))).toMatchObject({ orgId: org.orgId, integrationId });
    }
    expect((await integrationItem(integrationId))!.secretHashes).toEqual({ status: sha256Hex(statusSecret), trigger: sha256Hex(triggerSecret) });
  });

  it('with --env it prints shell lines instead, and a shell that runs them has INTEGRATION, WEBHOOK_URL and TRIGGER_URL', async () => {
    const done = await cli('connect-integration', ['--org', org.orgId, '--name', 'Jira', '--recipe', 'jira', '--app-url', appUrl, '--env']);
    expect(done.code, done.stderr).toBe(0);
    const origin = appUrl.replace(/[.]/g, '\\.');
    expect(done.stdout.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/^export INTEGRATION='[0-9a-z]{26}'$/),
      expect.stringMatching(new RegExp(`^export WEBHOOK_URL='${origin}/inbound/ticket-status/${URL_SECRET}'$`)),
      expect.stringMatching(new RegExp(`^export TRIGGER_URL='${origin}/inbound/ticket-trigger/${URL_SECRET}'$`)),
    ]);
    const [id, webhook, trigger] = execFileSync('bash', ['-c', 'eval "$1"; printf "%s\\n" "$INTEGRATION" "$WEBHOOK_URL" "$TRIGGER_URL"', 'bash', done.stdout]).toString().trimEnd().split('\n');
    recordShownSecrets([webhook!.split('/').pop()!, trigger!.split('/').pop()!]);
    expect((await integrationItem(id!))!.secretHashes).toEqual({ status: sha256Hex(webhook!.split('/').pop()!), trigger: sha256Hex(trigger!.split('/').pop()!) });
  });

  it('the printed webhook URL works against the service: 202 and the ticket status recorded', async () => {
    const ticket = `${Date.now()}${++seq}`;
    const request = await createRequest(ticket);
    const answer = await postTo(webhookUrl, { ticket: { id: ticket, status: 'Pending' } });
    expect(answer.status, answer.text).toBe(202);
    expect(answer.body).toMatchObject({ accepted: true, url: 'webhook', ticket_id: ticket, status: 'pending', problem: null });
    expect(await ticketOf(request.id)).toMatchObject({ ref: ticket, status: 'pending' });
  });

  it('rotate-integration-secret prints two new URLs; the old ones answer 404, the new one 202', async () => {
    const done = await integrationCli('rotate-integration-secret', ['--org', org.orgId, '--integration', integrationId]);
    expect(done.code, done.stderr).toBe(0);
    const { lines, json } = linesAndJson(done);
    expect(lines).toHaveLength(2);
    const newWebhook = lines[0].slice('Webhook URL: '.length);
    const newTrigger = lines[1].slice('Trigger URL: '.length);
    expect(lines[0]).toMatch(new RegExp(`^Webhook URL: .*/inbound/ticket-status/${URL_SECRET}$`));
    expect(lines[1]).toMatch(new RegExp(`^Trigger URL: .*/inbound/ticket-trigger/${URL_SECRET}$`));
    expect(newWebhook).not.toBe(webhookUrl);
    expect(newTrigger).not.toBe(triggerUrl);
    expect(json).toMatchObject({ integration: { id: integrationId }, webhook_url: newWebhook, trigger_url: newTrigger });

    const ticket = `${Date.now()}${++seq}`;
    expect((await postTo(webhookUrl, { ticket: { id: ticket, status: 'open' } })).status).toBe(404);
    expect((await postTo(triggerUrl, { ticket_id: ticket, subject: { name: 'Jane Doe' } })).status).toBe(404);
    expect(await getItem(keys.inboundSecret(sha256Hex(webhookUrl.split('/').pop()!)))).toBeUndefined();
    expect(await getItem(keys.inboundSecret(sha256Hex(triggerUrl.split('/').pop()!)))).toBeUndefined();
    const fresh = await postTo(newWebhook, { ticket: { id: ticket, status: 'open' } });
    expect(fresh.status, fresh.text).toBe(202);
    webhookUrl = newWebhook;
  });

  it('set-integration --enabled false: a post answers 409 conflict', async () => {
    const off = await integrationCli('set-integration', ['--org', org.orgId, '--integration', integrationId, '--enabled', 'false']);
    expect(off.code, off.stderr).toBe(0);
    expect(JSON.parse(off.stdout)).toMatchObject({ id: integrationId, enabled: false });
    const refused = await postTo(webhookUrl, { ticket: { id: 'T-1', status: 'closed' } });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ message: expect.any(String), code: 'conflict' });
    // Disabled is refused before anything is read: no activity entry, no change.
    expect((await integrationItem(integrationId))!.enabled).toBe(false);
  });
});

describe('set-integration', () => {
  it('mapping, status map, field, rate limit and default preset show in the printed view and take effect', async () => {
    await service.admin.savePreset(org.orgId, 'vpn-reset', 'VPN reset', {});
    const { integration, webhook_url } = await connected('Generic desk');
    const done = await integrationCli('set-integration', [
      '--org', org.orgId,
      '--integration', integration.id,
      '--status-map', 'Solved=closed,4=resolved',
      '--ticket-id-path', 'a.b',
      '--status-path', 'c',
      '--field', 'subject.name=x.y',
      '--rate-limit', '50',
      '--default-preset', 'vpn-reset',
    ]);
    expect(done.code, done.stderr).toBe(0);
    const view = JSON.parse(done.stdout);
    expect(view).toMatchObject({
      id: integration.id,
      object: 'integration',
      mapping: { ticket_id: ['a.b'], status: ['c'], fields: { 'subject.name': ['x.y'] } },
      status_map: { solved: 'closed', '4': 'resolved' }, // words are stored as they are compared: lower case
      rate_limit_per_minute: 50,
      default_preset: 'vpn-reset',
      auth: { mode: 'none', header_name: null, secret_set: false },
    });
    // The mapping is what the service reads now.
    const ticket = `M-${Date.now()}-${++seq}`;
    const request = await createRequest(ticket);
    const answer = await postTo(webhook_url, { a: { b: ticket }, c: 4 });
    expect(answer.status, answer.text).toBe(202);
    expect(answer.body).toMatchObject({ ticket_id: ticket, status: 'resolved', status_received: '4', problem: null });
    expect(await ticketOf(request.id)).toMatchObject({ status: 'resolved' });
  });

  it("--status-map words are one word in any capitals: a later mapping replaces the recipe's or an earlier one", async () => {
    // The map's words are compared in any capitals, so `Solved=closed` maps the Zendesk recipe's
    // word "solved" (resolved) anew, and a later `solved=pending` maps it again; the latest mapping
    // must apply. Both entries are kept side by side today, and which one applies depends on the
    // order of the map's keys as stored, so one of the two steps below gets the other's status.
    const { integration, webhook_url } = await connected('Zendesk override', 'zendesk');
    const ticket = `${Date.now()}${++seq}`;
    const request = await createRequest(ticket);

    const first = await integrationCli('set-integration', ['--org', org.orgId, '--integration', integration.id, '--status-map', 'Solved=closed']);
    expect(first.code, first.stderr).toBe(0);
    const afterFirst = await postTo(webhook_url, { ticket: { id: ticket, status: 'Solved' } });
    expect(afterFirst.status, afterFirst.text).toBe(202);

    const second = await integrationCli('set-integration', ['--org', org.orgId, '--integration', integration.id, '--status-map', 'solved=pending']);
    expect(second.code, second.stderr).toBe(0);
    const afterSecond = await postTo(webhook_url, { ticket: { id: ticket, status: 'SOLVED' } });
    expect(afterSecond.status, afterSecond.text).toBe(202);

    expect({ afterFirst: afterFirst.body.status, afterSecond: afterSecond.body.status }).toEqual({ afterFirst: 'closed', afterSecond: 'pending' });
    expect(await ticketOf(request.id)).toMatchObject({ status: 'pending' });
    // The printed view holds one answer for the one word.
    const mappingsOfSolved = (stdout: string) =>
      Object.entries((JSON.parse(stdout) as { status_map: Record<string, string> }).status_map)
        .filter(([word]) => word.toLowerCase() === 'solved')
        .map(([, status]) => status);
    expect(mappingsOfSolved(first.stdout)).toEqual(['closed']);
    expect(mappingsOfSolved(second.stdout)).toEqual(['pending']);
  });

  it('a bad --status-map or --auth hmac without --signing-secret exits 1 with a message and changes nothing', async () => {
    const { integration } = await connected('Refusing desk');
    const before = await integrationItem(integration.id);
    const [badMap, hmac] = await Promise.all([
      integrationCli('set-integration', ['--org', org.orgId, '--integration', integration.id, '--status-map', 'Solved=done']),
      integrationCli('set-integration', ['--org', org.orgId, '--integration', integration.id, '--auth', 'hmac']),
    ]);
    expect(badMap).toMatchObject({ code: 1, stdout: '' });
    expect(badMap.stderr).toMatch(/Bad status map pair "Solved=done"/);
    expect(hmac).toMatchObject({ code: 1, stdout: '' });
    expect(hmac.stderr).toMatch(/signing_secret/);
    expect(hmac.stderr).toMatch(/Required for the hmac check/);
    expect(await integrationItem(integration.id)).toEqual(before);
  });

  it('a --status-map word named like a built-in property of every object exits 1 naming status_map, and changes nothing', async () => {
    const { integration } = await connected('Built-in words desk');
    const before = await integrationItem(integration.id);
    const runs = await Promise.all(
      ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'].map((word) =>
        integrationCli('set-integration', ['--org', org.orgId, '--integration', integration.id, '--status-map', `done=closed,${word}=closed`]),
      ),
    );
    for (const run of runs) {
      expect(run, run.stderr).toMatchObject({ code: 1, stdout: '' });
      expect(run.stderr).toMatch(/^The request is invalid\.\n  status_map: /m);
    }
    expect(await integrationItem(integration.id)).toEqual(before);
  });

  it("--remove-status-word (repeatable, or words by commas) removes words, a recipe's too; the audit names them; a word not held exits 1", async () => {
    const { integration, webhook_url } = await connected('Halo words', 'halopsa');
    const done = await integrationCli('set-integration', ['--org', org.orgId, '--integration', integration.id, '--remove-status-word', '9', '--remove-status-word', ' 8 , 4']);
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(done.stdout).status_map).toEqual({ '1': 'open', '2': 'open' });
    expect((await integrationItem(integration.id))!.statusMap).toEqual({ '1': 'open', '2': 'open' });
    const audited = (await auditEntries(service, org.orgId)).filter((e) => e.type === 'integration.updated' && e.data.details.integration_id === integration.id);
    expect(audited.map((e) => [e.actor, e.data.details.status_words_removed])).toEqual([[OPERATOR_ACTOR, ['9', '8', '4']]]);
    // HaloPSA's closed status is no longer understood: the post is answered with the problem, nothing closed.
    const answer = await postTo(webhook_url, { ticket: { id: 4321, status_id: 9 } });
    expect(answer.body).toMatchObject({ status: 'unknown', status_received: '9' });

    const before = await integrationItem(integration.id);
    const refused = await integrationCli('set-integration', ['--org', org.orgId, '--integration', integration.id, '--remove-status-word', '9']);
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toBe('The request is invalid.\n  remove_status_words: "9" is not one of this integration\'s status words.\n');
    const builtIn = await integrationCli('set-integration', ['--org', org.orgId, '--integration', integration.id, '--remove-status-word', 'constructor']);
    expect(builtIn).toMatchObject({ code: 1, stdout: '' });
    expect(builtIn.stderr).toMatch(/^  remove_status_words: "constructor" names a built-in property/m);
    expect(await integrationItem(integration.id)).toEqual(before);
  });

  it('--auth header stores the value sealed (never in plain text); the service then requires the header', async () => {
    const { integration, webhook_url } = await connected('Header desk');
    const value = `hdr-${sha256Hex(String(Math.random())).slice(0, 24)}`;
    const done = await integrationCli('set-integration', ['--org', org.orgId, '--integration', integration.id, '--auth', 'header', '--header-name', 'X-Token', '--header-value', value]);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).not.toContain(value);
    expect(JSON.parse(done.stdout)).toMatchObject({ id: integration.id, auth: { mode: 'header', header_name: 'X-Token', secret_set: true } });

    const items = await scanTable(service);
    expect(items.filter((item) => JSON.stringify(item).includes(value)), 'items holding the header value').toEqual([]);
    const stored = (await integrationItem(integration.id))!.auth;
    expect(stored).toMatchObject({ mode: 'header', headerName: 'X-Token', secret: { v: 1, alg: 'A256GCM' } });
    expect(typeof stored.secret.keyId).toBe('string');

    // Sealed with the key file the service shares: it can open it and check posts.
    const ticket = `H-${Date.now()}-${++seq}`;
    expect((await postTo(webhook_url, { ticket_id: ticket, status: 'open' })).status).toBe(401);
    expect((await postTo(webhook_url, { ticket_id: ticket, status: 'open' }, { 'X-Token': `${value}x` })).status).toBe(401);
    expect((await postTo(webhook_url, { ticket_id: ticket, status: 'open' }, { 'X-Token': value })).status).toBe(202);
  });
});

describe('set-integration --adapter and check-integration', () => {
  it('connect a helpdesk (secret sealed, never printed), read a ticket through it, disconnect', async () => {
    const clientSecret = 'zd-cli-secret-4b7e2a9c1d3f5e60';
    const zendesk = await startFakeZendesk({ clientId: 'handoff', clientSecret, now: () => Date.now() });
    try {
      zendesk.setTicket(35436, 'solved');
      const { integration } = await connected('Zendesk API', 'zendesk');
      const set = await cli('set-integration', ['--org', org.orgId, '--integration', integration.id, '--adapter', 'zendesk', '--helpdesk-url', zendesk.url, '--client-id', 'handoff', '--client-secret', clientSecret]);
      expect(set.code, set.stderr).toBe(0);
      expect(JSON.parse(set.stdout).helpdesk).toMatchObject({ adapter: 'zendesk', url: zendesk.url, credentials_set: true });
      expect(set.stdout).not.toContain(clientSecret);
      const item = await integrationItem(integration.id);
      expect(JSON.stringify(item)).not.toContain(clientSecret);
      expect(item!.helpdesk.credentials).toMatchObject({ v: 1, alg: 'A256GCM' });

      const check = await cli('check-integration', ['--org', org.orgId, '--integration', integration.id, '--ticket', '35436']);
      expect(check.code, check.stderr).toBe(0);
      const { lines, json } = linesAndJson(check);
      expect(lines).toEqual(['Ticket 35436: zendesk says "solved", which is resolved (counts as closed: a close would destroy).']);
      expect(json).toMatchObject({ ok: true, vendor_status: 'solved', status: 'resolved', counts_as_closed: true });
      expect(check.stdout + check.stderr).not.toContain(clientSecret);

      zendesk.answerNext('show', { status: 503, body: {} });
      const failing = await cli('check-integration', ['--org', org.orgId, '--integration', integration.id, '--ticket', '35436']);
      expect(failing.code, failing.stderr).toBe(0);
      expect(linesAndJson(failing).lines[0]).toMatch(/^Ticket 35436: the read failed \(unavailable\)/);

      const refused = await cli('set-integration', ['--org', org.orgId, '--integration', integration.id, '--adapter', 'jira', '--helpdesk-url', 'http://acme.atlassian.net', '--email', 'agent@acme.example']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/helpdesk_url/);
      expect(refused.stderr).toMatch(/api_token/);

      const off = await cli('set-integration', ['--org', org.orgId, '--integration', integration.id, '--adapter', 'none']);
      expect(off.code, off.stderr).toBe(0);
      expect(JSON.parse(off.stdout).helpdesk).toBeNull();
      expect((await integrationItem(integration.id))!.helpdesk).toBeNull();
    } finally {
      await zendesk.close();
    }
  });
});

describe('set-integration --adapter servicenow', () => {
  it('takes the integration user and password (sealed, never printed), reads an incident by its number, and refuses a half-given login', async () => {
    // A passphrase, spaces and all, as ServiceNow allows one.
    const password = ' sn cli password 7c1e9a2b4d6f ';
    const servicenow = await startFakeServiceNow({ username: 'handoff.integration', password });
    try {
      servicenow.setIncident('INC0010042', '6');
      const { integration } = await connected('ServiceNow API', 'servicenow');
      const set = await cli('set-integration', [
        ...['--org', org.orgId, '--integration', integration.id, '--adapter', 'servicenow', '--helpdesk-url', servicenow.url],
        ...['--username', 'handoff.integration', '--password', password],
      ]);
      expect(set.code, set.stderr).toBe(0);
      expect(JSON.parse(set.stdout).helpdesk).toMatchObject({ adapter: 'servicenow', url: servicenow.url, credentials_set: true });
      expect(set.stdout).not.toContain(password);
      expect(JSON.stringify(await integrationItem(integration.id))).not.toContain(password);

      const check = await cli('check-integration', ['--org', org.orgId, '--integration', integration.id, '--ticket', 'INC0010042']);
      expect(check.code, check.stderr).toBe(0);
      expect(linesAndJson(check).json).toMatchObject({ ok: true, vendor_status: 'Resolved (state 6)', status: 'resolved', counts_as_closed: true });
      expect(check.stdout + check.stderr).not.toContain(password);

      const halfGiven = await cli('set-integration', ['--org', org.orgId, '--integration', integration.id, '--adapter', 'servicenow', '--helpdesk-url', servicenow.url, '--username', 'handoff.integration']);
      expect(halfGiven.code).toBe(1);
      expect(halfGiven.stderr).toMatch(/password/);
      // Basic authentication would end the user name at the colon and send the rest as the password.
      const colon = await cli('set-integration', ['--org', org.orgId, '--integration', integration.id, '--adapter', 'servicenow', '--helpdesk-url', servicenow.url, '--username', 'svc:handoff', '--password', password]);
      expect(colon.code).toBe(1);
      expect(colon.stderr).toMatch(/username/);
      expect(colon.stderr).toContain('first colon');
    } finally {
      await servicenow.close();
    }
  });
});

describe('integration-activity', () => {
  it("lists an unusable post's reason", async () => {
    const { integration, webhook_url } = await connected('Activity desk');
    const missing = await postTo(webhook_url, { status: 'closed' });
    expect(missing.status).toBe(202);
    expect(missing.body.problem).toBe('No ticket id at ticket_id.');
    const unmapped = await postTo(webhook_url, { ticket_id: 'A-1', status: 'Waiting on customer' });
    expect(unmapped.status).toBe(202);

    const done = await integrationCli('integration-activity', ['--org', org.orgId, '--integration', integration.id]);
    expect(done.code, done.stderr).toBe(0);
    const listed = JSON.parse(done.stdout) as Array<Record<string, unknown>>;
    expect(listed).toHaveLength(2);
    expect(listed).toEqual(
      expect.arrayContaining([
        { at: expect.any(String), url: 'webhook', reason: 'No ticket id at ticket_id.', ticket_id: null, status: 'closed' },
        {
          at: expect.any(String),
          url: 'webhook',
          reason: `Status "waiting on customer" is not understood; map it in the integration's status map.`,
          ticket_id: 'A-1',
          status: 'waiting on customer',
        },
      ]),
    );
    expect(listed[0].at! >= listed[1].at!).toBe(true);
  });
});

describe('identity keys', () => {
  it('set-identity-key prints the key as the application shows it: its fingerprint, state and maker', async () => {
    const file = join(dataDir, 'cli-member-key.pem');
    const done = await cli('set-identity-key', ['--org', org.orgId, '--member', org.member.email, '--generate-key', file, '--app-url', service.appUrl]);
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(done.stdout)).toEqual({ fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/), state: 'replaced_pending_approval', made_by: 'operator' });
  });
});

describe('presets and policy', () => {
  it('save-preset --requester-from-ticket true --fallback-requester EMAIL is stored on the preset item', async () => {
    const done = await cli('save-preset', [
      '--org', org.orgId,
      '--slug', 'ticket-preset',
      '--name', 'Ticket preset',
      '--requester-from-ticket', 'true',
      '--fallback-requester', org.member.email.toUpperCase(),
    ]);
    expect(done.code, done.stderr).toBe(0);
    // Printed as the application shows a preset (GET /app/api/presets), snake_case.
    expect(JSON.parse(done.stdout)).toEqual({
      slug: 'ticket-preset',
      name: 'Ticket preset',
      defaults: {},
      requester_from_ticket: true,
      fallback_requester: org.member.email.toLowerCase(),
      created_at: expect.any(String),
    });
    expect(await getItem(keys.preset(org.orgId, 'ticket-preset'))).toMatchObject({
      kind: 'preset',
      slug: 'ticket-preset',
      requesterFromTicket: true,
      fallbackRequester: org.member.email.toLowerCase(),
    });
  });

  it('set-default-preset for the organisation and for a client', async () => {
    await service.admin.savePreset(org.orgId, 'org-default', 'Org default', {});
    const client = await service.admin.createClient(org.orgId, 'Acme');
    const [forOrg, forClient] = await Promise.all([
      cli('set-default-preset', ['--org', org.orgId, '--preset', 'org-default']),
      cli('set-default-preset', ['--org', org.orgId, '--client', client.id, '--preset', 'org-default']),
    ]);
    expect(forOrg.code, forOrg.stderr).toBe(0);
    expect(JSON.parse(forOrg.stdout)).toEqual({ client_id: null, default_preset: 'org-default' });
    expect(forClient.code, forClient.stderr).toBe(0);
    expect(JSON.parse(forClient.stdout)).toEqual({ client_id: client.id, default_preset: 'org-default' });
    expect((await getItem(keys.organisation(org.orgId)))!.defaultPreset).toBe('org-default');
    expect((await getItem(keys.client(org.orgId, client.id)))!.defaultPreset).toBe('org-default');
  });

  it("set-policy's ticket flags are stored in the organisation's policy", async () => {
    const done = await cli('set-policy', [
      '--org', org.orgId,
      '--trust-unverified-webhooks', 'true',
      '--grace-minutes', '30',
      '--close-statuses', 'closed',
      '--revoke-unsubmitted-on-close', 'true',
    ]);
    expect(done.code, done.stderr).toBe(0);
    const expected = { trustUnverifiedWebhooks: true, gracePeriodMinutes: 30, closeStatuses: ['closed'], revokeUnsubmittedOnClose: true };
    // Printed as the application shows a policy (snake_case), stored as the record keeps it.
    expect(JSON.parse(done.stdout).ticket).toEqual({ trust_unverified_webhooks: true, grace_period_minutes: 30, close_statuses: ['closed'], revoke_unsubmitted_on_close: true });
    expect((await getItem(keys.organisation(org.orgId)))!.policy.ticket).toEqual(expected);
    expect((await service.admin.directory.getOrganisation(org.orgId))!.policy.ticket).toEqual(expected);
  });
});

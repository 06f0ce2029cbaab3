/**
 * The operator CLI's webhook commands as a process (the run's bundle of bin/admin.ts) on the
 * test's table through --endpoint/--table, with a DATA_DIR holding the sealing key the service
 * seals with: the rotated secret printed once as JSON with exit code 0 and stored sealed,
 * refusals with exit code 1 and a message, and a ping that, with --table, may not go to loopback.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../lambdas/core/ids.ts';
import type { SealedSecret } from '../../lambdas/core/sealing.ts';
import { webhookSecretContext } from '../../lambdas/core/webhooks.ts';
import { KeyFileSealer } from '../../lambdas/local/key-file-sealer.ts';
import { SEALING_KEY_FILE } from '../../lambdas/local/local-service.ts';
import { runAdminCli } from '../support/admin-cli.ts';
import { auditEntries, DATE_TIME, ULID } from '../support/shapes.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';
import { putSubscription } from '../support/webhooks.ts';

let dataDir: string;
let service: TestService;
let org: TestOrganisation;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'handoff-cli-data-'));
  service = await startTestService({ sealer: await KeyFileSealer.fromFile(join(dataDir, SEALING_KEY_FILE)) });
  org = await service.createOrganisation();
});
afterAll(async () => {
  await service?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const cli = (command: string, args: string[]) => runAdminCli(service.deps.tableName, command, args, { DATA_DIR: dataDir });

/** The stored secrets, opened with the service's sealer; each is sealed, none is in the item in plain text. */
const storedSecrets = async (webhookId: string) => {
  const item = (await service.deps.db.send(new GetCommand({ TableName: service.deps.tableName, Key: { pk: `ORG#${org.orgId}`, sk: `WEBHOOK#${webhookId}` }, ConsistentRead: true }))).Item!;
  const secrets = item.secrets as Array<{ sealed: SealedSecret; expiresAt: string | null }>;
  const opened = await Promise.all(secrets.map(async (s) => ({ secret: await service.deps.sealer.open(s.sealed, webhookSecretContext(org.orgId, webhookId)), expiresAt: s.expiresAt })));
  for (const { secret } of opened) expect(JSON.stringify(item)).not.toContain(secret);
  return opened;
};

describe('npm run admin -- <webhook command>', () => {
  it('rotate-webhook-secret prints the new secret once, as JSON, and stores it first', async () => {
    const subscription = await putSubscription(service, org.orgId);
    const oldSecret = subscription.secrets[0]!.secret;
    const started = Date.now();
    const done = await cli('rotate-webhook-secret', ['--org', org.orgId, '--webhook', subscription.id, '--overlap-hours', '2']);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toBe('');
    const output = JSON.parse(done.stdout);
    expect(output).toMatchObject({ note: 'Shown once: store it now.', id: subscription.id, object: 'webhook', url: subscription.url, is_active: true });
    expect(output.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(done.stdout.split(output.secret)).toHaveLength(2); // once
    expect(done.stdout).not.toContain(oldSecret);
    expect(output.old_secret_expires_at).toMatch(DATE_TIME);
    const expires = Date.parse(output.old_secret_expires_at) - 2 * 3_600_000;
    expect(expires).toBeGreaterThanOrEqual(started);
    expect(expires).toBeLessThanOrEqual(Date.now());

    expect(await storedSecrets(subscription.id)).toEqual([
      { secret: output.secret, expiresAt: null },
      { secret: oldSecret, expiresAt: output.old_secret_expires_at },
    ]);
    const audited = (await auditEntries(service, org.orgId)).filter((e) => e.type === 'webhook.secret_rotated');
    expect(audited.map((e) => e.data.details)).toEqual([{ webhook_id: subscription.id, old_secret_expires_at: output.old_secret_expires_at }]);
  });

  it('refuses with exit code 1 and a message: an unknown webhook, a bad --overlap-hours, a missing flag', async () => {
    const subscription = await putSubscription(service, org.orgId);
    const unknown = await cli('rotate-webhook-secret', ['--org', org.orgId, '--webhook', newId()]);
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toMatch(/has no webhook/);
    const overlap = await cli('rotate-webhook-secret', ['--org', org.orgId, '--webhook', subscription.id, '--overlap-hours', '1.5']);
    expect(overlap).toMatchObject({ code: 1, stdout: '' });
    expect(overlap.stderr).toMatch(/--overlap-hours must be a whole number of hours from 0 to 720/);
    const missing = await cli('redeliver-event', ['--org', org.orgId, '--webhook', subscription.id]);
    expect(missing).toMatchObject({ code: 1, stdout: '' });
    expect(missing.stderr).toMatch(/--event is required/);
    const notEvent = await cli('redeliver-event', ['--org', org.orgId, '--webhook', subscription.id, '--event', 'evt_1']);
    expect(notEvent).toMatchObject({ code: 1, stdout: '' });
    expect(notEvent.stderr).toMatch(/organisation\.created audit entry, not an event/);
    expect(await storedSecrets(subscription.id)).toEqual(subscription.secrets);
  });

  it('webhook-ping with --table refuses a loopback receiver (a deployed table never posts to loopback): pending, retried by the sweep', async () => {
    const subscription = await putSubscription(service, org.orgId, { url: 'http://127.0.0.1:9/hook' });
    const done = await cli('webhook-ping', ['--org', org.orgId, '--webhook', subscription.id]);
    expect(done.code, done.stderr).toBe(0);
    const output = JSON.parse(done.stdout);
    expect(output).toMatchObject({ event_type: 'ping', webhook_id: subscription.id, outcome: 'retry', receiver_status: null, error: 'WebhookTargetRefused' });
    expect(output.event_id).toMatch(/^evt_[0-9]+$/);
    expect(output.delivery_id).toMatch(ULID);
    expect(output.message_id).toMatch(ULID);
    expect(output.next_attempt_at).toMatch(DATE_TIME);
    expect(output.note).toMatch(/delivery sweep retries it/);
    const events = await service.call('GET', '/events?types=ping', { key: org.key });
    expect(events.body.data.map((e: { id: string }) => e.id)).toContain(output.event_id);
  });
});

/**
 * `npm run admin -- seal-stored-secrets` against DynamoDB Local, on items written in the format
 * stored before webhook secrets were sealed and codes keyed: plain-text signing secrets are sealed
 * in place (and still sign), unkeyed code hashes of requests that can still be verified are
 * recovered and re-hashed (the codes still pass), those that cannot are cleared; a second run
 * changes nothing; a request changed meanwhile is read and decided again, never overwritten.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeHash, isKeyedCodeHash } from '../../lambdas/core/codes.ts';
import { newId } from '../../lambdas/core/ids.ts';
import type { SealedSecret } from '../../lambdas/core/sealing.ts';
import { newWebhookSecret } from '../../lambdas/core/webhook-signature.ts';
import { webhookSecretContext } from '../../lambdas/core/webhooks.ts';
import { KeyFileCodeKey } from '../../lambdas/local/key-file-code-key.ts';
import { KeyFileSealer } from '../../lambdas/local/key-file-sealer.ts';
import { CODE_HASH_KEY_FILE, SEALING_KEY_FILE } from '../../lambdas/local/local-service.ts';
import { StoredSecrets } from '../../lambdas/store/stored-secrets.ts';
import { deliverOne } from '../../lambdas/workers/deliver.ts';
import { sealStoredSecrets } from '../../lambdas/workers/seal-stored-secrets.ts';
import { runAdminCli } from '../support/admin-cli.ts';
import { requestItem } from '../support/shapes.ts';
import { recordShownSecrets } from '../support/shown-secrets.ts';
import { scanTable, startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';
import { deliveryStoreOf, fanOutEvent, movableClock, quietLogger, recordingQueue, scriptedHttp } from '../support/webhooks.ts';

const clock = movableClock();
let dataDir: string;
let service: TestService;
let org: TestOrganisation;
let codeKey: KeyFileCodeKey;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'handoff-migrate-'));
  codeKey = await KeyFileCodeKey.fromFile(join(dataDir, CODE_HASH_KEY_FILE));
  service = await startTestService({ clock, sealer: await KeyFileSealer.fromFile(join(dataDir, SEALING_KEY_FILE)), codeKey });
  org = await service.createOrganisation();
});
afterAll(async () => {
  await service?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const HOUR = 3_600_000;
const legacyChallenge = (requestId: string, code: string) => createHash('sha256').update(`${requestId}:${code}`).digest('hex');
const legacyEmail = (requestId: string, code: string) => createHash('sha256').update(`${requestId}:email:${code}`).digest('hex');

/** A request made through the API, then given its code hashes in the old, unkeyed form. */
const oldFormatRequest = async (body: Record<string, unknown>, old: { challenge?: boolean; emailCode?: string; emailExpiresInMs?: number }) => {
  const created = await service.call('POST', '/requests', {
    key: org.key,
    body: { subject_name: 'Jane Doe', justification: 'The firewall admin password', recipients: [org.owner.email], ...body },
  });
  expect(created.status, created.text).toBe(201);
  const id = created.body.request.id as string;
  const code = created.body.challenge_code as string | null;
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  if (old.challenge) {
    sets.push('challengeCodeHash = :challenge');
    values[':challenge'] = legacyChallenge(id, code!);
  }
  if (old.emailCode) {
    sets.push('#verification = :verification');
    names['#verification'] = 'verification';
    values[':verification'] = {
      failedAttempts: 0,
      challengePassed: false,
      emailPassed: false,
      emailCodeHash: legacyEmail(id, old.emailCode),
      emailCodeExpiresAt: new Date(clock.now().getTime() + (old.emailExpiresInMs ?? HOUR / 6)).toISOString(),
      emailCodesSent: 1,
    };
  }
  await service.deps.db.send(
    new UpdateCommand({
      TableName: service.deps.tableName,
      Key: { pk: `REQ#${id}`, sk: 'REQ' },
      UpdateExpression: `SET ${sets.join(', ')}`,
      ExpressionAttributeValues: values,
      ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
    }),
  );
  const link = new URL(created.body.link as string);
  return { id, code, token: link.pathname.split('/').pop()! };
};

const verify = (token: string, body: Record<string, string>) => service.call('POST', '/subject/verify', { headers: { 'X-Link-Token': token }, body });

/** A subscription as stored before sealing: its secrets in plain text. */
const oldFormatSubscription = async (secrets: Array<{ secret: string; expiresAt: string | null }>) => {
  const id = newId();
  // The end-of-run scan must find these if the migration left them: they were never sealed through the service.
  recordShownSecrets(secrets.map((s) => s.secret));
  const subscription = {
    id,
    orgId: org.orgId,
    url: 'https://hooks.example.com/handoff',
    description: null,
    events: ['request.created'],
    isActive: true,
    clientId: null,
    createdVia: 'api',
    failingSince: null,
    lastDeliveredAt: null,
    createdAt: clock.now().toISOString(),
    secrets,
  };
  await service.deps.db.send(new PutCommand({ TableName: service.deps.tableName, Item: { pk: `ORG#${org.orgId}`, sk: `WEBHOOK#${id}`, kind: 'webhook', ...subscription } }));
  return subscription;
};

const webhookItem = async (id: string) => (await scanTable(service)).find((item) => item.sk === `WEBHOOK#${id}`)!;

describe('seal-stored-secrets', () => {
  it('seals plain webhook secrets and re-hashes or clears unkeyed codes, in place, once', async () => {
    clock.set(Date.now());
    const current = newWebhookSecret();
    const old = newWebhookSecret();
    const hook = await oldFormatSubscription([
      { secret: current, expiresAt: null },
      { secret: old, expiresAt: new Date(clock.now().getTime() + 2 * HOUR).toISOString() },
    ]);
    const both = await oldFormatRequest({ verification_mode: 'both', subject_email: 'jane@example.com' }, { challenge: true, emailCode: '314159' });
    const verifiedBefore = await oldFormatRequest({ verification_mode: 'challenge' }, { challenge: true });
    const revoked = await oldFormatRequest({ verification_mode: 'challenge' }, { challenge: true });
    expect((await service.call('POST', `/requests/${revoked.id}/revoke`, { key: org.key, body: {} })).status).toBe(200);
    const staleEmail = await oldFormatRequest({ verification_mode: 'email_otp', subject_email: 'sam@example.com' }, { emailCode: '271828', emailExpiresInMs: -60_000 });

    // Between a deploy and the migration, an old hash still checks: the subject loses no attempt to the format change.
    const early = await verify(verifiedBefore.token, { challenge_code: verifiedBefore.code! });
    expect(early.status, early.text).toBe(200);
    expect(early.body.verification.challenge_passed).toBe(true);

    const before = new Map((await scanTable(service)).filter((item) => item.kind === 'request').map((item) => [item.id as string, item]));
    const run = await runAdminCli(service.deps.tableName, 'seal-stored-secrets', [], { DATA_DIR: dataDir });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      webhooks_sealed: 1,
      webhook_secrets_sealed: 2,
      requests_rehashed: 4,
      code_hashes_rehashed: 3,
      code_hashes_cleared: 2,
      code_hashes_unrecoverable: 0,
      items_skipped: 0,
    });

    // Each rewritten request moved one version on (so a change decided on the old item is decided again); updatedAt is unchanged.
    for (const id of [both.id, revoked.id, staleEmail.id]) {
      const after = await requestItem(service, id);
      expect(after!.version, id).toBe((before.get(id)!.version as number) + 1);
      expect(after!.updatedAt, id).toBe(before.get(id)!.updatedAt);
    }

    // The webhook: sealed for its subscription, in its order, nothing in plain text; it still signs with both.
    const stored = await webhookItem(hook.id);
    expect(JSON.stringify(stored)).not.toContain(current);
    expect(JSON.stringify(stored)).not.toContain(old);
    const sealed = stored.secrets as Array<{ sealed: SealedSecret; expiresAt: string | null }>;
    const context = webhookSecretContext(org.orgId, hook.id);
    expect(await Promise.all(sealed.map(async (s) => ({ secret: await service.deps.sealer.open(s.sealed, context), expiresAt: s.expiresAt })))).toEqual(hook.secrets);
    const deliveries = deliveryStoreOf(service);
    const { sent, queue } = recordingQueue(clock);
    const { calls, http } = scriptedHttp(clock, [204]);
    const { deliveryId } = await fanOutEvent(service, org, hook, { clock, deliveries, queue });
    expect(await deliverOne({ clock, logger: quietLogger, deliveries, queue, http, sealer: service.deps.sealer }, deliveryId)).toBe('delivered');
    expect(sent).toHaveLength(1);
    for (const secret of [current, old]) expect(() => new Webhook(secret).verify(calls[0]!.body, calls[0]!.headers), secret).not.toThrow();

    // Requests that can still be verified: keyed hashes of the same codes, which still pass.
    const bothItem = await requestItem(service, both.id);
    expect(bothItem!.challengeCodeHash).toBe(await codeHash(codeKey, both.id, 'challenge', both.code!));
    expect(bothItem!.verification.emailCodeHash).toBe(await codeHash(codeKey, both.id, 'email', '314159'));
    expect((await requestItem(service, verifiedBefore.id))!.challengeCodeHash).toBe(await codeHash(codeKey, verifiedBefore.id, 'challenge', verifiedBefore.code!));
    const passed = await verify(both.token, { challenge_code: both.code!, email_code: '314159' });
    expect(passed.status, passed.text).toBe(200);
    expect(passed.body.verification).toMatchObject({ passed: true, challenge_passed: true, email_passed: true });

    // Those that cannot: cleared. The expired email code's request keeps its other fields.
    expect((await requestItem(service, revoked.id))!.challengeCodeHash).toBeNull();
    const stale = await requestItem(service, staleEmail.id);
    expect(stale!.verification).toMatchObject({ emailCodeHash: null, emailCodesSent: 1 });

    // No unkeyed hash is left anywhere.
    for (const item of (await scanTable(service)).filter((i) => i.kind === 'request') as Array<Record<string, any>>) {
      for (const hash of [item.challengeCodeHash, item.verification?.emailCodeHash]) {
        if (hash !== null && hash !== undefined) expect(isKeyedCodeHash(hash), `${item.id}: ${hash}`).toBe(true);
      }
    }

    // Again: nothing to do, nothing changed.
    const snapshot = await scanTable(service);
    const again = await runAdminCli(service.deps.tableName, 'seal-stored-secrets', [], { DATA_DIR: dataDir });
    expect(again.code, again.stderr).toBe(0);
    expect(Object.values(JSON.parse(again.stdout))).toEqual([0, 0, 0, 0, 0, 0, 0]);
    const sortKey = (item: Record<string, unknown>) => `${item.pk}/${item.sk}`;
    expect((await scanTable(service)).sort((a, b) => sortKey(a).localeCompare(sortKey(b)))).toEqual(snapshot.sort((a, b) => sortKey(a).localeCompare(sortKey(b))));
  });

  it('reads a request changed meanwhile and decides again, never writing back over the change', async () => {
    clock.set(Date.now());
    const request = await oldFormatRequest({ verification_mode: 'challenge' }, { challenge: true });
    const store = new StoredSecrets(service.deps.db, service.deps.tableName);
    let raced = false;
    const racing: typeof store = Object.assign(Object.create(store), {
      // The first write finds the subject's change (a failed attempt, a new version) made just before it.
      replaceCodeHashes: async (item: Parameters<typeof store.replaceCodeHashes>[0], hashes: Parameters<typeof store.replaceCodeHashes>[1]) => {
        if (!raced && item.id === request.id) {
          raced = true;
          await service.deps.db.send(
            new UpdateCommand({
              TableName: service.deps.tableName,
              Key: { pk: `REQ#${request.id}`, sk: 'REQ' },
              UpdateExpression: 'SET version = version + :one, revealCount = :marker',
              ExpressionAttributeValues: { ':one': 1, ':marker': 7 },
            }),
          );
        }
        return store.replaceCodeHashes(item, hashes);
      },
    });
    const report = await sealStoredSecrets({ store: racing, sealer: service.deps.sealer, codeKey, clock });
    expect(raced).toBe(true);
    expect(report).toMatchObject({ requests_rehashed: 1, code_hashes_rehashed: 1, items_skipped: 0 });
    const after = await requestItem(service, request.id);
    expect(after!.revealCount).toBe(7);
    expect(after!.challengeCodeHash).toBe(await codeHash(codeKey, request.id, 'challenge', request.code!));
  });
});

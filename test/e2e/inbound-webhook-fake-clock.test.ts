/**
 * The inbound generic ticket webhook on a clock set to January 2025, when the Zendesk sample of
 * test/fixtures/helpdesks was signed: that sample with its own signature (accepted, one changed
 * byte refused, stale six minutes later), the integration's rate limit (429 with Retry-After), and
 * the order of posts refused in one instant. The rest is in inbound-webhook.test.ts.
 */
import { UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../lambdas/core/clock.ts';
import { rateTableNameOf, TTL_ATTRIBUTE } from '../../lambdas/store/table.ts';
import {
  signedBytes,
  MANIFEST,
  FIXTURE_SECRET,
  REASON,
  NOT_UNDERSTOOD,
  ack,
  oneByteChanged,
  harness,
} from '../support/inbound-webhook-harness.ts';
import { expectError, materialItems } from '../support/shapes.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

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

/**
 * GET /app/api/audit (docs/web-api.md): the organisation's audit chain for owners and admins,
 * newest first, with each entry's hash link, filtered by type, request, member and days.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportPublicKey, generateIdentityPair } from '../../web/crypto/identity.ts';
import type { AuditRow } from '../../web/app/pages/audit.ts';
import { MemberBrowser } from '../support/member-browser.ts';
import { expectError } from '../support/shapes.ts';
import { createShareAs } from '../support/shares.ts';
import { keys } from '../../lambdas/store/keys.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;
let owner: MemberBrowser;
let requestIds: string[] = [];

type Row = AuditRow;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Audit Org' });
  owner = await MemberBrowser.signIn(service, org.owner.email);
  for (const subject of ['Ann Audit', 'Bo Audit', 'Cy Audit']) {
    const created = await service.call('POST', '/requests', { key: org.key, body: { subject_name: subject, justification: 'Audit log test request', recipients: [org.owner.email] } });
    requestIds.push(created.body.request.id);
  }
  await service.call('POST', `/requests/${requestIds[0]}/revoke`, { key: org.key });
});
afterAll(() => service?.stop());

const audit = async (query = '') => {
  const answer = await owner.call('GET', `/app/api/audit${query}`);
  expect(answer.status, answer.text).toBe(200);
  return answer.body as { data: Row[]; has_more: boolean; next_before: string | null };
};

describe('GET /app/api/audit', () => {
  it('lists the chain newest first, each entry holding the hash of the one before', async () => {
    const page = await audit();
    const seqs = page.data.map((row) => row.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => b - a));
    expect(page.data[0]).toEqual({
      seq: expect.any(Number), type: 'request.revoked', occurred_at: expect.any(String), actor: { type: 'api', label: expect.any(String), id: expect.any(String) },
      request_id: requestIds[0], share_id: null, member: null, details: expect.any(Object), prev_hash: expect.stringMatching(/^[0-9a-f]{64}$/), hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      hash_matches: true,
    });
    for (let i = 0; i + 1 < page.data.length; i++) expect(page.data[i].prev_hash).toBe(page.data[i + 1].hash);
  });

  it('filters by type, by request and by days, and pages with next_before', async () => {
    expect((await audit('?type=request.created')).data.map((row) => row.request_id).sort()).toEqual([...requestIds].sort());
    expect((await audit(`?request_id=${requestIds[0]}`)).data.map((row) => row.type)).toEqual(['request.revoked', 'request.created']);
    expect((await audit('?from=2000-01-01&to=2000-01-02')).data).toEqual([]);
    const today = new Date().toISOString().slice(0, 10);
    expect((await audit(`?from=${today}&to=${today}`)).data.length).toBeGreaterThanOrEqual(4);
    const first = await audit('?limit=2');
    expect(first.data).toHaveLength(2);
    expect(first.has_more).toBe(true);
    const second = await audit(`?limit=2&before=${first.next_before}`);
    expect(second.data[0].seq).toBe(first.data[1].seq - 1);
  });

  it('takes any calendar day as a bound, the earliest and the last a date can write included', async () => {
    const everything = (await audit('?limit=200')).data.length;
    expect((await audit('?to=9999-12-31&limit=200')).data).toHaveLength(everything);
    expect((await audit('?from=0001-01-01&limit=200')).data).toHaveLength(everything);
    for (const to of ['0001-01-01', '1969-12-30', '1970-01-01']) {
      expect((await audit(`?to=${to}`)).data, to).toEqual([]);
      const reads = await owner.call('GET', `/app/api/audit?view=api_reads&to=${to}`);
      expect(reads.status, `${to}: ${reads.text}`).toBe(200);
      expect(reads.body.data, to).toEqual([]);
    }
    const reads = await owner.call('GET', '/app/api/audit?view=api_reads&to=9999-12-31');
    expect(reads.status, reads.text).toBe(200);
  });

  it('names the member or the share an entry is about; an entry about a request names only the request', async () => {
    const added = await owner.call('POST', '/app/api/members', { body: { name: 'Dee Audit', email: `dee-${org.orgId.slice(-6)}@example.com` } });
    expect(added.status, added.text).toBe(201);
    const deeId = added.body.member.membership_id as string;
    expect((await owner.call('POST', `/app/api/members/${deeId}/disable`)).status).toBe(200);
    const [disabled] = (await audit('?type=member.disabled')).data;
    expect(disabled).toMatchObject({ request_id: null, share_id: null, member: { membership_id: deeId, name: 'Dee Audit', email: `dee-${org.orgId.slice(-6)}@example.com` } });

    const share = await createShareAs(owner);
    const [created] = (await audit('?type=share.created')).data;
    expect(created).toMatchObject({ share_id: share.id, request_id: null, member: null });

    // A member who acts on a request is its actor, not what the entry is about.
    expect((await owner.call('POST', `/app/api/requests/${requestIds[1]}/revoke`)).status).toBe(200);
    const revoked = (await audit(`?request_id=${requestIds[1]}&type=request.revoked`)).data[0];
    expect(revoked).toMatchObject({ request_id: requestIds[1], member: null, actor: { type: 'member', id: org.owner.id } });
  });

  it('shows an entry edited in the table after it was chained: its hash no longer matches its content, though its links hold', async () => {
    const [entry] = (await audit(`?request_id=${requestIds[2]}&type=request.created`)).data;
    await service.deps.db.send(
      new UpdateCommand({
        TableName: service.deps.tableName,
        Key: keys.auditEntry(org.orgId, entry.seq),
        UpdateExpression: 'SET actor.label = :label',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':label': 'Someone else' },
      }),
    );
    const rows = (await audit('?limit=200')).data;
    const edited = rows.find((row) => row.seq === entry.seq)!;
    expect(edited).toMatchObject({ actor: { label: 'Someone else' }, hash: entry.hash, hash_matches: false });
    expect(rows.filter((row) => !row.hash_matches).map((row) => row.seq)).toEqual([entry.seq]);
    expect(rows.find((row) => row.seq === entry.seq + 1)?.prev_hash).toBe(entry.hash);
  });

  it('filters by the acting member', async () => {
    // The plain member replaces their key in the app: an entry with them as its actor.
    const member = await MemberBrowser.signIn(service, org.member.email);
    const publicKey = await exportPublicKey((await generateIdentityPair()).publicKey);
    expect((await member.call('POST', '/app/api/identity-key', { body: { public_key: publicKey } })).status).toBe(200);
    const memberId = (await member.call('GET', '/app/api/me')).body.member.membership_id as string;
    const rows = (await audit(`?member_id=${memberId}`)).data;
    expect(rows.length).toBeGreaterThanOrEqual(1);
    for (const row of rows) expect(row.actor).toMatchObject({ type: 'member', id: memberId });
  });

  it('answers 422 by field for a bad filter, 403 to a plain member, 401 without a session', async () => {
    const bad = await owner.call('GET', '/app/api/audit?from=yesterday&type=Nope&before=x');
    expectError(bad, 422, 'validation_failed');
    expect(Object.keys(bad.body.errors).sort()).toEqual(['before', 'from', 'type']);
    // Days that match YYYY-MM-DD but are not on the calendar are refused by field, never rolled
    // over (30 February is no 1 March) and never a 500 or an unfiltered answer.
    for (const day of ['2020-13-45', '2020-02-30', '2023-02-29', '2021-04-31', '2020-00-10', '2020-01-00']) {
      expectError(await owner.call('GET', `/app/api/audit?from=${day}`), 422, 'validation_failed', ['from']);
      expectError(await owner.call('GET', `/app/api/audit?to=${day}`), 422, 'validation_failed', ['to']);
    }
    expectError(await owner.call('GET', '/app/api/audit?from=2020-13-45&to=2020-02-30'), 422, 'validation_failed', ['from', 'to']);
    expect((await audit('?from=2024-02-29&to=2024-02-29')).data).toEqual([]);
    // A from after to could match nothing: refused on from, in both views.
    expectError(await owner.call('GET', '/app/api/audit?from=2024-03-02&to=2024-03-01'), 422, 'validation_failed', ['from']);
    expectError(await owner.call('GET', '/app/api/audit?view=api_reads&from=2024-03-02&to=2024-03-01'), 422, 'validation_failed', ['from']);
    const member = await MemberBrowser.signIn(service, org.member.email);
    expectError(await member.call('GET', '/app/api/audit'), 403, 'forbidden');
    expectError(await service.call('GET', '/app/api/audit'), 401, 'unauthenticated');
  });
});

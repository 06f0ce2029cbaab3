/**
 * A signed inbound post is read from its signed bytes alone. The signature (hmac, zendesk,
 * hub-sha256, hub-sha1) covers the body, never the URL's query string, so fields in the query of
 * a signed post must not be read: otherwise anyone holding one genuine signed post could resend
 * it with another ticket, status or subject email in the URL; nor may its Content-Type, which is not
 * signed either, change how the signed bytes are read. And wherever the query is read, the body's
 * value wins at the same dotted path.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ack, harness, HMAC_SECRET, HUB256_SECRET, hmacHex, serviceSignature } from '../support/inbound-webhook-harness.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

describe('inbound posts: the query string of a signed post is not read', () => {
  let service: TestService;
  let org: TestOrganisation;
  const answers: string[] = [];
  const h = harness(() => service, answers);
  const JSON_TYPE = { 'Content-Type': 'application/json' };

  beforeAll(async () => {
    service = await startTestService();
    org = await service.createOrganisation({ name: 'Signed Org' });
    await h.trustPolicy(org, true);
  });
  afterAll(() => service?.stop());

  it('hub-sha256 (Jira): a signed post resent with another ticket and status in the query changes only the signed ticket', async () => {
    const integration = await h.connect(org.orgId, 'Jira signed', 'jira');
    await h.configure(integration, { auth: { mode: 'hub-sha256', secret: HUB256_SECRET } });
    const victim = await h.submitted(org, 'VICTIM-7');
    const body = JSON.stringify({ issue: { key: 'BENIGN-1', fields: { status: { statusCategory: { key: 'indeterminate' } } } } });
    const signature = { ...JSON_TYPE, 'X-Hub-Signature': `sha256=${hmacHex('sha256', HUB256_SECRET, body)}` };

    const genuine = await h.post(integration.path, body, signature);
    expect(genuine.status, genuine.text).toBe(202);
    expect(genuine.body).toMatchObject({ ticket_id: 'BENIGN-1', status: 'pending' });

    const query = new URLSearchParams({ 'issue.key': 'VICTIM-7', 'issue.fields.status.statusCategory.key': 'done', ticket_id: 'VICTIM-7', status: 'closed' });
    const resent = await h.post(`${integration.path}?${query}`, body, signature);
    expect(resent.status, resent.text).toBe(202);
    expect(resent.body).toMatchObject({ ticket_id: 'BENIGN-1', status: 'pending' });
    const after = await h.read(org, victim.id);
    expect(after.status).toBe('submitted');
    expect(after.ticket?.status ?? null).toBeNull();
  });

  it('hmac: the query string of a signed post is not read, not even for a field the body lacks', async () => {
    const integration = await h.connect(org.orgId, 'HMAC signed');
    await h.configure(integration, { auth: { mode: 'hmac', secret: HMAC_SECRET } });
    const victim = await h.submitted(org, 'VICTIM-8');
    const body = JSON.stringify({ status: 'closed' });
    const answer = await h.post(`${integration.path}?ticket_id=VICTIM-8`, body, { ...JSON_TYPE, 'X-Service-Signature': serviceSignature(HMAC_SECRET, body, new Date()) });
    expect(answer.status, answer.text).toBe(202);
    expect(answer.body).toMatchObject({ ticket_id: null });
    expect((await h.read(org, victim.id)).status).toBe('submitted');
  });

  it('a signed JSON post resent as a form is still read as the JSON that was signed', async () => {
    const integration = await h.connect(org.orgId, 'HMAC content type');
    await h.configure(integration, { auth: { mode: 'hmac', secret: HMAC_SECRET } });
    const victim = await h.submitted(org, 'VICTIM-10');
    const body = JSON.stringify({ ticket_id: 'BENIGN-2', status: 'open', comment: 'hi&ticket_id=VICTIM-10&status=closed&x' });
    const signature = serviceSignature(HMAC_SECRET, body, new Date());
    const asForm = await h.post(integration.path, body, { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Service-Signature': signature });
    expect(asForm.status, asForm.text).toBe(202);
    expect(asForm.body).toEqual(ack('BENIGN-2', 'open', 'open'));
    expect((await h.read(org, victim.id)).status).toBe('submitted');
  });

  it('unsigned: the query is read, but a dotted query name never overrides the body at that path', async () => {
    const integration = await h.connect(org.orgId, 'Unsigned');
    await h.configure(integration, { ticketIdPaths: ['issue.key'], statusPaths: ['issue.status'] });
    const victim = await h.submitted(org, 'VICTIM-9');
    const answer = await h.post(`${integration.path}?${new URLSearchParams({ 'issue.key': 'VICTIM-9' })}`, JSON.stringify({ issue: { key: 'OTHER-1', status: 'closed' } }), JSON_TYPE);
    expect(answer.status, answer.text).toBe(202);
    expect(answer.body).toEqual(ack('OTHER-1', 'closed', 'closed'));
    expect((await h.read(org, victim.id)).status).toBe('submitted');
    // Where the body has nothing at the path, the query gives it.
    const fromQuery = await h.post(`${integration.path}?${new URLSearchParams({ 'issue.key': 'VICTIM-9' })}`, JSON.stringify({ issue: { status: 'open' } }), JSON_TYPE);
    expect(fromQuery.body).toEqual(ack('VICTIM-9', 'open', 'open'));
  });
});

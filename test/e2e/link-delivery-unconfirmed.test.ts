/**
 * A create whose call stops between storing the request and sending its link (the process dies,
 * modelled by a send that never returns): the answer kept with the request is what a retry with
 * the same Idempotency-Key replays, and it says the delivery is unconfirmed, never nothing; a call
 * that ends normally replaces it with what the send did.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { OutboxNotifier } from '../../lambdas/local/outbox-notifier.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;
beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Delivery Org' });
});
afterAll(() => service?.stop());

const body = {
  subject_name: 'Jane Doe',
  subject_email: 'jane@example.com',
  justification: 'The firewall admin password',
  recipients: [] as string[],
  delivery: { method: 'email' },
};
const create = (key: string) => service.call('POST', '/requests', { key: org.key, body: { ...body, recipients: [org.owner.email] }, headers: { 'Idempotency-Key': key } });

describe('the link delivery in a replayed creation', () => {
  it('says unconfirmed when the first call stopped before sending the link', async () => {
    const hang = vi.spyOn(OutboxNotifier.prototype, 'sendEmail').mockImplementation(() => new Promise(() => undefined));
    try {
      // The caller never gets this answer: the call stops inside the send.
      void create('stopped-before-the-send').catch(() => undefined);
      await vi.waitFor(() => expect(hang).toHaveBeenCalled(), { timeout: 10_000 });
    } finally {
      hang.mockRestore();
    }
    const retry = await create('stopped-before-the-send');
    expect(retry.status, retry.text).toBe(201);
    expect(retry.headers.get('idempotency-replayed')).toBe('true');
    expect(retry.body.link).toBeNull();
    expect(retry.body.delivery).toEqual({ id: expect.stringMatching(/^[0-9a-z]{26}$/), method: 'email', status: 'unconfirmed', reason: expect.stringMatching(/new link/) });
  });

  it('says what the send did once the first call ended', async () => {
    const first = await create('ended-normally');
    expect(first.body.delivery).toMatchObject({ method: 'email', status: 'sent' });
    const again = await create('ended-normally');
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.body.delivery).toEqual(first.body.delivery);
  });
});

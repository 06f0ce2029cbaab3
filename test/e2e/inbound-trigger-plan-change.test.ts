/**
 * A trigger post under way when the organisation moves to Free: the post read the organisation on
 * Team, the operator's set-plan commits before the request is written. The plan change wins: the
 * post creates nothing and answers as any post on Free does (202 with the reason as its problem).
 */
import { afterEach, expect, it, vi } from 'vitest';
import { requestItemsOf } from '../support/shapes.ts';
import { ack, connect, org, post, quietPreset, service, ticketId, useTriggerService } from '../support/inbound-trigger.ts';

useTriggerService();
afterEach(() => vi.restoreAllMocks());

it('a post naming a preset while the plan moves to Free: nothing created, the plan named as the problem', async () => {
  const slug = await quietPreset('A preset used as the plan changes');
  const integration = await connect({ name: 'Plan Change Desk' });
  const directory = service.deps.directory;
  const getPreset = directory.getPreset.bind(directory);
  let reached!: () => void;
  const paused = new Promise<void>((resolve) => (reached = resolve));
  let go!: () => void;
  const moved = new Promise<void>((resolve) => (go = resolve));
  vi.spyOn(directory, 'getPreset').mockImplementationOnce(async (orgId, wanted) => {
    const read = await getPreset(orgId, wanted);
    reached();
    await moved;
    return read;
  });
  const ticket = ticketId('P');
  const answering = post(integration, { ticket_id: ticket, preset: slug, subject: { name: 'Jane Doe' } });
  await paused;
  await service.admin.setPlan(org.orgId, 'free');
  go();
  const answer = await answering;
  expect(answer.status, answer.text).toBe(202);
  expect(answer.body).toEqual(ack(ticket, slug, expect.any(String) as unknown as string));
  expect((answer.body.problem as string).toLowerCase()).toContain('plan');
  expect((await requestItemsOf(service, org.orgId)).filter((item) => item.ticket?.ref === ticket)).toEqual([]);
});

/**
 * A trigger post under way when the organisation moves to Free: the post read the organisation on
 * Team, the operator's set-plan commits before the request is written. The plan change wins: the
 * post creates nothing and answers as any post on Free does (202 with the reason as its problem).
 */
import { afterEach, expect, it, vi } from 'vitest';
import { changeAfterRead } from '../support/change-meanwhile.ts';
import { requestItemsOf } from '../support/shapes.ts';
import { ack, connect, org, post, quietPreset, service, ticketId, useTriggerService } from '../support/inbound-trigger.ts';

useTriggerService();
afterEach(() => vi.restoreAllMocks());

/** Posts `body`, moving the organisation to Free once the post has read `read` (the preset, or the request's client). */
const postMovedToFree = (integration: Awaited<ReturnType<typeof connect>>, body: Record<string, unknown>, read: 'getPreset' | 'getClient') =>
  changeAfterRead(service.deps.directory, read, () => post(integration, body), () => service.admin.setPlan(org.orgId, 'free'));

const expectNothingCreated = async (answer: Awaited<ReturnType<typeof post>>, ticket: string, slug: string | null) => {
  expect(answer.status, answer.text).toBe(202);
  expect(answer.body).toEqual(ack(ticket, slug, expect.any(String) as unknown as string));
  expect((answer.body.problem as string).toLowerCase()).toContain('plan');
  expect((await requestItemsOf(service, org.orgId)).filter((item) => item.ticket?.ref === ticket)).toEqual([]);
};

afterEach(() => service.admin.setPlan(org.orgId, 'team'));

it('a post naming a preset while the plan moves to Free: nothing created, the plan named as the problem', async () => {
  const slug = await quietPreset('A preset used as the plan changes');
  const integration = await connect({ name: 'Plan Change Desk' });
  const ticket = ticketId('P');
  const answer = await postMovedToFree(integration, { ticket_id: ticket, preset: slug, subject: { name: 'Jane Doe' } }, 'getPreset');
  await expectNothingCreated(answer, ticket, slug);
});

it('a post naming no preset while the plan moves to Free: nothing created (the trigger URL is Team and above)', async () => {
  const integration = await connect({ name: 'Plan Change Desk, no preset' });
  const ticket = ticketId('Q');
  const answer = await postMovedToFree(integration, { ticket_id: ticket, subject: { name: 'Jane Doe' }, requester_email: org.member.email }, 'getClient');
  await expectNothingCreated(answer, ticket, null);
});

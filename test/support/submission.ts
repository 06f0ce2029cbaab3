import type { Clock } from '../../lambdas/core/clock.ts';
import type { SealedMaterial } from '../../lambdas/core/ports.ts';
import { toRequestView } from '../../lambdas/core/request-view.ts';
import { submit } from '../../lambdas/core/subject-flow.ts';
import { expect } from 'vitest';
import type { TestOrganisation, TestService } from './test-service.ts';

/**
 * A stored request submitted as the subject's browser would submit it: the submitted request, its
 * sealed material and the `request.submitted` entry in one transaction, at the clock's time.
 * Answers the request as it now stands.
 */
export const submitAsSubject = async (service: Pick<TestService, 'deps'>, requestId: string, clock: Clock, material: SealedMaterial) => {
  const before = (await service.deps.requests.get(requestId))!;
  const after = submit(before, clock.now(), material.attachments.length);
  const actor = { type: 'subject' as const, label: before.subject.name };
  await service.deps.requests.submit(before, after, material, {
    orgId: after.orgId,
    type: 'request.submitted',
    actor,
    clientId: after.client.id,
    requestId: after.id,
    data: { request: toRequestView(after, service.deps.urls), actor, details: {} },
  });
  return after;
};

let ticketsMade = 0;

/**
 * A request made through the API quoting a fresh ticket reference, then submitted with a stand-in
 * envelope (as submitAsSubject): what a ticket status can complete. Answers the ticket and the id.
 */
export const submittedForFreshTicket = async (service: Pick<TestService, 'deps' | 'call'>, org: Pick<TestOrganisation, 'key' | 'owner'>, clock: Clock) => {
  const ticket = `INC-${Date.now().toString(36)}-${++ticketsMade}`;
  const made = await service.call('POST', '/requests', {
    key: org.key,
    body: { subject_name: 'Jane Doe', justification: 'Needs the firewall admin password', recipients: [org.owner.email], ticket_ref: ticket },
  });
  expect(made.status, made.text).toBe(201);
  const id = made.body.request.id as string;
  await submitAsSubject(service, id, clock, { envelope: { v: 1, ciphertext: 'c2VhbGVk', recipients: [] }, attachments: [] });
  return { ticket, id };
};

import type { Clock } from '../../lambdas/core/clock.ts';
import type { SealedMaterial } from '../../lambdas/core/ports.ts';
import { toRequestView } from '../../lambdas/core/request-view.ts';
import { submit } from '../../lambdas/core/subject-flow.ts';
import type { TestService } from './test-service.ts';

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

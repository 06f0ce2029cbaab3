/**
 * A request made through POST /v1/requests with the organisation's all-scope key, for tests that
 * need one to act on: a subject, a justification and the owner as its recipient unless `body`
 * says otherwise. Expects 201 and answers the creation result.
 */
import { expect } from 'vitest';
import type { TestOrganisation, TestService } from './test-service.ts';

export const createRequestIn = async (service: TestService, org: TestOrganisation, body: Record<string, unknown> = {}) => {
  const answer = await service.call('POST', '/requests', {
    key: org.key,
    body: { subject_name: 'Jane Doe', justification: 'The firewall admin password', recipients: [org.owner.email], ...body },
  });
  expect(answer.status, answer.text).toBe(201);
  return answer.body as { request: { id: string; status: string }; link: string; challenge_code: string | null };
};

import { expect } from 'vitest';
import { expectCreationResult, type CreationResult } from './shapes.ts';
import { identityKey, type TestOrganisation, type TestService } from './test-service.ts';

/**
 * POST /v1/requests as the creation tests make it: a valid body to start from, the call, the call
 * that must answer 201 (its shape and Location checked), and members to name in it. `context`
 * answers the running service, its organisation and the writing key once the suite has started them.
 */
export const requestCreation = (context: () => { service: TestService; org: TestOrganisation; writer: string; justification: string }) => {
  const base = (extra: Record<string, unknown> = {}) => ({
    subject_name: 'Jane Doe',
    justification: context().justification,
    recipients: [context().org.owner.email],
    ...extra,
  });

  const create = (body: unknown, key = context().writer) => context().service.call('POST', '/requests', { key, body });

  /** Creates and checks the 201 and its shape; returns the result. */
  const created = async (body: unknown, key = context().writer): Promise<CreationResult> => {
    const answer = await create(body, key);
    expect(answer.status, answer.text).toBe(201);
    const result = expectCreationResult(answer.body);
    expect(answer.headers.get('location')).toBe(result.request.links.self);
    return result;
  };

  const fingerprintOf = async (orgId: string, memberId: string) => (await context().service.deps.directory.getMember(orgId, memberId))!.identityKey!.fingerprint;

  const addMember = async (name: string, withKey = true, orgId = context().org.orgId) =>
    context().service.admin.addMember({
      orgId,
      name,
      email: `${name.toLowerCase().replace(/\W+/g, '.')}-${orgId.slice(-6)}@example.com`,
      role: 'member',
      identityKey: withKey ? identityKey() : undefined,
    });

  return { base, create, created, fingerprintOf, addMember };
};

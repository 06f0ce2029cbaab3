import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { newId } from '../../lambdas/core/ids.ts';
import { AccessDeniedException } from '../../lambdas/access/table-access-guard.ts';
import { assertNoTableAccessDenials } from '../support/table-access.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

/**
 * The local runtime holds each function to its declaration, as its IAM policy does deployed: a
 * call outside it is refused (by the name AWS uses), logged as an error, and kept, so the test
 * service's stop fails the file even where the code under test swallowed the refusal.
 */
let service: TestService;
let org: TestOrganisation;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation();
});
afterAll(async () => {
  // This file refuses calls on purpose: forget them before the stop's own check.
  service.tableAccess?.denials.splice(0);
  await service.stop();
});

describe('the local table access guard', () => {
  it('is on in every test service', () => {
    expect(service.tableAccess).not.toBeNull();
  });

  it('lets a route do what its declaration allows, over HTTP', async () => {
    const answer = await service.call('GET', '/ping', { key: org.key });
    expect(answer.status).toBe(200);
    expect(service.tableAccess!.denials).toEqual([]);
  });

  it("refuses a worker's call outside its declaration with AccessDeniedException, logs it, and fails the stop's check", async () => {
    const logged = vi.spyOn(service.deps.logger, 'error');
    // The delivery sweep reads only its index: a request is none of its business.
    const readRequest = service.asWorker('deliverySweep', () => service.deps.requests.get(newId()));
    const error = await readRequest().then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(AccessDeniedException);
    expect((error as Error).name).toBe('AccessDeniedException');
    expect((error as Error).message).toMatch(/^deliverySweep is not authorized to perform dynamodb:GetItem on partition REQ#…: the action is not declared/);
    expect(logged).toHaveBeenCalledWith(expect.stringMatching(/^table access denied/), expect.objectContaining({ functionName: 'deliverySweep', action: 'GetItem', partition: 'REQ#…' }));
    expect(() => assertNoTableAccessDenials(service.tableAccess)).toThrow(/deliverySweep: dynamodb:GetItem \(REQ#\): the action is not declared/);
    logged.mockRestore();
  });

  it('does not check what the test (or the admin CLI) does outside any function', async () => {
    expect(await service.deps.requests.get(newId())).toBeNull();
  });
});

/**
 * The organisation's members are read strongly consistently (store/directory.ts): a request made
 * just after a recipient's key was replaced is committed to the new key, and the refresh after a
 * key change judges by it. DynamoDB Local answers every read consistently, so the test checks what
 * the read asks DynamoDB for.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { newId } from '../../lambdas/core/ids.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Member Reads Org' });
});
afterAll(() => service?.stop());

/** The inputs of the Query calls sent while `during` runs. */
const queriesDuring = async (during: () => Promise<unknown>) => {
  const inputs: Array<Record<string, unknown>> = [];
  const name = `queries-${newId()}`;
  service.deps.db.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'QueryCommand') inputs.push(args.input as Record<string, unknown>);
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    await during();
  } finally {
    service.deps.db.middlewareStack.remove(name);
  }
  return inputs;
};

it('lists the members with a strongly consistent read, and finds them all', async () => {
  let members: Array<{ id: string }> = [];
  const queries = await queriesDuring(async () => {
    members = await service.deps.directory.listMembers(org.orgId);
  });
  expect(members.map((member) => member.id).sort()).toEqual([org.owner.id, org.member.id].sort());
  expect(queries).toHaveLength(1);
  expect(queries[0]).toMatchObject({ ConsistentRead: true, ExpressionAttributeValues: { ':pk': `ORG#${org.orgId}` } });
});

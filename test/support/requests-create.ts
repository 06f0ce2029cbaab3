/**
 * The ground the POST /requests creation files share (requests-create*.test.ts, but for the
 * recipients file, which makes its own): a test service with one organisation, a writing and a
 * reading key, and the creation calls of request-creation.ts bound to them. A file calls
 * useCreationService() before its tests, which fills the bindings below.
 */
import { afterAll, beforeAll } from 'vitest';
import { requestCreation } from './request-creation.ts';
import { startTestService, type TestOrganisation, type TestService } from './test-service.ts';

export const ORG_NAME = 'Northwind Support';
export const WRITER_NAME = 'Create writer key';
export const JUSTIFICATION = 'Need the VPN password to finish the migration';

export let service: TestService;
export let org: TestOrganisation;
export let writer: string;
export let reader: string;

/** The service, its organisation and keys, started before the file's tests and stopped after them. */
export const useCreationService = () => {
  beforeAll(async () => {
    service = await startTestService();
    org = await service.createOrganisation({ name: ORG_NAME });
    writer = await service.createKey(org.orgId, { scopes: ['requests:write'], name: WRITER_NAME });
    reader = await service.createKey(org.orgId, { scopes: ['requests:read'], name: 'Create reader key' });
  });
  afterAll(() => service?.stop());
};

export const { base, create, created, fingerprintOf } = requestCreation(() => ({ service, org, writer, justification: JUSTIFICATION }));

import { expect, inject } from 'vitest';
import { startFaultProxy, type FaultProxy } from './dynamo-fault-proxy.ts';
import { MemberBrowser } from './member-browser.ts';
import { expectError } from './shapes.ts';
import { startTestService, type ApiAnswer, type TestOrganisation, type TestService } from './test-service.ts';

/** A service whose DynamoDB calls go through a fault proxy, with one organisation and its owner signed in on demand. */
export interface LostAnswerWorld {
  proxy: FaultProxy;
  service: TestService;
  org: TestOrganisation;
  owner(): Promise<MemberBrowser>;
  stop(): Promise<void>;
}

/** The SDK gives up on a hanging call soon enough for a test: the member then gets a 503. */
const SDK = { requestTimeoutMs: 2000, maxAttempts: 2 };

export const startLostAnswerWorld = async (name: string): Promise<LostAnswerWorld> => {
  const proxy = await startFaultProxy(inject('dynamoEndpoint'));
  const service = await startTestService({ dynamo: { endpoint: proxy.endpoint, ...SDK } });
  const org = await service.createOrganisation({ name });
  let signedIn: MemberBrowser | undefined;
  return {
    proxy,
    service,
    org,
    owner: async () => (signedIn ??= await MemberBrowser.signIn(service, org.owner.email)),
    stop: async () => {
      await service.stop();
      await proxy.stop();
    },
  };
};

/**
 * Makes `call` once with the table applying its transaction and never answering (the member gets
 * a 503), then again with the same key: answers the retry.
 */
export const retryAfterLostAnswer = async (proxy: FaultProxy, call: () => Promise<ApiAnswer>) => {
  proxy.inject({ operation: 'TransactWriteItems', fault: 'hang-after-apply' });
  const lost = await call();
  proxy.clear();
  expectError(lost, 503, 'service_unavailable');
  return call();
};

/** The retry replayed the first call's answer with this status. */
export const expectReplayed = (answer: ApiAnswer, status: number) => {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.headers.get('idempotency-replayed'), 'replayed').toBe('true');
};

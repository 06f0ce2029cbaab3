import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGN_IN_ANSWER_MS } from '../../lambdas/http/app/sign-in.ts';
import { requestSignIn, signInEmailsTo } from '../support/member-browser.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

/**
 * POST /app/api/sign-in answers 202 whether or not the address is a member's (docs/web-api.md: no
 * account enumeration), and not sooner for one than for the other: a member's address saves a
 * token and sends an email, any other does neither, so every answer waits out the same least time.
 */
let service: TestService;
let org: TestOrganisation;

beforeAll(async () => {
  service = await startTestService({ signInAnswerMs: SIGN_IN_ANSWER_MS });
  org = await service.createOrganisation({ name: 'Timing Org' });
});
afterAll(() => service?.stop());

const timed = async (email: string) => {
  const started = performance.now();
  const answer = await requestSignIn(service, email);
  return { answer, ms: performance.now() - started };
};

describe('the sign-in request\u2019s timing', () => {
  it(`takes at least ${SIGN_IN_ANSWER_MS} ms for a member\u2019s address and for an unknown one alike`, async () => {
    const [known, unknown] = await Promise.all([timed(org.owner.email), timed(`nobody-${Date.now()}@example.com`)]);
    for (const { answer, ms } of [known, unknown]) {
      expect(answer.status).toBe(202);
      expect(answer.body).toEqual({ accepted: true });
      expect(ms).toBeGreaterThanOrEqual(SIGN_IN_ANSWER_MS);
    }
    // The member's link was sent all the same.
    expect(signInEmailsTo(service, org.owner.email)).toHaveLength(1);
  });

  it('answers a malformed address at once: refusing it tells nothing about anyone', async () => {
    const { answer, ms } = await timed('not an address');
    expect(answer.status).toBe(422);
    expect(ms).toBeLessThan(SIGN_IN_ANSWER_MS);
  });
});

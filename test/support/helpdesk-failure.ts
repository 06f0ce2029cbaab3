import { expect } from 'vitest';
import { HelpdeskCallFailed } from '../../lambdas/core/helpdesk.ts';

/**
 * Collects the failures a helpdesk test provoked, so that the file can check at the end that
 * none of them carries a secret, a token or the helpdesk's address.
 */
export const helpdeskFailures = () => {
  const seen: unknown[] = [];
  /** The HelpdeskCallFailed the promise rejects with (failing the test if it resolves or throws anything else). */
  const failure = async (promise: Promise<unknown>): Promise<HelpdeskCallFailed> => {
    const error = await promise.then(
      () => expect.fail('the call succeeded'),
      (thrown: unknown) => thrown,
    );
    seen.push(error);
    expect(error).toBeInstanceOf(HelpdeskCallFailed);
    return error as HelpdeskCallFailed;
  };
  return { seen, failure };
};

/**
 * `npm run bench`'s verified close runs as it is deployed: the check it queues runs as the
 * ticket-check worker, whose table rights the local guard holds it to, and a close the helpdesk
 * confirms destroys. A few closes, for the script's working, not its figures.
 */
import { describe, expect, inject, it } from 'vitest';
import { measureHelpdeskClose } from '../../bench/helpdesk-close.ts';
import { newId } from '../../lambdas/core/ids.ts';

describe("the bench's verified close", () => {
  it('runs to its figures: every close destroys, the verified one after one helpdesk read', async () => {
    const result = await measureHelpdeskClose({ dynamoEndpoint: inject('dynamoEndpoint'), closes: 2, tableName: `bench-helpdesk-${newId()}` });
    expect(result.unverified).toMatchObject({ closes: 2, destroyed: 2, helpdeskCalls: 0 });
    expect(result.verified).toMatchObject({ closes: 2, destroyed: 2 });
    // Helpdesk calls per close: a token and a read the first time, a read after.
    expect(result.verified.helpdeskCalls).toBeGreaterThanOrEqual(1);
  }, 120_000);
});

import { describe, expect, it } from 'vitest';
import { checkHelpdeskTicket, type HelpdeskCheckDeps } from '../../lambdas/core/use-cases/integrations/connect-helpdesk.ts';

/** A check of a ticket through no integration: whatever passes the ticket's own rule answers 404. */
const deps = { integrations: { get: async () => null }, directory: { getOrganisation: async () => null }, helpdesks: {} } as unknown as HelpdeskCheckDeps;
const answerTo = (ticket: string) => checkHelpdeskTicket(deps, 'o', 'i', ticket).then(() => null, (error: { status: number; errors?: unknown }) => ({ status: error.status, errors: error.errors }));

describe('the ticket a helpdesk check reads', () => {
  it('counts its 1 to 120 characters as the app field does: an emoji is one', async () => {
    expect(await answerTo('\u{1F600}'.repeat(120))).toMatchObject({ status: 404 });
    expect(await answerTo('\u{1F600}'.repeat(121))).toEqual({ status: 422, errors: { ticket: ['Must be 1 to 120 characters.'] } });
    expect(await answerTo('  ')).toEqual({ status: 422, errors: { ticket: ['Must be 1 to 120 characters.'] } });
  });
});

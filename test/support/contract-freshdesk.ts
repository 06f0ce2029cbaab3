import type { FreshdeskCall } from './fake-freshdesk.ts';
import { freshworksContractProblems, type FreshworksContract } from './contract-freshworks.ts';

/**
 * Freshdesk's contract as contract-freshworks.ts checks it (developers.freshdesk.com/api:
 * Authentication, View a Ticket, Reply to a Ticket): answers are the ticket or conversation itself.
 */
const FRESHDESK: FreshworksContract = {
  vendor: 'Freshdesk',
  replyFields: ['body', 'from_email', 'user_id', 'cc_emails', 'bcc_emails', 'attachments'],
  wrappedIn: null,
};

/** Every call in `calls` that Freshdesk's API reference does not describe, or that the fake answered as Freshdesk would not. */
export const freshdeskContractProblems = (calls: readonly FreshdeskCall[]): string[] => freshworksContractProblems(FRESHDESK, calls);

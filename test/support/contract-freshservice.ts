import type { FreshserviceCall } from './fake-freshservice.ts';
import { freshworksContractProblems, type FreshworksContract } from './contract-freshworks.ts';

/**
 * Freshservice's contract as contract-freshworks.ts checks it (api.freshservice.com: Authentication,
 * View a Ticket, Reply to a Ticket, as third-party clients quote it): answers hold the ticket under
 * `ticket` and the created conversation under `conversation`.
 */
const FRESHSERVICE: FreshworksContract = {
  vendor: 'Freshservice',
  replyFields: ['body', 'from_email', 'cc_emails', 'bcc_emails', 'attachments'],
  wrappedIn: { ticket: 'ticket', conversation: 'conversation' },
};

/** Every call in `calls` that Freshservice's API reference does not describe, or that the fake answered as Freshservice would not. */
export const freshserviceContractProblems = (calls: readonly FreshserviceCall[]): string[] => freshworksContractProblems(FRESHSERVICE, calls);

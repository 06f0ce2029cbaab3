import { FreshworksHelpdesk, type FreshworksConfig, type FreshworksProduct } from './freshworks.ts';
import type { HelpdeskAdapterSetup } from './adapter-basics.ts';

/**
 * The Freshservice adapter (API v2, api.freshservice.com; samples built from that reference in
 * test/fixtures/helpdesk-apis/freshservice-*.json): Basic auth with the API key, View a Ticket and
 * Reply to a Ticket as freshworks.ts makes them for Freshdesk too, with Freshdesk's statuses and
 * ids; unlike Freshdesk, each answer holds its record under a `ticket` or `conversation` key.
 * A reply rather than a note (`POST /api/v2/tickets/{id}/notes` with `private: false`): a reply is
 * what Freshservice emails to the requester, while a note, even a public one, is emailed only to the
 * addresses it names, so a requester who never opens the portal would not see the link.
 */

export type FreshserviceConfig = FreshworksConfig;

/** The calls' names in errors: the API reference's sections. */
export const FRESHSERVICE_CALLS = {
  viewTicket: 'Freshservice View a Ticket',
  replyTicket: 'Freshservice Reply to a Ticket',
} as const;

const FRESHSERVICE: FreshworksProduct = {
  vendor: 'Freshservice',
  example: 'https://acme.freshservice.com',
  calls: FRESHSERVICE_CALLS,
  wrappedIn: { ticket: 'ticket', conversation: 'conversation' },
};

export class FreshserviceHelpdesk extends FreshworksHelpdesk {
  constructor(config: FreshserviceConfig, setup: HelpdeskAdapterSetup = {}) {
    super(FRESHSERVICE, config, setup);
  }
}

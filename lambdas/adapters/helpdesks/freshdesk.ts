import { FreshworksHelpdesk, type FreshworksConfig, type FreshworksProduct } from './freshworks.ts';
import type { HelpdeskAdapterSetup } from './adapter-basics.ts';

/**
 * The Freshdesk adapter (API v2, developers.freshdesk.com/api; samples in
 * test/fixtures/helpdesk-apis/freshdesk-*.json): Basic auth with the API key, View a Ticket and
 * Reply to a Ticket as freshworks.ts makes them, each answer being the ticket or conversation itself.
 * A reply rather than a note with `private: false`: a reply is what Freshdesk sends to the requester
 * by email and shows in the portal, while a public note is only shown in the portal (and emailed only
 * to addresses the note names), so a customer who never opens the portal would not see the link.
 */

export type FreshdeskConfig = FreshworksConfig;

/** The calls' names in errors: the API reference's sections. */
export const FRESHDESK_CALLS = {
  viewTicket: 'Freshdesk View a Ticket',
  replyTicket: 'Freshdesk Reply to a Ticket',
} as const;

const FRESHDESK: FreshworksProduct = { vendor: 'Freshdesk', example: 'https://acme.freshdesk.com', calls: FRESHDESK_CALLS, wrappedIn: null };

export class FreshdeskHelpdesk extends FreshworksHelpdesk {
  constructor(config: FreshdeskConfig, setup: HelpdeskAdapterSetup = {}) {
    super(FRESHDESK, config, setup);
  }
}

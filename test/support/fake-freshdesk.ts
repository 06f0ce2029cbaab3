import { helpdeskSample } from './helpdesk-samples.ts';
import { startFakeFreshworks, type FakeFreshworksOptions, type FreshworksCall, type FreshworksConversation, type FreshworksEndpoint } from './fake-freshworks.ts';

export type { ScriptedAnswer } from './fake-freshworks.ts';

/**
 * A Freshdesk account on loopback, as fake-freshworks.ts keeps one: each answer is the ticket or the
 * conversation itself. A ticket is the vendor's example (only its leading fields were collected)
 * with its own id and status; a reply answers the conversation with the fields Freshdesk's reference
 * lists.
 */

export type FreshdeskEndpoint = FreshworksEndpoint;
export type FreshdeskCall = FreshworksCall;
export type FakeFreshdeskOptions = FakeFreshworksOptions;
export type FreshdeskConversation = FreshworksConversation;

/** The vendor's View a Ticket example, as far as it was collected. */
const TICKET_EXAMPLE = helpdeskSample('freshdesk-view-ticket.response.partial.json');

export const startFakeFreshdesk = (options: FakeFreshdeskOptions) =>
  startFakeFreshworks(
    {
      ticketExample: TICKET_EXAMPLE,
      wrappedIn: null,
      conversationOf: (conversation, ticketId) => ({
        body: conversation.body,
        body_text: conversation.body.replace(/<[^>]*>/g, ''),
        id: conversation.id,
        user_id: 43_000_000_001,
        from_email: 'support@acme.freshdesk.com',
        cc_emails: [],
        bcc_emails: [],
        ticket_id: ticketId,
        replied_to: TICKET_EXAMPLE.cc_emails,
        attachments: [],
        created_at: '2026-11-26T09:00:00Z',
        updated_at: '2026-11-26T09:00:00Z',
      }),
    },
    options,
  );

export type FakeFreshdesk = Awaited<ReturnType<typeof startFakeFreshdesk>>;

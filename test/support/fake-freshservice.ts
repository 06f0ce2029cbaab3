import { helpdeskSample } from './helpdesk-samples.ts';
import { startFakeFreshworks, type FakeFreshworksOptions, type FreshworksCall } from './fake-freshworks.ts';

export type { ScriptedAnswer } from './fake-freshworks.ts';

/**
 * A Freshservice account on loopback, as fake-freshworks.ts keeps one: each answer holds its record
 * under a key, the ticket under `ticket` and the created conversation under `conversation`. A ticket
 * is the sample built from the vendor's reference with its own id, status and trash flag; a reply
 * answers the reference's conversation fields.
 */

export type FreshserviceCall = FreshworksCall;

const TICKET_EXAMPLE = helpdeskSample('freshservice-view-ticket.response.sample.json').ticket as Record<string, unknown>;
const CONVERSATION_EXAMPLE = helpdeskSample('freshservice-reply-ticket.response.sample.json').conversation as Record<string, unknown>;

export const startFakeFreshservice = (options: FakeFreshworksOptions) =>
  startFakeFreshworks(
    {
      ticketExample: TICKET_EXAMPLE,
      wrappedIn: { ticket: 'ticket', conversation: 'conversation' },
      conversationOf: (conversation, ticketId) => ({
        ...CONVERSATION_EXAMPLE,
        id: conversation.id,
        body: conversation.body,
        body_text: conversation.body.replace(/<[^>]*>/g, ''),
        ticket_id: ticketId,
        private: conversation.private,
        created_at: '2026-11-26T09:00:00Z',
        updated_at: '2026-11-26T09:00:00Z',
      }),
    },
    options,
  );

export type FakeFreshservice = Awaited<ReturnType<typeof startFakeFreshservice>>;

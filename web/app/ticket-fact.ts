/// <reference lib="dom" />
/**
 * A request's ticket on its page: the reference as entered (or the helpdesk's id of a ticket linked
 * through an integration), its last known status, a link to it in the helpdesk when the request
 * has one, and the integration it is linked through (a link for owners and admins, who manage
 * integrations).
 */
import { h } from '../shared/dom.ts';
import type { RequestView } from './shapes.ts';

const isWebLink = (url: string) => /^https?:\/\//i.test(url);

export const ticketFact = (ticket: RequestView['ticket'], canManageIntegrations: boolean) => {
  if (!ticket) return null;
  const reference = ticket.ref ?? ticket.external_id;
  const parts: Array<Node | string> = [];
  parts.push(reference ?? 'A linked ticket');
  if (ticket.ref && ticket.external_id && ticket.external_id !== ticket.ref) parts.push(` (helpdesk id ${ticket.external_id})`);
  if (ticket.status) parts.push(`, ${ticket.status}`);
  if (ticket.url && isWebLink(ticket.url)) parts.push(' · ', h('a', { id: 'ticket-link', href: ticket.url, rel: 'noopener noreferrer' }, 'Open the ticket'));
  if (ticket.integration_id) {
    parts.push(
      ' · linked through ',
      canManageIntegrations ? h('a', { id: 'ticket-integration', href: `/app/integrations/${ticket.integration_id}` }, 'its integration') : 'an integration',
    );
  }
  return h('span', { id: 'request-ticket' }, ...parts);
};

import { integrationActor } from '../../integration.ts';
import { DEFAULT_MAPPING, interpret } from '../../inbound/mapping.ts';
import { applyTicketStatus } from '../tickets/apply-ticket-status.ts';
import { payloadOf, type AdmittedPost, type InboundAction, type InboundDeps, type TicketLinksRead } from './receive-post.ts';

const linksOf = async (deps: InboundDeps, orgId: string, ticketId: string) => (deps.ticketIndex ? deps.ticketIndex.linksOf(orgId, ticketId) : null);

/**
 * The ticket index's word on the post's ticket where it covers the organisation: the one read
 * ahead when it was this ticket, else read now; null (look for every kind of record) elsewhere.
 */
const linksFor = async ({ ticketLinks, org }: AdmittedPost, deps: InboundDeps, ticketId: string) => {
  if (!org.ticketIndexCovered) return null;
  return ticketLinks?.ticketId === ticketId ? ticketLinks.links : linksOf(deps, org.id, ticketId);
};

/** The webhook URL: a ticket's status, applied to the requests that quote the ticket. */
export const statusAction: InboundAction = {
  purpose: 'status',
  // The ticket the post names where the integration's mapping last put it (a new mapping is
  // noticed once the integration is read: the ticket is then read again where it now is).
  readAhead: async (deps, target, post) => {
    const mapping = deps.urlMemory?.mappingOf(target.integrationId) ?? DEFAULT_MAPPING;
    const ticketId = interpret(payloadOf(post, null).fields, mapping, {}).ticketId;
    if (ticketId === null) return null;
    return linksOf(deps, target.orgId, ticketId).then(
      (links): TicketLinksRead => ({ ticketId, links }),
      () => null,
    );
  },
  // The activity log entry is all an unusable status post leaves.
  refuse: async () => undefined,
  use: async (deps, admitted, understood, unusable) => {
    const { org, integration } = admitted;
    await applyTicketStatus(deps, {
      org,
      ref: understood.ticketId,
      status: understood.status,
      statusWord: understood.statusWord,
      verified: false,
      channel: { kind: 'integration', name: integration.name, actor: integrationActor(integration), integrationId: integration.id, integrationVersion: integration.version },
      onlyIntegration: null,
      clientId: integration.clientId,
      links: await linksFor(admitted, deps, understood.ticketId),
    });
    return { preset: null, problem: unusable };
  },
};

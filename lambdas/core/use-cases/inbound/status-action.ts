import { integrationActor } from '../../integration.ts';
import { applyTicketStatus } from '../tickets/apply-ticket-status.ts';
import type { InboundAction } from './receive-post.ts';

/** The webhook URL: a ticket's status, applied to the requests that quote the ticket. */
export const statusAction: InboundAction = {
  purpose: 'status',
  // The activity log entry is all an unusable status post leaves.
  refuse: async () => undefined,
  use: async (deps, org, integration, understood, unusable) => {
    await applyTicketStatus(deps, {
      org,
      ref: understood.ticketId,
      status: understood.status,
      statusWord: understood.statusWord,
      verified: false,
      channel: { kind: 'integration', name: integration.name, actor: integrationActor(integration), integrationId: integration.id },
      onlyIntegration: null,
      clientId: integration.clientId,
    });
    return { preset: null, problem: unusable };
  },
};

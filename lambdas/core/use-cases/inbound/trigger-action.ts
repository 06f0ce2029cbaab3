import { toWellFormedText } from '../../unicode.ts';
import type { InboundAction } from './receive-post.ts';
import { recordTriggerFailure, triggerRequest } from './trigger-request.ts';

/** The trigger URL: a request for the ticket, made from the integration's preset. */
export const triggerAction: InboundAction = {
  purpose: 'trigger',
  // A trigger that can create nothing is a failed trigger, whatever the reason. The preset is cut
  // for the audit entry; a cut through a surrogate pair would leave a half no audit hash can take.
  refuse: (deps, org, integration, understood, reason) =>
    recordTriggerFailure(deps, org, integration, understood.ticketId, {
      reason,
      preset: understood.trigger.preset === null ? null : toWellFormedText(understood.trigger.preset.slice(0, 40)),
    }),
  use: async (deps, { org, integration }, understood) => {
    const outcome = await triggerRequest(deps, org, integration, understood);
    return { preset: outcome.preset, problem: outcome.kind === 'failed' ? outcome.reason : null };
  },
};

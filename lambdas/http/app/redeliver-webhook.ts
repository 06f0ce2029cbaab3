import { eventId } from '#core/events.ts';
import { redeliverEvent } from '#workers/webhook-actions.ts';
import type { AppDeps } from '../../app-deps.ts';
import { withWebhookStore } from '../../store-wiring.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { sessionHandler } from './session-handler.ts';
import { asMemberAnswer, deliveryOfPath, managedWebhook, webhookActionDeps } from './webhook-actions.ts';

/**
 * POST /app/api/webhooks/{id}/deliveries/{deliveryId}/redeliver (owners and admins): the
 * delivery's event again, as the operator's redeliver-event: a new delivery with a new
 * `webhook-id` and the same event id.
 */
export const createHandler = (appDeps: AppDeps) => {
  // The webhook subscriptions' store is added by the functions that read it (store-wiring.ts).
  const deps = withWebhookStore(appDeps);
  // The answer is stored with the redelivery: a retry after a lost answer replays it instead of making another.
  return sessionHandler(deps, async ({ caller, event, prepareReplay }) => {
    const { manager, subscription } = await managedWebhook(deps, caller, event, true);
    const delivery = await deliveryOfPath(deps, event, manager.orgId, subscription.id);
    const actions = webhookActionDeps(deps).actions;
    const redeliver = () => redeliverEvent(actions, manager.actor, manager.orgId, eventId(delivery.eventSeq), subscription.id, (queued) => prepareReplay(json(202, queued)));
    return json(202, await asMemberAnswer(redeliver));
  }, { takesNoBody: true });
};

export const handler = lazyHandler(() => createHandler(wiring()));

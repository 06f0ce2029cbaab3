import type { AppDeps } from '../../app-deps.ts';
import { withWebhookStore } from '../../store-wiring.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { sessionHandler } from './session-handler.ts';
import { deliveryView, managedWebhook, webhookActionDeps } from './webhook-actions.ts';

/** The page shows this many, newest first. */
const RECENT_DELIVERIES = 25;

/** GET /app/api/webhooks/{id}/deliveries (owners and admins): the subscription's recent deliveries. */
export const createHandler = (appDeps: AppDeps) => {
  // The webhook subscriptions' store is added by the functions that read it (store-wiring.ts).
  const deps = withWebhookStore(appDeps);
  return sessionHandler(deps, async ({ caller, event }) => {
    const { manager, subscription } = await managedWebhook(deps, caller, event);
    const deliveries = await webhookActionDeps(deps).deliveries.listForWebhook(manager.orgId, subscription.id, RECENT_DELIVERIES);
    return json(200, { object: 'list', data: deliveries.map(deliveryView) });
  });
};

export const handler = lazyHandler(() => createHandler(wiring()));

import { memberActor } from '#core/member-access.ts';
import { pingWebhook } from '#workers/webhook-actions.ts';
import type { AppDeps } from '../../app-deps.ts';
import { withWebhookStore } from '../../store-wiring.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { sessionHandler } from './session-handler.ts';
import { asMemberAnswer, managedWebhook, webhookActionDeps } from './webhook-actions.ts';

/** POST /app/api/webhooks/{id}/ping (owners and admins): a test ping, as the operator's webhook-ping; the worker sends it. */
export const createHandler = (appDeps: AppDeps) => {
  // The webhook subscriptions' store is added by the functions that read it (store-wiring.ts).
  const deps = withWebhookStore(appDeps);
  // The answer is stored with the ping: a retry after a lost answer replays it instead of queuing another.
  return sessionHandler(deps, async ({ caller, event, prepareReplay }) => {
    const { manager, subscription } = await managedWebhook(deps, caller, event, true);
    const actions = webhookActionDeps(deps).actions;
    return json(202, await asMemberAnswer(() => pingWebhook(actions, manager.actor, manager.orgId, subscription.id, (queued) => prepareReplay(json(202, queued)))));
  }, { takesNoBody: true });
};

export const handler = lazyHandler(() => createHandler(wiring()));

import { deleteWebhook, memberWebhookManager } from '#core/use-cases/webhooks.ts';
import type { AppDeps } from '../../app-deps.ts';
import { withWebhookStore } from '../../store-wiring.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { noContent } from '../responses.ts';
import { pathIdOf, sessionHandler } from './session-handler.ts';

/** POST /app/api/webhooks/{id}/delete (owners and admins): unsubscribes, as DELETE /v1/webhooks/{id}. A POST, so the CSRF check applies. */
export const createHandler = (appDeps: AppDeps) => {
  // The webhook subscriptions' store is added by the functions that read it (store-wiring.ts).
  const deps = withWebhookStore(appDeps);
  // The answer is stored with the deletion: a retry after a lost answer replays it instead of answering 404.
  return sessionHandler(deps, async ({ caller, event, prepareReplay }) => {
    await deleteWebhook(deps, memberWebhookManager(caller), pathIdOf(event, 'webhook'), () => prepareReplay(noContent()));
    return noContent();
  }, { takesNoBody: true });
};

export const handler = lazyHandler(() => createHandler(wiring()));

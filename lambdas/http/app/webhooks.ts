import { listWebhooks, memberWebhookManager } from '#core/use-cases/webhooks.ts';
import type { AppDeps } from '../../app-deps.ts';
import { withWebhookStore } from '../../store-wiring.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { sessionHandler } from './session-handler.ts';

/** GET /app/api/webhooks (owners and admins): the organisation's subscriptions, as GET /v1/webhooks lists them. */
export const createHandler = (appDeps: AppDeps) => {
  // The webhook subscriptions' store is added by the functions that read it (store-wiring.ts).
  const deps = withWebhookStore(appDeps);
  return sessionHandler(deps, async ({ caller }) => json(200, await listWebhooks(deps, memberWebhookManager(caller))));
};

export const handler = lazyHandler(() => createHandler(wiring()));

import { planIncludes } from '#core/plans.ts';
import { listWebhooks, memberWebhookManager, readWebhook } from '#core/use-cases/webhooks.ts';
import type { AppDeps } from '../../app-deps.ts';
import { withWebhookStore } from '../../store-wiring.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { pathIdOf, sessionHandler } from './session-handler.ts';

/**
 * GET /app/api/webhooks (owners and admins): the organisation's subscriptions, as GET /v1/webhooks
 * lists them; GET /app/api/webhooks/{id}: one of them (where a creation's `Location` leads).
 */
export const createHandler = (appDeps: AppDeps) => {
  // The webhook subscriptions' store is added by the functions that read it (store-wiring.ts).
  const deps = withWebhookStore(appDeps);
  return sessionHandler(deps, async ({ caller, event }) => {
    const manager = memberWebhookManager(caller);
    // `webhook_access`: whether the plan lets this organisation subscribe (the page explains instead of offering the form).
    if (event.pathParameters?.id === undefined) return json(200, { ...(await listWebhooks(deps, manager)), webhook_access: planIncludes(caller.org.plan, 'webhooks') });
    return json(200, await readWebhook(deps, manager, pathIdOf(event, 'webhook')));
  });
};

export const handler = lazyHandler(() => createHandler(wiring()));

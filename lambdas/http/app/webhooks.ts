import { listWebhooks, memberWebhookManager } from '#core/use-cases/webhooks.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { sessionHandler } from './session-handler.ts';

/** GET /app/api/webhooks (owners and admins): the organisation's subscriptions, as GET /v1/webhooks lists them. */
export const createHandler = (deps: AppDeps) =>
  sessionHandler(deps, async ({ caller }) => json(200, await listWebhooks(deps, memberWebhookManager(caller))));

export const handler = lazyHandler(() => createHandler(wiring()));

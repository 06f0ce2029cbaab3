import { createWebhook, memberWebhookSender } from '#core/use-cases/webhooks.ts';
import type { AppDeps } from '../../app-deps.ts';
import { withWebhookStore } from '../../store-wiring.ts';
import { wiring } from '../../wiring.ts';
import { kmsSealing } from '../../deployed/kms-sealing.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { sessionHandler } from './session-handler.ts';

/** POST /app/api/webhooks (owners and admins, on a plan with outbound webhooks): created as by POST /v1/webhooks, `created_via: "ui"`; the secret shown once. */
export const createHandler = (appDeps: AppDeps) => {
  // The webhook subscriptions' store is added by the functions that read it (store-wiring.ts).
  const deps = withWebhookStore(appDeps);
  return sessionHandler(
    deps,
    async ({ caller, body, prepareReplay }) => {
      const answer = (result: { id: string }) => json(201, result, { Location: `${deps.urls.appUrl}/app/api/webhooks/${result.id}` });
      return answer(await createWebhook(deps, memberWebhookSender(caller), body, (prepared) => prepareReplay(answer(prepared))));
    },
    { idempotent: { secretFields: ['secret'] } },
  );
};

export const handler = lazyHandler(() => createHandler(wiring(kmsSealing())));

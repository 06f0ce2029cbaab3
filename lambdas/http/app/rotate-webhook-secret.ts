import * as z from 'zod/mini';
import { parseOrThrow } from '#core/validation.ts';
import { toWebhookView } from '#core/webhooks.ts';
import { DEFAULT_OVERLAP_HOURS, MAX_OVERLAP_HOURS, rotateWebhookSecret, type RotatedWebhookSecret } from '#workers/webhook-actions.ts';
import type { AppDeps } from '../../app-deps.ts';
import { withWebhookStore } from '../../store-wiring.ts';
import { wiring } from '../../wiring.ts';
import { kmsSealing } from '../../deployed/kms-sealing.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { sessionHandler } from './session-handler.ts';
import { asMemberAnswer, managedWebhook, webhookActionDeps } from './webhook-actions.ts';

const rotateBody = z.strictObject({
  overlap_hours: z.optional(
    z.number('Must be a whole number of hours.').check(
      z.int('Must be a whole number of hours.'),
      z.gte(0, 'Must be 0 or more.'),
      z.lte(MAX_OVERLAP_HOURS, `Must be at most ${MAX_OVERLAP_HOURS}.`),
    ),
  ),
});

const answer = (rotated: RotatedWebhookSecret) =>
  json(200, { ...toWebhookView(rotated.subscription), secret: rotated.secret, old_secret_expires_at: rotated.oldSecretExpiresAt });

/**
 * POST /app/api/webhooks/{id}/rotate-secret (owners and admins): a new signing secret, as the
 * operator's rotate-webhook-secret; the old one is still sent for `overlap_hours`. The new secret
 * is in this answer only (null in an idempotent replay, whose answer is stored with the rotation
 * itself, so a retry after a lost answer never rotates again).
 */
export const createHandler = (appDeps: AppDeps) => {
  // The webhook subscriptions' store is added by the functions that read it (store-wiring.ts).
  const deps = withWebhookStore(appDeps);
  return sessionHandler(
    deps,
    async ({ caller, event, body, prepareReplay }) => {
      const { manager, subscription } = await managedWebhook(deps, caller, event);
      const hours = parseOrThrow(rotateBody, body ?? {}).overlap_hours ?? DEFAULT_OVERLAP_HOURS;
      const actions = webhookActionDeps(deps).actions;
      return answer(
        await asMemberAnswer(() => rotateWebhookSecret(actions, manager.actor, manager.orgId, subscription.id, hours, (rotated) => prepareReplay(answer(rotated)))),
      );
    },
    { idempotent: { secretFields: ['secret'] } },
  );
};

export const handler = lazyHandler(() => createHandler(wiring(kmsSealing())));

import * as z from 'zod/mini';
import { fieldError } from '#core/errors.ts';
import { pageLimit } from '#core/use-cases/newest-first-page.ts';
import { ulidString } from '#core/validation.ts';
import { parseQuery } from '../query-schema.ts';
import type { AppDeps } from '../../app-deps.ts';
import { withWebhookStore } from '../../store-wiring.ts';
import { wiring } from '../../wiring.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { json } from '../responses.ts';
import { sessionHandler } from './session-handler.ts';
import { deliveryView, managedWebhook, webhookActionDeps } from './webhook-actions.ts';

/**
 * The audit log's paging (core/use-cases/audit-log-view.ts): `before` a previous answer's
 * `next_before`, `limit` 1 to 200; by default the 25 the webhook's page shows first. Any other
 * parameter is refused by name, as the audit log refuses it.
 */
const deliveriesQuery = z.strictObject({
  before: z.optional(ulidString()),
  limit: pageLimit(25),
});

const NOT_A_CURSOR = "Must be the next_before of an earlier page of this webhook's deliveries.";

/** GET /app/api/webhooks/{id}/deliveries (owners and admins): the subscription's deliveries, newest first, a page at a time. */
export const createHandler = (appDeps: AppDeps) => {
  // The webhook subscriptions' store is added by the functions that read it (store-wiring.ts).
  const deps = withWebhookStore(appDeps);
  return sessionHandler(deps, async ({ caller, event }) => {
    const { manager, subscription } = await managedWebhook(deps, caller, event);
    const query = parseQuery(deliveriesQuery, event);
    const page = await webhookActionDeps(deps).deliveries.listForWebhook({ orgId: manager.orgId, webhookId: subscription.id, limit: query.limit, before: query.before });
    // A delivery of another subscription or organisation, or none: no place in this list to go on from.
    if (!page) throw fieldError('before', NOT_A_CURSOR);
    return json(200, { object: 'list', data: page.deliveries.map(deliveryView), has_more: page.nextBefore !== null, next_before: page.nextBefore });
  }, { readsQuery: true });
};

export const handler = lazyHandler(() => createHandler(wiring()));

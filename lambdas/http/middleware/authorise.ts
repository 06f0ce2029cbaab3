import { addressAllowed } from '#core/address-allowlist.ts';
import { apiActor } from '#core/caller.ts';
import { forbidden } from '#core/errors.ts';
import type { Scope } from '#core/model.ts';
import { requirePlan } from '#core/plans.ts';
import type { AuditTrail } from '#core/ports.ts';
import type { ApiMiddleware } from '../types.ts';

/**
 * After authentication: 403 `plan_required` on a plan without the API, 403 `forbidden` from
 * outside the key's IP allowlist (audited) or without the route's scope.
 */
export const authorise = (
  scope: Scope | 'any',
  audit: AuditTrail,
): ApiMiddleware => ({
  before: async (request) => {
    const caller = request.internal.caller!;
    requirePlan(caller.org, 'api');
    if (!addressAllowed(caller.sourceIp, caller.apiKey.allowlist)) {
      const actor = apiActor(caller);
      await audit.record({
        orgId: caller.org.id,
        type: 'api_key.address_refused',
        actor,
        clientId: caller.apiKey.clientId,
        requestId: null,
        data: {
          actor: { type: actor.type, label: actor.label },
          details: { address: caller.sourceIp, route: request.event.routeKey },
        },
      });
      throw forbidden('Calls with this key are not allowed from your address.');
    }
    if (scope !== 'any' && !caller.apiKey.scopes.includes(scope)) {
      throw forbidden(`This key lacks the ${scope} scope.`);
    }
  },
});

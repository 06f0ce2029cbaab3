import ipaddr from 'ipaddr.js';
import { apiActor } from '#core/caller.ts';
import { forbidden, planRequired } from '#core/errors.ts';
import type { Scope } from '#core/model.ts';
import type { AuditTrail } from '#core/ports.ts';
import type { ApiMiddleware } from '../types.ts';

/** Whether `address` is one of the allowlist's addresses or inside one of its CIDR blocks. */
export const addressAllowed = (address: string, allowlist: string[]) => {
  if (allowlist.length === 0) return true;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(address);
  } catch {
    return false;
  }
  return allowlist.some((entry) => {
    try {
      // ipaddr.js also reads legacy IPv4 forms ('010.0.0.0/8' as octal 8.0.0.0/8, '10.1' as 10.0.0.1):
      // an entry that is not plain dotted decimal would admit another network, so it matches nothing.
      if (!entry.includes(':') && !(entry.includes('/') ? ipaddr.IPv4.isValidCIDRFourPartDecimal(entry) : ipaddr.IPv4.isValidFourPartDecimal(entry))) {
        return false;
      }
      const [range, bits] = entry.includes('/') ? ipaddr.parseCIDR(entry) : [ipaddr.process(entry), null];
      const candidate = range.kind() === parsed.kind() ? parsed : null;
      if (!candidate) return false;
      const prefix = bits ?? (range.kind() === 'ipv4' ? 32 : 128);
      return candidate.match(range, prefix);
    } catch {
      return false;
    }
  });
};

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
    if (caller.org.plan === 'free') throw planRequired();
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

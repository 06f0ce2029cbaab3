import { BlockList, isIP } from 'node:net';
import { apiActor } from '#core/caller.ts';
import { forbidden, planRequired } from '#core/errors.ts';
import type { Scope } from '#core/model.ts';
import type { AuditTrail } from '#core/ports.ts';
import type { ApiMiddleware } from '../types.ts';

/**
 * Whether `address` is one of the allowlist's addresses or inside one of its CIDR blocks.
 *
 * Node's own BlockList does the matching (it is in every runtime, where an address library would
 * add to every function's bundle). `isIP` reads only plain forms: dotted decimal for IPv4, so a
 * legacy entry such as '010.0.0.0/8' (octal elsewhere) or '10.1' matches nothing rather than
 * another network. An IPv4 rule also matches the IPv4-mapped IPv6 form of its addresses.
 */
export const addressAllowed = (address: string, allowlist: string[]) => {
  if (allowlist.length === 0) return true;
  const family = familyOf(address);
  if (!family) return false;
  return allowlist.some((entry) => {
    try {
      const [range, bits, extra] = entry.split('/');
      const rangeFamily = familyOf(range);
      if (!rangeFamily || extra !== undefined) return false;
      const maxBits = rangeFamily === 'ipv4' ? 32 : 128;
      const prefix = bits === undefined ? maxBits : /^\d{1,3}$/.test(bits) ? Number(bits) : NaN;
      if (!(prefix >= 0 && prefix <= maxBits)) return false;
      const rule = new BlockList();
      rule.addSubnet(range, prefix, rangeFamily);
      return rule.check(address, family);
    } catch {
      return false;
    }
  });
};

const familyOf = (address: string | undefined) => {
  if (!address || address.includes('%')) return null; // a zone id names a local interface, never a caller
  const version = isIP(address);
  return version === 4 ? 'ipv4' : version === 6 ? 'ipv6' : null;
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

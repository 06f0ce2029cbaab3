import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { isPublicAddress } from '#core/webhook-url.ts';

/**
 * The address an outbound call to a customer-given host connects to (webhook receivers, helpdesk
 * APIs), checked at connect time against DNS rebinding: the host is resolved here, refused if ANY
 * of its addresses is not public (loopback only when allowed), and the connection made to the
 * address checked, through a `lookup` that answers only it, so a second resolution cannot swap it.
 */
export interface ResolvedAddress {
  address: string;
  family: number;
}
/** dns.promises.lookup with `{ all: true }`; injectable so tests can make any name resolve anywhere. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolve: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export const isLoopback = (address: string) => {
  try {
    return ipaddr.process(address).range() === 'loopback';
  } catch {
    return false;
  }
};

export type AddressCheck = { ok: true; address: ResolvedAddress; allLoopback: boolean } | { ok: false; reason: 'has no address' | 'resolves to an address that is not public' };

/** The first of the host's addresses once every one is public (or loopback, when allowed); the refusal otherwise. */
export const checkHostAddresses = async (hostname: string, options: { allowLoopback: boolean; resolve: Resolver }): Promise<AddressCheck> => {
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  const addresses = ipaddr.isValid(host) ? [{ address: host, family: host.includes(':') ? 6 : 4 }] : await options.resolve(host);
  if (addresses.length === 0) return { ok: false, reason: 'has no address' };
  for (const { address } of addresses) {
    if (!isPublicAddress(address) && !(options.allowLoopback && isLoopback(address))) return { ok: false, reason: 'resolves to an address that is not public' };
  }
  return { ok: true, address: addresses[0]!, allLoopback: addresses.every(({ address }) => isLoopback(address)) };
};

/** A `lookup` for node:http(s) that answers only the address checked. */
export const pinnedLookup =
  (pinned: ResolvedAddress): LookupFunction =>
  (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: ResolvedAddress[]) => void)(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };

import { BlockList, isIP } from 'node:net';

/**
 * An API key's IP allowlist (SPEC.md, Authentication): addresses and CIDR blocks, IPv4 or IPv6.
 * One reading of an entry serves both sides: a key is created only with entries `allowlistEntry`
 * reads (core/use-cases/api-keys.ts), and a call is judged by `addressAllowed` with that same
 * reading, so an entry accepted at creation is exactly the network it lets in.
 *
 * Node's own BlockList does the matching (it is in every runtime, where an address library would
 * add to every function's bundle). `isIP` reads only plain forms: dotted decimal for IPv4, so a
 * legacy entry such as '010.0.0.0/8' (octal elsewhere) or '10.1' is no entry at all rather than
 * another network. An IPv4 rule also matches the IPv4-mapped IPv6 form of its addresses.
 */

type Family = 'ipv4' | 'ipv6';

export interface AllowlistEntry {
  range: string;
  prefix: number;
  family: Family;
}

const familyOf = (address: string | undefined): Family | null => {
  if (!address || address.includes('%')) return null; // a zone id names a local interface, never a caller
  const version = isIP(address);
  return version === 4 ? 'ipv4' : version === 6 ? 'ipv6' : null;
};

/** An address (a block of one) or a CIDR block; null for anything else. */
export const allowlistEntry = (entry: string): AllowlistEntry | null => {
  const [range, bits, extra] = entry.split('/');
  const family = familyOf(range);
  if (!family || extra !== undefined) return null;
  const maxBits = family === 'ipv4' ? 32 : 128;
  const prefix = bits === undefined ? maxBits : /^\d{1,3}$/.test(bits) ? Number(bits) : NaN;
  if (!(prefix >= 0 && prefix <= maxBits)) return null;
  return { range, prefix, family };
};

/** Whether `address` is one of the allowlist's addresses or inside one of its CIDR blocks; an empty list allows all. */
export const addressAllowed = (address: string, allowlist: string[]) => {
  if (allowlist.length === 0) return true;
  const family = familyOf(address);
  if (!family) return false;
  return allowlist.some((text) => {
    const entry = allowlistEntry(text);
    if (!entry) return false;
    try {
      const rule = new BlockList();
      rule.addSubnet(entry.range, entry.prefix, entry.family);
      return rule.check(address, family);
    } catch {
      return false;
    }
  });
};

import ipaddr from 'ipaddr.js';
import { BROKEN_ESCAPE_MESSAGE, uriOf } from './uri.ts';

/**
 * Where webhook deliveries may go: https to a public host. Checked when a subscription is made
 * (here) and again at connect time on the resolved addresses (isPublicAddress), so a name that
 * later resolves to a private address (DNS rebinding) is still refused.
 */
export type WebhookUrlCheck = { ok: true; url: string } | { ok: false; reason: string };

export interface WebhookUrlOptions {
  /**
   * Local and test use ONLY: also allow http or https to a loopback host (127.0.0.0/8, ::1,
   * localhost), for a receiver on the same machine. Never set deployed.
   */
  allowLoopback?: boolean;
}

/** Blocks refused beside what ipaddr.js's range() already names (kept explicit, so the rule reads here). */
const REFUSED_V4 = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4',
  '240.0.0.0/4',
].map((cidr) => ipaddr.IPv4.parseCIDR(cidr));

// ::/96 also covers the deprecated IPv4-compatible form (::127.0.0.1, ::10.0.0.1), which
// ipaddr.js calls unicast; nothing public lives there.
const REFUSED_V6 = ['::/96', '::1/128', 'fc00::/7', 'fe80::/10', 'ff00::/8', '2001:db8::/32'].map((cidr) => ipaddr.IPv6.parseCIDR(cidr));

const isPublicV4 = (address: ipaddr.IPv4) =>
  address.range() === 'unicast' && !REFUSED_V4.some((block) => address.match(block));

/** The IPv4 address an IPv6 address carries inside it (mapped, NAT64, 6to4), if any. */
const embeddedV4 = (address: ipaddr.IPv6): ipaddr.IPv4 | null => {
  const range = address.range();
  const bytes = address.toByteArray();
  if (range === 'ipv4Mapped' || range === 'rfc6052') return new ipaddr.IPv4(bytes.slice(12, 16));
  if (range === '6to4') return new ipaddr.IPv4(bytes.slice(2, 6));
  return null;
};

/**
 * Whether a delivery may connect to this IP address: a public unicast address, never loopback,
 * private, link-local, carrier-grade NAT, documentation, reserved, unspecified, broadcast,
 * multicast or unique-local. An IPv4-mapped (or NAT64/6to4) IPv6 address is judged as the IPv4
 * address inside it. Anything that does not parse as an address is not public.
 */
export const isPublicAddress = (ip: string): boolean => {
  const text = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return isPublicV4(ipaddr.IPv4.parse(text));
  if (!ipaddr.IPv6.isValid(text)) return false;
  let address: ipaddr.IPv6;
  try {
    address = ipaddr.IPv6.parse(text);
  } catch {
    return false;
  }
  const inner = embeddedV4(address);
  if (inner) return isPublicV4(inner);
  if (address.range() === 'teredo') return false;
  return address.range() === 'unicast' && !REFUSED_V6.some((block) => address.match(block));
};

/** Special-use names that never reach a public host. */
const REFUSED_SUFFIXES = ['localhost', 'local', 'internal', 'home.arpa', 'invalid', 'onion'];

const isLoopbackHost = (host: string) => {
  if (host === 'localhost') return true;
  if (host.startsWith('[')) {
    const text = host.slice(1, -1);
    return ipaddr.IPv6.isValid(text) && ipaddr.IPv6.parse(text).range() === 'loopback';
  }
  return ipaddr.IPv4.isValidFourPartDecimal(host) && ipaddr.IPv4.parse(host).range() === 'loopback';
};

/** A label WHATWG URL parsing reads as a number (decimal, octal or 0x hex). */
const NUMERIC_LABEL = /^(0x[0-9a-f]*|[0-9]+)$/i;

/**
 * Checks a subscription URL: https only, no credentials in it, and a public host. The URL is
 * parsed by WHATWG rules first (as the delivery's fetch will), which already turns numeric host
 * forms such as 2130706433, 0x7f000001, 0177.0.0.1 and 127.1 into dotted quads; the normalised
 * host is then judged. Answers the normalised URL (uri.ts), or the reason for refusing it.
 */
export const checkWebhookUrl = (input: string, options: WebhookUrlOptions = {}): WebhookUrlCheck => {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return { ok: false, reason: 'Must be an absolute https URL.' };
  }
  if (url.username || url.password) return { ok: false, reason: 'Must not contain a user name or password.' };
  // WHATWG takes port 0 (it refuses above 65535), but nothing can be reached on it.
  if (url.port === '0') return { ok: false, reason: 'Must name a port from 1 to 65535, or none.' };
  // As it is stored and shown: a URL by RFC 3986 too (uri.ts).
  const href = uriOf(url);
  if (href === null) return { ok: false, reason: BROKEN_ESCAPE_MESSAGE };
  const host = url.hostname.toLowerCase();

  if (options.allowLoopback && (url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackHost(host)) {
    return { ok: true, url: href };
  }
  if (url.protocol !== 'https:') return { ok: false, reason: 'Must be an https URL.' };
  if (!host) return { ok: false, reason: 'Must name a host.' };

  // An IP literal: bracketed IPv6, or IPv4 as WHATWG parsing left it.
  if (host.startsWith('[')) {
    return isPublicAddress(host) ? { ok: true, url: href } : { ok: false, reason: 'Must not point to a private, loopback or reserved address.' };
  }
  if (ipaddr.IPv4.isValidFourPartDecimal(host)) {
    return isPublicAddress(host) ? { ok: true, url: href } : { ok: false, reason: 'Must not point to a private, loopback or reserved address.' };
  }

  const name = host.endsWith('.') ? host.slice(0, -1) : host;
  const labels = name.split('.');
  // Any other numeric-looking host (a form the parser did not turn into a dotted quad) is refused.
  if (labels.every((label) => NUMERIC_LABEL.test(label) || label === '') || NUMERIC_LABEL.test(labels[labels.length - 1])) {
    return { ok: false, reason: 'Must not be a numeric host; use a public host name or address.' };
  }
  if (REFUSED_SUFFIXES.some((suffix) => name === suffix || name.endsWith(`.${suffix}`))) {
    return { ok: false, reason: 'Must be a public host, not a local or special-use name.' };
  }
  if (labels.length < 2 || labels.some((label) => label === '')) {
    return { ok: false, reason: 'Must be a fully qualified public host name.' };
  }
  return { ok: true, url: href };
};

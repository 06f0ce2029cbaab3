/**
 * The origin of a helpdesk's address, as an adapter sends its calls to it. Refuses what would send
 * a credential in clear or to a second place: anything but https (plain http to 127.0.0.1 only
 * when `allowLoopback`, for the local runtime and tests), user info, a query, a fragment or a path.
 * Whether the host is public is the integration's check (the webhook targets' rules), not this one.
 */
export const helpdeskOrigin = (url: string, vendor: string, example: string, allowLoopback: boolean): string => {
  if (!URL.canParse(url)) throw new TypeError(`The ${vendor} URL is not an absolute URL.`);
  const parsed = new URL(url);
  const loopback = allowLoopback && parsed.protocol === 'http:' && parsed.hostname === '127.0.0.1';
  if (parsed.protocol !== 'https:' && !loopback) throw new TypeError(`The ${vendor} URL must use https.`);
  if (parsed.username || parsed.password || parsed.search || parsed.hash || (parsed.pathname !== '/' && parsed.pathname !== '')) {
    throw new TypeError(`The ${vendor} URL must be the site address only, for example ${example}.`);
  }
  return parsed.origin;
};

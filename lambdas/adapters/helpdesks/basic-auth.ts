/**
 * The `Authorization` value of HTTP Basic (RFC 7617): base64 of `user:password` in UTF-8, in the
 * standard alphabet with padding (base64url or unpadded base64 is refused by some helpdesks). The
 * adapters that authenticate this way (Jira Service Management, ServiceNow, Freshdesk, Freshservice) keep only
 * this value, in a private field, so neither part is held or shown on its own.
 */
export const basicAuthorization = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;

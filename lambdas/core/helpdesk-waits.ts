import type { HelpdeskCallFailed } from './helpdesk.ts';

/**
 * Until when an integration's helpdesk asked not to be called (its Retry-After on a 429 or a 503):
 * every call to that helpdesk through the integration waits for it, whichever check,
 * reconciliation run or reply in a ticket would make the call (store/helpdesk-waits.ts).
 */
export interface HelpdeskWaits {
  /** The time asked for, if it is still ahead of `now`; null otherwise. */
  until(integrationId: string, now: Date): Promise<string | null>;
  /** Notes the time asked for; an earlier one never shortens a later one. */
  hold(integrationId: string, until: string): Promise<void>;
}

/** Holds the integration's calls for as long as a refused call asked (its Retry-After on a 429 or a 503), if it asked. */
export const holdAsAsked = async (waits: HelpdeskWaits, integrationId: string, error: HelpdeskCallFailed, now: Date) => {
  if (error.retryAfterSeconds === undefined || (error.reason !== 'rate_limited' && error.reason !== 'unavailable')) return;
  await waits.hold(integrationId, new Date(now.getTime() + error.retryAfterSeconds * 1000).toISOString());
};

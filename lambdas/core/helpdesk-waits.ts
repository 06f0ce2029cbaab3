/**
 * Until when an integration's helpdesk asked not to be called (its Retry-After on a 429 or a 503):
 * every read of that integration's tickets waits for it, whichever check or reconciliation run
 * would make the read (store/helpdesk-waits.ts).
 */
export interface HelpdeskWaits {
  /** The time asked for, if it is still ahead of `now`; null otherwise. */
  until(integrationId: string, now: Date): Promise<string | null>;
  /** Notes the time asked for; an earlier one never shortens a later one. */
  hold(integrationId: string, until: string): Promise<void>;
}

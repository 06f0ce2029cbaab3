import { systemClock, type Clock } from '#core/clock.ts';
import { HelpdeskHttp } from './helpdesk-http.ts';
import { helpdeskOrigin } from './helpdesk-origin.ts';

/** What an adapter takes beside its configuration. */
export interface HelpdeskAdapterSetup {
  clock?: Clock;
  /** Per call; see helpdesk-http.ts. */
  timeoutMs?: number;
  /** Plain http to 127.0.0.1: the local runtime and tests only. */
  allowLoopback?: boolean;
  http?: HelpdeskHttp;
}

/**
 * What every adapter sets up before its first call: the helpdesk's origin (checked as
 * helpdesk-origin.ts does, with `example` in its refusal), the clock that dates each read, and the
 * one HTTP client its calls go through.
 */
export const adapterBasics = (url: string, vendor: string, example: string, setup: HelpdeskAdapterSetup) => {
  const origin = helpdeskOrigin(url, vendor, example, setup.allowLoopback === true);
  const clock = setup.clock ?? systemClock;
  const http = setup.http ?? new HelpdeskHttp({ timeoutMs: setup.timeoutMs, clock, allowLoopback: setup.allowLoopback });
  return { origin, clock, http };
};

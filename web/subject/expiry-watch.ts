/// <reference lib="dom" />
/**
 * The link's time limit, told to the subject before it runs out.
 *
 * A link may be valid for as little as five minutes (the organisation's policy), and a subject may
 * spend them finding the password. The limit is a security one the subject cannot extend, so the
 * page warns in advance instead (WCAG 2.2.1): two minutes before the link expires it says so in
 * an alert, and once the time is up it asks the service, whose clock decides, and ends the page
 * when the service says the link is closed. The browser's clock only decides when to ask.
 *
 * The check runs on a short interval rather than one long timer, so a device woken from sleep
 * past the warning or the expiry catches up at once.
 */
export const WARNING_BEFORE_MS = 2 * 60_000;
const TICK_MS = 10_000;
/** How often the service is asked again while its clock still says the link is open. */
const RECHECK_MS = 30_000;

export interface ExpiryWatchOptions {
  expiresAt: string;
  /** Whether the subject is still in the flow (verifying or entering the credential). */
  active: () => boolean;
  /** Shows and announces the text; an empty text clears it. */
  show: (text: string) => void;
  /** Asks the service whether the link still works; ends the page itself when it does not. */
  askService: () => Promise<void>;
  formatTime: (iso: string) => string;
  now?: () => number;
}

export const warningText = (expiresAt: string, formatTime: (iso: string) => string) =>
  `This link expires at ${formatTime(expiresAt)}, in less than two minutes. Send the credential before then; after that, ask the person who sent it for a new link.`;

export const watchExpiry = (options: ExpiryWatchOptions) => {
  const now = options.now ?? Date.now;
  const expiresAt = Date.parse(options.expiresAt);
  if (Number.isNaN(expiresAt)) return () => undefined;
  let warned = false;
  let nextAsk = expiresAt;
  let asking = false;

  const tick = () => {
    if (!options.active()) return stop();
    const time = now();
    if (!warned && time >= expiresAt - WARNING_BEFORE_MS) {
      warned = true;
      options.show(warningText(options.expiresAt, options.formatTime));
    }
    if (time >= nextAsk && !asking) {
      asking = true;
      nextAsk = time + RECHECK_MS;
      void options.askService().finally(() => {
        asking = false;
        if (!options.active()) stop();
      });
    }
  };
  const timer = setInterval(tick, TICK_MS);
  const stop = () => {
    clearInterval(timer);
    options.show('');
  };
  tick();
  return stop;
};

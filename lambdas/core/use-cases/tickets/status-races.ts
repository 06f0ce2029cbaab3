/**
 * A helpdesk can post a burst of statuses for one ticket (every edit of it re-sends the status), and
 * each takes a record's version in turn, a request's or a share's: enough rounds for a burst of that
 * size to settle, with jittered waits so the losers spread out.
 */
export const MAX_STATUS_RACES = 30;
export const statusRaceBackoff = (race: number) => new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 ** race)));

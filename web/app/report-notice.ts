/// <reference lib="dom" />
/**
 * A subject's "Report this request", told where the request's members look: its page and its row
 * in My requests. A report means the person holding the link did not expect it (a wrong address,
 * or someone posing as the organisation), so the requester must hear of it, not find it only as
 * the last line of the trail.
 */
import { formatTime, h } from '../shared/dom.ts';
import type { AuditEntry } from './shapes.ts';

/** The request page's notice of the subject's reports, from its trail; null when there are none. */
export const reportNotice = (trail: AuditEntry[]) => {
  const reports = trail.filter((entry) => entry.type === 'request.reported');
  if (reports.length === 0) return null;
  const newest = reports.reduce((latest, entry) => (entry.seq > latest.seq ? entry : latest));
  const reason = typeof newest.details?.reason === 'string' && newest.details.reason !== '' ? newest.details.reason : null;
  const times = reports.length > 1 ? ` ${reports.length} times, last` : '';
  return h(
    'p',
    { id: 'reported', class: 'notice' },
    h('strong', {}, `The subject reported this request as unexpected${times} on ${formatTime(newest.occurred_at)}. `),
    reason ? `They wrote: “${reason}” ` : null,
    'Check with them, on a phone number or address you already know, before sending them anything again; revoke the request if it was not meant for them.',
  );
};

/** The word beside a reported request's status in My requests. */
export const reportedHint = (request: { reported?: boolean }) => (request.reported ? h('span', { class: 'hint' }, ' · reported by the subject') : null);

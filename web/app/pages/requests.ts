/// <reference lib="dom" />
/**
 * My requests (/app and /app/requests): the requests the member asked for or receives, newest
 * first, with a notice while this browser cannot open their credentials.
 *
 * Stable hooks for automated tests:
 *   #requests (table), each row's link a[data-request-id="<id>"], #new-request
 */
import { formatTime, h, tableWrap } from '../../shared/dom.ts';
import type { AppContext } from '../context.ts';
import { loadKey } from '../keystore.ts';
import { statusBadge } from '../labels.ts';
import { reportedHint } from '../report-notice.ts';
import type { ListedRequest, RequestView } from '../shapes.ts';

/** A word beside the status when the request needs its owner: a new link, or nobody can open what it holds. */
const attention = (request: RequestView) =>
  request.unrecoverable && request.status === 'submitted'
    ? h('span', { class: 'hint' }, ' · nobody can open it')
    : request.needs_relink && ['pending', 'opened'].includes(request.status)
      ? h('span', { class: 'hint' }, ' · needs a new link')
      : null;

export const requestsPage = async (app: AppContext) => {
  const [{ data }, local] = await Promise.all([
    app.get<{ data: ListedRequest[] }>('/app/api/requests'),
    loadKey(app.me().member.membership_id).catch(() => null),
  ]);
  const keyNotice =
    !local || local.fingerprint !== app.me().member.identity_key?.fingerprint
      ? h('p', { class: 'notice' }, 'This browser cannot open credentials yet. ', h('a', { href: '/app/key' }, 'Set up or import your key'), '.')
      : null;
  const expiresAt = (request: RequestView) =>
    request.status === 'submitted' ? request.record_expires_at : ['pending', 'opened'].includes(request.status) ? request.link_expires_at : null;
  const row = (request: ListedRequest) =>
    h(
      'tr',
      {},
      h('th', { scope: 'row', class: 'subject-cell' }, h('a', { href: `/app/requests/${request.id}`, 'data-request-id': request.id }, request.subject.name)),
      h('td', {}, request.client?.name ?? '—'),
      h('td', {}, statusBadge(request.status), attention(request), reportedHint(request)),
      h('td', { class: 'when' }, formatTime(request.created_at, 'short')),
      h('td', { class: 'when' }, formatTime(request.submitted_at, 'short')),
      h('td', { class: 'when' }, formatTime(expiresAt(request), 'short')),
    );
  const table = h(
    'table',
    { id: 'requests' },
    h('caption', {}, 'Requests you asked for or receive, newest first'),
    h('thead', {}, h('tr', {}, ...['Subject', 'Client', 'Status', 'Created', 'Submitted', 'Expires'].map((text) => h('th', { scope: 'col' }, text)))),
    h('tbody', {}, ...data.map(row)),
  );
  const body = data.length === 0 ? h('p', {}, 'No requests yet.') : tableWrap(table);
  const newRequest = h('p', {}, h('a', { id: 'new-request', href: '/app/requests/new', class: 'button' }, 'New request'));
  return h('div', {}, h('h1', {}, 'My requests'), keyNotice, newRequest, body);
};

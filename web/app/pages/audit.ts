/// <reference lib="dom" />
/**
 * The audit log (/app/audit, owners and admins): the organisation's hash-chained audit entries,
 * newest first, filtered by type, request, acting member and days; each entry shows its hash link
 * and whether it matches the entry before it; the filtered log exports as CSV or JSON (built in
 * this browser from the same pages); entries about a request link to it, where its custody
 * certificate is downloaded once it has ended. The filters live in the address, so a view can be
 * bookmarked or sent to a colleague. Its second tab, `?view=api_reads`, shows the reads through API
 * keys instead (pages/api-reads.ts).
 *
 * Stable hooks for automated tests:
 *   #audit-tabs, #audit-filters #filter-type #filter-request #filter-member #filter-from #filter-to #apply-filters
 *   #audit-log (table; rows tr[data-seq], a link's cell .chain[data-linked="true|false|unknown"])
 *   #no-entries #load-older #export-csv #export-json; button[data-certificate="<request id>"] on an entry that ended its request
 *   a filter's refusal in #<control id>-error, and #filters-refused instead of the table
 */
import { busy, field, formatTime, h, replaceChildren, say } from '../../shared/dom.ts';
import { ENDING_TYPES } from '../../../lambdas/core/custody/custody-facts.ts';
import { auditViewPage, exportButtons, firstPageOf, requestIdIn, submitFilters, toCsv } from '../audit-log-parts.ts';
import { downloadCertificate } from '../certificate-download.ts';
import type { AppContext } from '../context.ts';
import { olderPages } from '../older-pages.ts';
import { actorOf, auditText } from '../labels.ts';
import type { Member } from '../shapes.ts';
import { apiReadsPage } from './api-reads.ts';

/** One entry of GET /app/api/audit. */
export interface AuditRow {
  seq: number;
  type: string;
  occurred_at: string;
  actor: { type: string; label: string | null; id: string | null };
  request_id: string | null;
  share_id: string | null;
  /** The member the entry is about (added, disabled, a role or key changed). */
  member: { membership_id: string; name: string | null; email: string | null } | null;
  details: Record<string, unknown>;
  prev_hash: string;
  hash: string;
  /** Whether the entry's content is still what its hash was made of (false: edited after it was chained). */
  hash_matches: boolean;
}

const FILTERS = ['type', 'request_id', 'member_id', 'from', 'to'] as const;

const short = (hash: string) => `${hash.slice(0, 8)}…`;

const CSV_HEADER = ['seq', 'occurred_at', 'type', 'actor_type', 'actor_label', 'request_id', 'share_id', 'member_id', 'member_email', 'details', 'prev_hash', 'hash', 'hash_matches'];
const csvOf = (rows: AuditRow[]) =>
  toCsv(
    CSV_HEADER,
    rows.map((r) => [r.seq, r.occurred_at, r.type, r.actor.type, r.actor.label, r.request_id, r.share_id, r.member?.membership_id ?? null, r.member?.email ?? null, r.details, r.prev_hash, r.hash, String(r.hash_matches)]),
  );

/**
 * The request's page, and where the entry ended the request, its custody certificate (PDF): the
 * certificate exists from the moment a request ends, so an auditor reading the log gets the proof
 * beside the entry that made it final.
 */
const requestCell = (requestId: string, type: string) => {
  const link = h('a', { href: `/app/requests/${requestId}` }, 'Request');
  if (!ENDING_TYPES.has(type)) return link;
  const download = h('button', { type: 'button', class: 'link-button', 'data-certificate': requestId, 'aria-label': `Download the custody certificate of request ${requestId} (PDF)` }, 'Certificate');
  download.addEventListener('click', () => busy(download, () => downloadCertificate('requests', requestId, 'pdf')));
  return h('span', { class: 'cell-actions' }, link, ' · ', download);
};

/** What the entry is about: a request (with its certificate once ended), a share, or a member. */
const aboutCell = (row: AuditRow) => {
  if (row.request_id) return requestCell(row.request_id, row.type);
  if (row.share_id) return h('a', { href: `/app/shares/${row.share_id}` }, 'Share');
  if (row.member) return h('span', {}, row.member.name ?? 'Member', row.member.email ? h('span', { class: 'sub' }, row.member.email) : null);
  return '—';
};

export const auditPage = async (app: AppContext) => {
  if (!app.isAdmin()) return h('div', {}, h('h1', {}, 'Audit log'), h('p', {}, 'Only owners and admins can see this page.'));
  const filters = new URLSearchParams(location.search);
  if (filters.get('view') === 'api_reads') return apiReadsPage(app);
  const query = () => {
    const params = new URLSearchParams();
    for (const name of FILTERS) if (filters.get(name)) params.set(name, filters.get(name)!);
    return params;
  };
  const [{ first, refused }, members] = await Promise.all([
    firstPageOf<AuditRow>(app, query()),
    app.get<{ data: Member[] }>('/app/api/members').then((answer) => answer.data).catch(() => [] as Member[]),
  ]);
  // Filters applied (the page is shown afresh, its heading focused): say what they found.
  if (query().size > 0 && !refused) say(first.data.length === 0 ? 'No entries match these filters.' : `Showing the entries that match these filters, newest first${first.has_more ? '; older ones below' : ''}.`);

  const type = h('input', { id: 'filter-type', name: 'type', type: 'text', spellcheck: 'false', autocomplete: 'off', value: filters.get('type') ?? '' });
  // No maxlength: it would cut a pasted id with a space before it, or a request's address, short.
  const request = h('input', { id: 'filter-request', name: 'request_id', type: 'text', spellcheck: 'false', autocomplete: 'off', value: filters.get('request_id') ?? '' });
  const member = h(
    'select',
    { id: 'filter-member', name: 'member_id' },
    h('option', { value: '' }, 'Anyone'),
    ...members.map((m) => h('option', { value: m.membership_id, selected: m.membership_id === filters.get('member_id') }, m.name ?? m.email ?? m.membership_id)),
  );
  const from = h('input', { id: 'filter-from', name: 'from', type: 'date', value: filters.get('from') ?? '' });
  const to = h('input', { id: 'filter-to', name: 'to', type: 'date', value: filters.get('to') ?? '' });
  const apply = h('button', { id: 'apply-filters', type: 'submit' }, 'Show');
  const form = h(
    'form',
    { id: 'audit-filters', class: 'filters', role: 'search', 'aria-label': 'Filter the audit log' },
    field('Type', type, 'For example request.revealed; leave empty for every type.'),
    field('Request id', request, 'The id, or the request page’s address.'),
    field('Done by', member),
    field('From (day, UTC)', from),
    field('To (day, UTC, included)', to),
    apply,
  );
  submitFilters(app, form, {
    base: new URLSearchParams(),
    controls: { type: 'filter-type', request_id: 'filter-request', member_id: 'filter-member', from: 'filter-from', to: 'filter-to' },
    values: (): Record<(typeof FILTERS)[number], string> => ({ type: type.value.trim(), request_id: requestIdIn(request.value), member_id: member.value, from: from.value, to: to.value }),
    refused,
  });

  const body = h('tbody', {});
  const linkCell = (row: AuditRow, older: AuditRow | undefined) => {
    const linked = older && older.seq === row.seq - 1 ? String(older.hash === row.prev_hash) : 'unknown';
    const words = linked === 'true' ? `links to #${row.seq - 1}` : linked === 'false' ? `does not match #${row.seq - 1}` : `previous ${short(row.prev_hash)}`;
    return h(
      'td',
      { class: 'chain', 'data-linked': linked, 'data-content': row.hash_matches ? 'matches' : 'edited' },
      // The whole hash by keyboard and screen reader too, not in a hover-only tooltip; folded,
      // since 64 hex digits on every row are read out and crowd a narrow screen.
      h(
        'details',
        { class: 'hash' },
        h('summary', { 'aria-label': `${short(row.hash)} (show the whole hash)` }, h('code', {}, short(row.hash))),
        h('code', { class: 'whole-hash' }, row.hash),
      ),
      h('span', { class: 'sub' }, words),
      // An entry edited in the table keeps its links; its own hash no longer fits its content.
      row.hash_matches ? null : h('span', { class: 'sub tampered' }, 'edited: its content does not match its hash'),
    );
  };
  const renderRows = (rows: AuditRow[]) =>
    replaceChildren(
      body,
      ...rows.map((row, index) =>
        h(
          'tr',
          { 'data-seq': row.seq },
          h('td', { class: 'nowrap' }, String(row.seq)),
          h('td', { class: 'nowrap' }, formatTime(row.occurred_at, 'short')),
          // The stored type under the words: it is what the Type filter and the exports take.
          h('th', { scope: 'row' }, auditText(row.type), auditText(row.type) === row.type ? null : h('code', { class: 'sub' }, row.type)),
          h('td', {}, actorOf(row.actor)),
          h('td', {}, aboutCell(row)),
          linkCell(row, rows[index + 1]),
        ),
      ),
    );
  const { rows, button: older } = olderPages(app, { path: '/app/api/audit', query, first, body, render: renderRows, noun: 'entries' });

  return auditViewPage({
    tab: 'chain',
    intro: 'Every change in your organisation, in one chain: each entry’s hash is made of its content and of the hash of the one before, so a removed or edited entry shows. Custody certificates are on each ended request’s page.',
    form,
    exports: exportButtons<AuditRow>(app, query, { name: 'audit-log', csv: csvOf, json: (all) => ({ entries: all }) }),
    table: { id: 'audit-log', caption: 'Audit entries, newest first, with each entry’s hash and its link to the one before', columns: ['#', 'When', 'What', 'Who', 'About', 'Hash link'], body },
    empty: rows.length === 0 ? { id: 'no-entries', text: 'No entries match these filters.' } : null,
    older,
    refused: refused !== null,
  });
};

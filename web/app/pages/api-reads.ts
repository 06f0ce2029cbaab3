/// <reference lib="dom" />
/**
 * The audit log's API reads (/app/audit?view=api_reads, owners and admins): what each API key read,
 * newest first, from the records reads leave beside the hash chain (kept 90 days): when, which
 * key, which route, the records it named (requests linked to their pages), whether it was served
 * or refused, and from which address; filtered by key, by a request read and by days; exported as
 * CSV or JSON like the chain. The filters live in the address, as the chain's do.
 *
 * Stable hooks for automated tests:
 *   #audit-tabs, #api-read-filters #filter-key #filter-request #filter-from #filter-to #apply-filters
 *   #api-reads (table; rows tr[data-read-id]), #no-reads #load-older #export-csv #export-json
 *   a filter's refusal in #<control id>-error, and #filters-refused instead of the table
 */
import { field, formatTime, h, replaceChildren } from '../../shared/dom.ts';
import { auditViewPage, exportButtons, firstPageOf, requestIdIn, submitFilters, toCsv } from '../audit-log-parts.ts';
import type { AppContext } from '../context.ts';
import { olderPages } from '../older-pages.ts';

/** One record of GET /app/api/audit?view=api_reads. */
export interface ApiReadRow {
  id: string;
  occurred_at: string;
  key: { id: string; name: string };
  route: string;
  status: 200 | 403 | 404;
  client_id: string | null;
  source_ip: string;
  records: { requests?: string[]; shares?: string[]; webhooks?: string[]; events?: { count: number; first?: string; last?: string }; omitted?: number };
}

const FILTERS = ['key_id', 'request_id', 'from', 'to'] as const;
/** Ids a row shows; the export has them all. */
const SHOWN_IDS = 5;

const OUTCOMES: Record<number, string> = { 200: 'Read', 403: 'Refused (403)', 404: 'Not found (404)' };

const CSV_HEADER = ['id', 'occurred_at', 'key_id', 'key_name', 'route', 'status', 'client_id', 'source_ip', 'requests', 'shares', 'webhooks', 'events_count', 'events_first', 'events_last', 'omitted'];
const csvOf = (rows: ApiReadRow[]) =>
  toCsv(
    CSV_HEADER,
    rows.map(({ records: r, ...row }) => [
      row.id, row.occurred_at, row.key.id, row.key.name, row.route, row.status, row.client_id, row.source_ip,
      r.requests?.join(' '), r.shares?.join(' '), r.webhooks?.join(' '), r.events?.count, r.events?.first, r.events?.last, r.omitted,
    ]),
  );

/** The records a read named: requests link to their pages, webhooks to theirs; events as their range. */
const recordsCell = ({ records }: ApiReadRow) => {
  const parts: Array<Node | string> = [];
  const ids = (label: string, list: string[] | undefined, href?: (id: string) => string) => {
    if (!list?.length) return;
    const shown = list.slice(0, SHOWN_IDS).map((id) => (href ? h('a', { href: href(id) }, h('code', {}, id)) : h('code', {}, id)));
    parts.push(h('span', { class: 'read-records' }, `${label} (${list.length}): `, ...shown.flatMap((link, index) => (index ? [', ', link] : [link])), list.length > SHOWN_IDS ? ` and ${list.length - SHOWN_IDS} more` : ''));
  };
  ids('Requests', records.requests, (id) => `/app/requests/${id}`);
  ids('Shares', records.shares, (id) => `/app/shares/${id}`);
  ids('Webhooks', records.webhooks, (id) => `/app/webhooks/${id}`);
  if (records.events) parts.push(h('span', { class: 'read-records' }, records.events.count ? `Events (${records.events.count}): ${records.events.first} to ${records.events.last}` : 'Events: none'));
  if (records.omitted) parts.push(h('span', { class: 'sub' }, `and ${records.omitted} more ids, counted but not named`));
  return parts.length ? parts : ['—'];
};

export const apiReadsPage = async (app: AppContext) => {
  const filters = new URLSearchParams(location.search);
  const query = () => {
    const params = new URLSearchParams({ view: 'api_reads' });
    for (const name of FILTERS) if (filters.get(name)) params.set(name, filters.get(name)!);
    return params;
  };
  const [{ first, refused }, keys] = await Promise.all([
    firstPageOf<ApiReadRow>(app, query()),
    app.get<{ data: Array<{ id: string; name: string; state: string }> }>('/app/api/keys').then((answer) => answer.data).catch(() => []),
  ]);

  const key = h(
    'select',
    { id: 'filter-key', name: 'key_id' },
    h('option', { value: '' }, 'Any key'),
    ...keys.map((k) => h('option', { value: k.id, selected: k.id === filters.get('key_id') }, k.state === 'active' ? k.name : `${k.name} (${k.state})`)),
  );
  // No maxlength: it would cut a pasted id with a space before it, or a request's address, short.
  const request = h('input', { id: 'filter-request', name: 'request_id', type: 'text', spellcheck: 'false', autocomplete: 'off', value: filters.get('request_id') ?? '' });
  const from = h('input', { id: 'filter-from', name: 'from', type: 'date', value: filters.get('from') ?? '' });
  const to = h('input', { id: 'filter-to', name: 'to', type: 'date', value: filters.get('to') ?? '' });
  const form = h(
    'form',
    { id: 'api-read-filters', class: 'filters', role: 'search', 'aria-label': 'Filter the API reads' },
    field('Key', key),
    field('Request id', request, 'Reads that named this request: its id, or its page’s address.'),
    field('From (day, UTC)', from),
    field('To (day, UTC, included)', to),
    h('button', { id: 'apply-filters', type: 'submit' }, 'Show'),
  );
  submitFilters(app, form, {
    base: new URLSearchParams({ view: 'api_reads' }),
    controls: { key_id: 'filter-key', request_id: 'filter-request', from: 'filter-from', to: 'filter-to' },
    values: (): Record<(typeof FILTERS)[number], string> => ({ key_id: key.value, request_id: requestIdIn(request.value), from: from.value, to: to.value }),
    refused,
  });

  const body = h('tbody', {});
  const renderRows = (rows: ApiReadRow[]) =>
    replaceChildren(
      body,
      ...rows.map((row) =>
        h(
          'tr',
          { 'data-read-id': row.id },
          h('td', { class: 'nowrap' }, formatTime(row.occurred_at, 'short')),
          h('th', { scope: 'row' }, row.key.name),
          h('td', {}, h('code', {}, row.route)),
          h('td', {}, ...recordsCell(row)),
          h('td', { 'data-status': row.status }, OUTCOMES[row.status] ?? String(row.status)),
          h('td', {}, h('code', {}, row.source_ip)),
        ),
      ),
    );
  const { rows, button: older } = olderPages(app, { path: '/app/api/audit', query, first, body, render: renderRows, noun: 'reads' });

  return auditViewPage({
    tab: 'api_reads',
    intro: 'Every read through an API key, served or refused: which key, what it read and from where. Reads are not changes, so they are kept beside the hash chain, for 90 days.',
    form,
    exports: exportButtons<ApiReadRow>(app, query, { name: 'api-reads', csv: csvOf, json: (all) => ({ api_reads: all }) }),
    table: { id: 'api-reads', caption: 'Reads through API keys, newest first', columns: ['When', 'Key', 'Route', 'Records', 'Outcome', 'Address'], body },
    empty: rows.length === 0 ? { id: 'no-reads', text: 'No API reads match these filters.' } : null,
    older,
    refused: refused !== null,
  });
};

/// <reference lib="dom" />
/**
 * What both views of the audit log (/app/audit: the chain, and the API reads) share: the tabs
 * between them, the page's layout, the filters (read as people paste them, refused under the
 * filter they are about) and the CSV and JSON export, built in this browser from the same
 * filtered pages the view shows (the button that shows older pages is in older-pages.ts).
 */
import { messageOf } from '../shared/api.ts';
import { busy, h, say, sayError, tableWrap } from '../shared/dom.ts';
import type { AppContext } from './context.ts';
import { fieldErrors, refusedFields, type FieldErrors } from './field-errors.ts';
import type { LogPage } from './older-pages.ts';
import { tabRow } from './tabs.ts';

/** Enough for any audit an organisation runs from a browser; beyond it, the event feed or the CLI. */
export const EXPORT_CAP = 10_000;

const AUDIT_TABS = [
  ['/app/audit', 'Changes (hash chain)', 'chain'],
  ['/app/audit?view=api_reads', 'API reads', 'api_reads'],
] as const;
export type AuditView = (typeof AUDIT_TABS)[number][2];

export const auditTabs = (current: AuditView) => tabRow('Audit log', AUDIT_TABS, current, 'audit-tabs');

/**
 * The request id in what was typed or pasted: people copy it with a space around it, in capitals
 * from a printed certificate, or as the request page's whole address, and the service takes only
 * the bare lower-case id.
 */
export const requestIdIn = (text: string) => {
  const trimmed = text.trim();
  const inAddress = /\/app\/requests\/([0-9a-z]{26})(?=[/?#]|$)/i.exec(trimmed);
  return (inAddress?.[1] ?? trimmed).toLowerCase();
};

const NO_ROWS = { data: [], has_more: false, next_before: null };

/**
 * A view's first page, or the service's refusal of its filters by field (an address bookmarked or
 * edited by hand, a value the form could not check), with no rows, so the view shows the refusal
 * under the filter it is about instead of giving up on the whole page.
 */
export const firstPageOf = async <Row>(app: AppContext, query: URLSearchParams): Promise<{ first: LogPage<Row>; refused: FieldErrors | null }> => {
  try {
    return { first: await app.get<LogPage<Row>>(`/app/api/audit?${query}`), refused: null };
  } catch (error) {
    const refused = refusedFields(error);
    if (!refused) throw error;
    return { first: NO_ROWS, refused };
  }
};

/**
 * A view's filter form: each filter's refusal under it (`controls`, the control's id by query name),
 * the service's refusal of the filters in the address among them. On Show, what was checked here
 * is refused before anything is sent; the rest goes to the view's address (`base` holds the view),
 * so the filters can be bookmarked.
 */
export const submitFilters = (
  app: AppContext,
  form: HTMLFormElement,
  options: { base: URLSearchParams; controls: Record<string, string>; values: () => Record<string, string>; refused: FieldErrors | null },
) => {
  const errors = fieldErrors(form, options.controls);
  if (options.refused) errors.show(options.refused);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const values = options.values();
    const local: FieldErrors = {};
    if (values.request_id && !/^[0-9a-z]{26}$/.test(values.request_id)) local.request_id = ['Must be a request’s 26-character id, or the address of its page.'];
    // Days as the date controls give them (YYYY-MM-DD), so they compare as text.
    if (values.from && values.to && values.from > values.to) local.from = ['Must be on or before To.'];
    if (Object.keys(local).length) return errors.show(local);
    const params = new URLSearchParams(options.base);
    for (const [name, value] of Object.entries(values)) if (value) params.set(name, value);
    app.navigate(`/app/audit${params.size ? `?${params}` : ''}`, { focus: true });
  });
};

/**
 * A view's page: the heading and the tabs, a line on what it shows, its filters and export buttons,
 * its table (or `empty` when nothing matches), and the button for older pages under it. Filters the
 * service refused leave no rows to export or show: the page says to fix them instead.
 */
export const auditViewPage = (view: {
  tab: AuditView;
  intro: string;
  form: HTMLFormElement;
  exports: HTMLButtonElement[];
  table: { id: string; caption: string; columns: readonly string[]; body: HTMLTableSectionElement };
  empty: { id: string; text: string } | null;
  older: HTMLButtonElement;
  refused: boolean;
}) => {
  const { id, caption, columns, body } = view.table;
  const table = h('table', { id }, h('caption', {}, caption), h('thead', {}, h('tr', {}, ...columns.map((text) => h('th', { scope: 'col' }, text)))), body);
  return h(
    'div',
    {},
    h('h1', {}, 'Audit log'),
    auditTabs(view.tab),
    h('p', {}, view.intro),
    view.form,
    view.refused ? h('p', { id: 'filters-refused' }, 'Nothing is shown until the filters marked above are fixed.') : null,
    view.refused ? null : h('div', { class: 'actions' }, ...view.exports),
    view.refused ? null : view.empty ? h('p', { id: view.empty.id }, view.empty.text) : tableWrap(table),
    view.older,
  );
};

const csvCell = (value: unknown) => {
  const text = value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  // A cell a spreadsheet would run as a formula is quoted as text.
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
};

/** A header line and one line per row, CRLF, as spreadsheets expect. */
export const toCsv = (header: readonly string[], rows: ReadonlyArray<readonly unknown[]>) =>
  [header.join(','), ...rows.map((cells) => cells.map(csvCell).join(','))].join('\r\n');

/** Every row the view's filters match, page after page (200 a page), up to EXPORT_CAP. */
const everyRow = async <Row>(app: AppContext, filters: URLSearchParams) => {
  const all: Row[] = [];
  let before: string | null = null;
  do {
    const params = new URLSearchParams(filters);
    params.set('limit', '200');
    if (before) params.set('before', before);
    const page: LogPage<Row> = await app.get<LogPage<Row>>(`/app/api/audit?${params}`);
    all.push(...page.data);
    before = page.next_before;
  } while (before && all.length < EXPORT_CAP);
  return all.slice(0, EXPORT_CAP);
};

export interface ExportFormat<Row> {
  /** The file's name without its extension. */
  name: string;
  csv(rows: Row[]): string;
  /** The rows under their own member (`entries`, `api_reads`). */
  json(rows: Row[]): Record<string, Row[]>;
}

/**
 * The JSON file: when it was made and with which filters beside the rows, so that whoever reads it
 * later can tell the gaps a filter leaves from entries missing from the chain.
 */
const jsonExport = <Row>(format: ExportFormat<Row>, rows: Row[], filters: URLSearchParams) => ({
  exported_at: new Date().toISOString(),
  filters: Object.fromEntries(filters),
  ...format.json(rows),
});

/** The two export buttons (#export-csv, #export-json) of a view. */
export const exportButtons = <Row>(app: AppContext, filters: () => URLSearchParams, format: ExportFormat<Row>) =>
  (['csv', 'json'] as const).map((kind) => {
    const button = h('button', { id: `export-${kind}`, type: 'button', class: 'secondary' }, `Export as ${kind.toUpperCase()}`);
    button.addEventListener('click', () =>
      busy(button, async () => {
        try {
          const used = filters();
          const all = await everyRow<Row>(app, used);
          const blob = kind === 'csv' ? new Blob([format.csv(all)], { type: 'text/csv' }) : new Blob([JSON.stringify(jsonExport(format, all, used), null, 2)], { type: 'application/json' });
          h('a', { href: app.objectUrl(blob), download: `${format.name}.${kind}` }).click();
          say(`${all.length} entries exported as ${kind.toUpperCase()}.`);
        } catch (error) {
          sayError(messageOf(error));
        }
      }),
    );
    return button;
  });

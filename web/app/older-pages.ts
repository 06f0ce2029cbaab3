/// <reference lib="dom" />
/**
 * The member application's newest-first lists that page with `before` (the audit log's two views,
 * a webhook's deliveries): the first page is shown, and a button under the table adds the next
 * older page to it.
 */
import { messageOf } from '../shared/api.ts';
import { busy, h, say, sayError } from '../shared/dom.ts';
import type { AppContext } from './context.ts';

/** A page of such a list, as its endpoint answers it. */
export interface LogPage<Row> {
  data: Row[];
  has_more: boolean;
  next_before: string | null;
}

export interface OlderPagesOptions<Row> {
  /** The list's endpoint, e.g. `/app/api/audit`. */
  path: string;
  /** The query of the view shown (its filters), without `before`. */
  query: () => URLSearchParams;
  first: LogPage<Row>;
  /** The table body `render` draws into: one row element per row, in order. */
  body: HTMLTableSectionElement;
  /** Draws every row shown so far, each time they grow. */
  render: (rows: Row[]) => void;
  /** What the rows are, plural: "Show older <noun>". */
  noun: string;
}

/**
 * Where focus goes once an older page is shown: the first row it added (made focusable), so a
 * keyboard or screen-reader user goes on reading where the new rows begin, and Tab then leads
 * through them back to the button. A page that added nothing leaves focus on the button, or on the
 * last row when the button has gone (focus is never dropped onto the page itself).
 */
const focusAfterPage = (body: HTMLTableSectionElement, firstAdded: number, button: HTMLButtonElement) => {
  const target: HTMLElement | undefined = body.rows[firstAdded] ?? (button.hidden ? body.rows[body.rows.length - 1] : button);
  if (!target) return;
  if (target !== button) target.setAttribute('tabindex', '-1');
  target.focus();
};

/**
 * The rows shown, starting with the first page, and the button (#load-older) that adds the next
 * older page under them; hidden when there is none.
 */
export const olderPages = <Row>(app: AppContext, options: OlderPagesOptions<Row>) => {
  const { path, query, first, body, render, noun } = options;
  const rows = [...first.data];
  let next = first.next_before;
  const button = h('button', { id: 'load-older', type: 'button', class: 'secondary', hidden: !next }, `Show older ${noun}`);
  const showNext = async () => {
    try {
      const params = query();
      params.set('before', next!);
      const page = await app.get<LogPage<Row>>(`${path}?${params}`);
      rows.push(...page.data);
      next = page.next_before;
      button.hidden = !next;
      render(rows);
      say(`${page.data.length} older ${noun} shown${next ? '' : '; there are no older ones'}.`);
    } catch (error) {
      sayError(messageOf(error));
    }
  };
  button.addEventListener('click', async () => {
    const firstAdded = rows.length;
    await busy(button, showNext);
    // After busy: the button was disabled meanwhile, and a disabled button takes no focus.
    focusAfterPage(body, firstAdded, button);
  });
  render(rows);
  return { rows, button };
};

/// <reference lib="dom" />
/**
 * A tiny element builder. Every text from the server goes in as a text node, never as HTML, so
 * nothing a request holds (names, justification, notes) can run as markup.
 */
type Child = Node | string | number | null | undefined | false;
type Attributes = Record<string, string | number | boolean | null | undefined | ((event: Event) => void)>;

export const h = <K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Attributes = {}, ...children: Child[]): HTMLElementTagNameMap[K] => {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.replace(/^on/, '').toLowerCase(), value);
    else if (value === true) element.setAttribute(name, '');
    else element.setAttribute(name, String(value));
  }
  append(element, ...children);
  return element;
};

export const append = (parent: Node, ...children: Child[]) => {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
  return parent;
};

export const replaceChildren = (parent: Element, ...children: Child[]) => {
  parent.replaceChildren();
  return append(parent, ...children);
};

export const byId = <T extends HTMLElement = HTMLElement>(id: string) => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`#${id} is missing from the page`);
  return element as T;
};

/** A labelled field: <label for> and its control, with an optional hint tied by aria-describedby. */
export const field = (label: string, control: HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement, hint?: string) => {
  const hintId = hint ? `${control.id}-hint` : null;
  if (hintId) control.setAttribute('aria-describedby', hintId);
  return h('div', { class: 'field' }, h('label', { for: control.id }, label), hintId ? h('p', { class: 'hint', id: hintId }, hint) : null, control);
};

/** Messages for the page's live regions: #status (polite) and #error (role="alert"). */
export const say = (message: string) => {
  byId('error').textContent = '';
  byId('status').textContent = message;
};
export const sayError = (message: string) => {
  byId('status').textContent = '';
  byId('error').textContent = message;
};
/**
 * A refusal about one control: the message in the alert region, the control marked invalid and
 * described by it, and the focus there (until it is changed, when the mark goes).
 */
export const refuseField = (control: HTMLElement, message: string, alsoDescribedBy: string[] = []) => {
  sayError(message);
  control.setAttribute('aria-invalid', 'true');
  const described = new Set([...(control.getAttribute('aria-describedby') ?? '').split(' ').filter(Boolean), 'error', ...alsoDescribedBy]);
  control.setAttribute('aria-describedby', [...described].join(' '));
  control.addEventListener('input', () => control.removeAttribute('aria-invalid'), { once: true });
  control.focus();
};

export const clearMessages = () => {
  byId('status').textContent = '';
  byId('error').textContent = '';
};

const inFlight = new WeakMap<HTMLButtonElement, Promise<unknown>>();

/**
 * Marks a button busy while `work` runs, so a second press cannot send twice: a press meanwhile
 * answers the work already running. The button stays focusable (aria-disabled, not disabled): a
 * disabled button drops the keyboard's focus to the page's top, and a screen-reader user with it.
 */
export const busy = async <T>(button: HTMLButtonElement | null, work: () => Promise<T>): Promise<T> => {
  if (!button) return work();
  const running = inFlight.get(button);
  if (running) return running as Promise<T>;
  const done = (async () => {
    button.setAttribute('aria-disabled', 'true');
    try {
      return await work();
    } finally {
      button.removeAttribute('aria-disabled');
      inFlight.delete(button);
    }
  })();
  inFlight.set(button, done);
  return done;
};

/**
 * A time in the reader's own zone, named ("27 Nov 2026, 09:42 CET"): the same instant is written in
 * UTC in emails, ticket comments and certificates, so a time without its zone could be read as
 * either.
 */
export const formatTime = (iso: string | null | undefined, style: 'medium' | 'short' = 'medium') => {
  if (!iso) return '—';
  const date = new Date(iso);
  const day = style === 'short' ? ({ day: '2-digit', month: '2-digit' } as const) : ({ day: 'numeric', month: 'short' } as const);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString('en-GB', { ...day, year: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' });
};

/** A definition list from label/value pairs, skipping empty values. */
export const facts = (id: string, rows: Array<[string, Child]>) =>
  h('dl', { class: 'facts', id }, ...rows.filter(([, value]) => value !== null && value !== undefined && value !== '').flatMap(([label, value]) => [h('dt', {}, label), h('dd', {}, value)]));

/** Moves focus to a newly shown heading so screen-reader and keyboard users land on it. */
export const focusHeading = (heading: HTMLElement) => {
  heading.setAttribute('tabindex', '-1');
  heading.focus();
};

/** A SHA-256 hex fingerprint in groups of four, for reading aloud and comparing by eye. */
export const fingerprintCode = (fingerprint: string, id?: string) =>
  h('code', { class: 'fingerprint', id: id ?? null }, fingerprint.match(/.{1,4}/g)?.join(' ') ?? fingerprint);

/** Copies `text`, then says so in the live region (or how to copy by hand when the browser refuses). */
export const copyText = async (text: string, done: string) => {
  try {
    await navigator.clipboard.writeText(text);
    say(done);
  } catch {
    sayError('Your browser did not allow copying. Select the text and copy it by hand.');
  }
};

/**
 * A table in a box that scrolls sideways on a narrow screen, so the page itself does not. The
 * box takes the keyboard focus (a scrolled region must be reachable without a mouse) and is
 * named by the table's caption.
 */
export const tableWrap = (table: HTMLTableElement) =>
  h('div', { class: 'table-wrap', role: 'region', tabindex: 0, 'aria-label': table.caption?.textContent ?? 'Table' }, table);

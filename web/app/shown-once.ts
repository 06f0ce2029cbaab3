/// <reference lib="dom" />
/**
 * A secret the service shows once (a link, a code): a read-only field that selects itself on
 * focus, and its own Copy button. Each secret gets a box of its own, so a link and the code that
 * goes with it are never copied, pasted or screenshotted together by accident.
 */
import { copyText, h } from '../shared/dom.ts';

export const shownOnce = (options: { id: string; label: string; value: string; copyId: string; copyText: string; copied: string; rows?: number }) => {
  warnBeforeLeavingSecrets();
  const output =
    options.rows && options.rows > 1
      ? h('textarea', { id: options.id, rows: options.rows, readonly: true, spellcheck: 'false', class: 'link-output' })
      : h('input', { id: options.id, type: 'text', readonly: true, spellcheck: 'false', autocomplete: 'off', class: 'code-output' });
  output.value = options.value;
  output.addEventListener('focus', () => output.select());
  const copy = h('button', { id: options.copyId, type: 'button' }, options.copyText);
  copy.addEventListener('click', () => copyText(options.value, options.copied));
  return h('div', { class: 'field shown-once' }, h('label', { for: options.id }, options.label), output, copy);
};

let warning = false;

/**
 * Reloading or closing the page while a secret shown once is on it loses the secret for good: the
 * browser asks first (its own words; a page cannot set them). Moving within the app is a click on
 * one of its links, which the person chose.
 */
const warnBeforeLeavingSecrets = () => {
  if (warning) return;
  warning = true;
  window.addEventListener('beforeunload', (event) => {
    if (!document.querySelector('.shown-once')) return;
    event.preventDefault();
    // Browsers before preventDefault was honoured here look for a return value instead.
    event.returnValue = '';
  });
};

/** A fresh Idempotency-Key for a create: the same body sent again reuses it, so a retry cannot create twice. */
export const newIdempotencyKey = () =>
  typeof crypto.randomUUID === 'function' ? crypto.randomUUID() : Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');

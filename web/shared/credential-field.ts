/// <reference lib="dom" />
/**
 * Credentials of several lines (an SSH private key, a certificate, a list of recovery codes),
 * kept whole. A browser drops the line breaks of anything put in an <input>: pasted into a
 * password field, or shown in one, such a credential arrives as one line, silently broken.
 *
 * Typing: a paste that holds a line break turns the password field into a <textarea> with the
 * same id, holding what was pasted, line ends as LF as a textarea keeps them (a textarea cannot
 * be masked, so it is shown, and the page says so). Showing: a revealed credential of several lines is a read-only textarea, hidden
 * until Show, with its number of lines said in its place.
 */
import { copyText, h, say } from './dom.ts';

const LINE_BREAK = /\r\n?|\n/;
const lineCount = (text: string) => text.split(LINE_BREAK).length;

/**
 * Watches `input` for a paste of several lines; on one, replaces it by a textarea (same id, name,
 * hint and limit) holding the text with what was typed before, and calls `swapped` with it.
 */
export const keepLinesOnPaste = (input: HTMLInputElement, swapped: (area: HTMLTextAreaElement) => void) => {
  input.addEventListener('paste', (event) => {
    const pasted = event.clipboardData?.getData('text/plain') ?? '';
    if (!LINE_BREAK.test(pasted)) return;
    event.preventDefault();
    const start = input.selectionStart ?? input.value.length;
    const end = input.selectionEnd ?? start;
    const value = `${input.value.slice(0, start)}${pasted}${input.value.slice(end)}`;
    const area = h('textarea', {
      id: input.id,
      name: input.name,
      rows: Math.min(12, lineCount(value) + 1),
      spellcheck: 'false',
      autocomplete: 'off',
      autocapitalize: 'off',
      class: 'credential-lines',
      'aria-describedby': input.getAttribute('aria-describedby'),
      maxlength: input.maxLength > 0 ? input.maxLength : null,
    });
    area.value = value;
    input.replaceWith(area);
    area.focus();
    area.setSelectionRange(start + pasted.length, start + pasted.length);
    swapped(area);
    say(`This credential has ${lineCount(value)} lines, so it is shown as text to keep them.`);
  });
};

/**
 * A Show/Hide button for the credential field `controls`: pressed while shown (aria-pressed), its
 * word the action it offers. `apply` shows or masks the field; `set` does it from the page too.
 */
export const showToggle = (id: string, controls: string, apply: (shown: boolean) => void) => {
  const button = h('button', { id, type: 'button', class: 'secondary', 'aria-controls': controls, 'aria-pressed': 'false' }, 'Show');
  const set = (shown: boolean) => {
    apply(shown);
    button.textContent = shown ? 'Hide' : 'Show';
    button.setAttribute('aria-pressed', String(shown));
  };
  button.addEventListener('click', () => set(button.getAttribute('aria-pressed') !== 'true'));
  return { button, set };
};

/** Copies the credential as it was sealed, line breaks and all. */
const copyButton = (credential: string) => {
  const copy = h('button', { id: 'copy-credential', type: 'button', class: 'secondary' }, 'Copy');
  copy.addEventListener('click', () => copyText(credential, 'Copied. Clear your clipboard when you are done.'));
  return copy;
};

/** A revealed credential of several lines: hidden until Show, then a read-only textarea; Copy copies it exactly. */
const linesField = (id: string, credential: string) => {
  const value = h('textarea', { id, readonly: true, rows: Math.min(12, lineCount(credential)), spellcheck: 'false', autocomplete: 'off', class: 'credential-lines', hidden: true });
  value.value = credential;
  const masked = h('p', { class: 'masked-lines', id: `${id}-masked` }, `Hidden: ${lineCount(credential)} lines. Choose Show to see them.`);
  const toggle = showToggle('toggle-credential', id, (shown) => {
    value.hidden = !shown;
    masked.hidden = shown;
  });
  const copy = copyButton(credential);
  return h('div', { class: 'field' }, h('label', { for: id }, 'Credential'), masked, value, h('div', { class: 'with-button' }, toggle.button, copy));
};

/**
 * A revealed credential: a read-only masked field, a Show/Hide toggle and a Copy button, labelled
 * "Credential". Masked by default so that a shoulder or a screen share does not read it. One of
 * several lines gets a field that keeps them.
 */
export const credentialField = (id: string, credential: string): HTMLElement => {
  if (LINE_BREAK.test(credential)) return linesField(id, credential);
  const value = h('input', { id, type: 'password', readonly: true, autocomplete: 'off', spellcheck: 'false' });
  value.value = credential;
  const toggle = showToggle('toggle-credential', id, (shown) => {
    value.type = shown ? 'text' : 'password';
  });
  const copy = copyButton(credential);
  return h('div', { class: 'field' }, h('label', { for: id }, 'Credential'), h('div', { class: 'with-button' }, value, toggle.button, copy));
};

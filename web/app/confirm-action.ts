/// <reference lib="dom" />
/**
 * A button whose irreversible action waits for a second, explicit choice: pressing it opens a
 * labelled group with the question, a confirm button and Cancel (focused first, so a second
 * Enter does not confirm by accident); Escape or Cancel closes it and gives focus back.
 */
import { h, replaceChildren } from '../shared/dom.ts';

export interface ConfirmOptions {
  /** The ids: the opening button is `id`, then `confirm-<id>` and `cancel-<id>`. */
  id: string;
  label: string;
  question: string;
  confirmLabel: string;
  onConfirm: (button: HTMLButtonElement) => Promise<unknown>;
}

/**
 * The group alone (`<id>-confirmation`, its question `<id>-question`, `confirm-<id>`, `cancel-<id>`),
 * for one opener at a time: the rows of a list share one, placed beside the list rather than in a
 * narrow cell. `open` asks on behalf of `opener`, which gets the focus back when it closes.
 */
export const confirmationGroup = (id: string) => {
  const questionId = `${id}-question`;
  const group = h('div', { id: `${id}-confirmation`, class: 'confirm', role: 'group', 'aria-labelledby': questionId, hidden: true });
  let current: HTMLButtonElement | null = null;
  const close = () => {
    group.hidden = true;
    current?.setAttribute('aria-expanded', 'false');
    current?.focus();
  };
  group.addEventListener('keydown', (event) => event.key === 'Escape' && close());
  const open = (opener: HTMLButtonElement, options: Pick<ConfirmOptions, 'question' | 'confirmLabel' | 'onConfirm'>) => {
    if (current !== opener) current?.setAttribute('aria-expanded', 'false');
    current = opener;
    const yes = h('button', { id: `confirm-${id}`, type: 'button', class: 'danger' }, options.confirmLabel);
    const no = h('button', { id: `cancel-${id}`, type: 'button', class: 'secondary' }, 'Cancel');
    no.addEventListener('click', close);
    yes.addEventListener('click', () => void options.onConfirm(yes));
    replaceChildren(group, h('p', { id: questionId }, options.question), yes, no);
    group.hidden = false;
    opener.setAttribute('aria-expanded', 'true');
    no.focus();
  };
  return { group, open };
};

export const confirmAction = (options: ConfirmOptions) => {
  const { group, open } = confirmationGroup(options.id);
  const opener = h('button', { id: options.id, type: 'button', class: 'danger', 'aria-expanded': 'false', 'aria-controls': group.id }, options.label);
  opener.addEventListener('click', () => open(opener, options));
  return h('div', {}, opener, group);
};

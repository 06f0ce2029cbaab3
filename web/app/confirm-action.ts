/// <reference lib="dom" />
/**
 * A button whose irreversible action waits for a second, explicit choice: pressing it opens a
 * labelled group with the question, a confirm button and Cancel (focused first, so a second
 * Enter does not confirm by accident); Escape or Cancel closes it and gives focus back.
 */
import { h } from '../shared/dom.ts';

export interface ConfirmOptions {
  /** The ids: the opening button is `id`, then `confirm-<id>` and `cancel-<id>`. */
  id: string;
  label: string;
  question: string;
  confirmLabel: string;
  onConfirm: (button: HTMLButtonElement) => Promise<unknown>;
}

export const confirmAction = (options: ConfirmOptions) => {
  const groupId = `${options.id}-confirmation`;
  const questionId = `${options.id}-question`;
  const opener = h('button', { id: options.id, type: 'button', class: 'danger', 'aria-expanded': 'false', 'aria-controls': groupId }, options.label);
  const yes = h('button', { id: `confirm-${options.id}`, type: 'button', class: 'danger' }, options.confirmLabel);
  const no = h('button', { id: `cancel-${options.id}`, type: 'button', class: 'secondary' }, 'Cancel');
  const group = h('div', { id: groupId, class: 'confirm', role: 'group', 'aria-labelledby': questionId, hidden: true }, h('p', { id: questionId }, options.question), yes, no);
  const toggle = (open: boolean) => {
    group.hidden = !open;
    opener.setAttribute('aria-expanded', String(open));
    (open ? no : opener).focus();
  };
  opener.addEventListener('click', () => toggle(true));
  no.addEventListener('click', () => toggle(false));
  group.addEventListener('keydown', (event) => event.key === 'Escape' && toggle(false));
  yes.addEventListener('click', () => void options.onConfirm(yes));
  return h('div', {}, opener, group);
};

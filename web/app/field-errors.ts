/// <reference lib="dom" />
/**
 * A form's refusals (422 `validation_failed`, errors by field) shown where a person fixes them:
 * each message under its control, tied to it (aria-describedby, aria-invalid), the first refused
 * control focused, and a summary in the error region for anything no control stands for.
 */
import { ApiFailure } from '../shared/api.ts';
import { h, sayError } from '../shared/dom.ts';

export type FieldErrors = Record<string, string[]>;

/** The errors of a 422 answer by field, or null for any other failure. */
export const refusedFields = (error: unknown): FieldErrors | null => {
  if (!(error instanceof ApiFailure) || error.status !== 422) return null;
  const errors = error.body.errors;
  return errors && typeof errors === 'object' ? (errors as FieldErrors) : null;
};

/** Where a message goes: after a checkbox's row, else right after the control. */
const anchorOf = (control: HTMLElement) => (control.parentElement?.classList.contains('check') ? control.parentElement : control);
/** A fieldset is focused through its first control. */
const focusTarget = (control: HTMLElement) => (control instanceof HTMLFieldSetElement ? control.querySelector<HTMLElement>('input, select, textarea') : control);

/**
 * `controls` names the control of each body field, dotted as the service names fields
 * (`ticket.grace_period_minutes`); an item of a list (`ttl_options_minutes.1`) or a part of an
 * object (`defaults.delivery.method`) goes to the nearest field that has a control.
 */
export const fieldMessages = (controls: Record<string, HTMLElement>) => {
  const messages = new Map<HTMLElement, HTMLElement>();
  for (const control of new Set(Object.values(controls))) {
    const message = h('p', { id: `${control.id}-error`, class: 'field-error', hidden: true });
    anchorOf(control).after(message);
    control.setAttribute('aria-describedby', `${control.getAttribute('aria-describedby') ?? ''} ${message.id}`.trim());
    messages.set(control, message);
  }
  const controlOf = (field: string): HTMLElement | null => {
    for (let name = field; name; name = name.includes('.') ? name.slice(0, name.lastIndexOf('.')) : '') {
      if (Object.hasOwn(controls, name)) return controls[name]!;
    }
    return null;
  };

  const clear = () => {
    for (const [control, message] of messages) {
      message.hidden = true;
      message.textContent = '';
      control.removeAttribute('aria-invalid');
    }
  };

  const show = (errors: FieldErrors) => {
    clear();
    const elsewhere: string[] = [];
    let first: HTMLElement | null = null;
    for (const [field, texts] of Object.entries(errors)) {
      const control = controlOf(field);
      if (!control) {
        elsewhere.push(`${field}: ${texts.join(' ')}`);
        continue;
      }
      const message = messages.get(control)!;
      message.textContent = `${message.textContent ?? ''} ${texts.join(' ')}`.trim();
      message.hidden = false;
      control.setAttribute('aria-invalid', 'true');
      first ??= control;
    }
    sayError(['Some fields need attention; see the message under each.', ...elsewhere].join(' '));
    if (first) focusTarget(first)?.focus();
  };

  return { show, clear };
};

/** The same, with each field's control named by its id within `form`. */
export const fieldErrors = (form: HTMLElement, controlIds: Record<string, string>) =>
  fieldMessages(Object.fromEntries(Object.entries(controlIds).map(([field, id]) => [field, form.querySelector<HTMLElement>(`#${id}`)!])));

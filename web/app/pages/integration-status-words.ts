/// <reference lib="dom" />
/**
 * The status words an integration understands, as the status words form of its page lists them
 * (pages/integration-settings.ts), each with a Remove button. Removing changes what a helpdesk's
 * posts mean (a word that closed tickets no longer does), so like the page's other destructive
 * actions it waits for a confirmation; it is saved through POST /app/api/integrations/<id>
 * (`remove_status_words`), as the operator's `set-integration --remove-status-word`.
 *
 * Stable hooks for automated tests:
 *   #status-map (table; rows tr[data-word]) or #no-status-map; one #remove-status-word-<n> per row,
 *   n from 0 in the table's order, then #confirm-remove-status-word / #cancel-remove-status-word
 */
import { messageOf } from '../../shared/api.ts';
import { busy, focusHeading, h, say, sayError, tableWrap } from '../../shared/dom.ts';
import { confirmationGroup } from '../confirm-action.ts';
import type { AppContext } from '../context.ts';
import type { IntegrationView } from './integrations.ts';

/** SPEC's words, understood with or without the integration's own (lambdas/core/inbound/status-words.ts). */
const STANDARD_MEANINGS: Readonly<Record<string, string>> = {
  open: 'open',
  new: 'open',
  pending: 'pending',
  'on hold': 'pending',
  resolved: 'resolved',
  solved: 'resolved',
  closed: 'closed',
  complete: 'closed',
  completed: 'closed',
};

const STANDARD_WORDS = Object.keys(STANDARD_MEANINGS);
const standardWordsText = `${STANDARD_WORDS.slice(0, -1).join(', ')} and ${STANDARD_WORDS.at(-1)}`;

/** The heading the focus goes back to once a word is removed (its button is gone with it). */
const FORM_HEADING = 'status-map-form-heading';

/** What removing `word` does, said before it is done. */
const questionOf = (word: string, status: string) => {
  const standard = Object.hasOwn(STANDARD_MEANINGS, word) ? STANDARD_MEANINGS[word] : null;
  const after = standard
    ? `It is a standard word, so a post with it then means ${standard}.`
    : 'A post with it then counts as unknown and never ends a request.';
  return `Remove the word “${word}” (now ${status})? ${after} You can add it again below.`;
};

const removeWord = (app: AppContext, integrationId: string, word: string, button: HTMLButtonElement) =>
  busy(button, async () => {
    try {
      await app.post(`/app/api/integrations/${integrationId}`, { remove_status_words: [word] });
    } catch (error) {
      // Removed meanwhile (another tab) or refused: the list is shown as it now is, with the reason.
      await app.render({ keepMessages: true, focus: false });
      return sayError(messageOf(error));
    }
    await app.render({ keepMessages: true, focus: false });
    const heading = document.getElementById(FORM_HEADING);
    if (heading) focusHeading(heading);
    say(`The word “${word}” is removed.`);
  });

export const statusWordsTable = (app: AppContext, integration: IntegrationView) => {
  const entries = Object.entries(integration.status_map);
  if (entries.length === 0) {
    return h('p', { id: 'no-status-map' }, `No words of its own: only ${standardWordsText} are understood.`);
  }
  const { group: confirmation, open } = confirmationGroup('remove-status-word');
  const row = ([word, status]: [string, string], index: number) => {
    const remove = h(
      'button',
      { id: `remove-status-word-${index}`, type: 'button', class: 'secondary', 'aria-label': `Remove the word ${word}`, 'aria-expanded': 'false', 'aria-controls': confirmation.id },
      'Remove',
    );
    remove.addEventListener('click', () =>
      open(remove, { question: questionOf(word, status), confirmLabel: 'Yes, remove it', onConfirm: (yes) => removeWord(app, integration.id, word, yes) }),
    );
    return h('tr', { 'data-word': word }, h('th', { scope: 'row', class: 'summary' }, word), h('td', {}, status), h('td', {}, remove));
  };
  return h(
    'div',
    {},
    tableWrap(
      h(
        'table',
        { id: 'status-map' },
        h('caption', {}, 'Words this integration understands, besides the standard ones'),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Word (any capitals)'), h('th', { scope: 'col' }, 'Means'), h('th', { scope: 'col' }, 'Action'))),
        h('tbody', {}, ...entries.map(row)),
      ),
    ),
    confirmation,
  );
};

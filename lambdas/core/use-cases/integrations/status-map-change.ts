import type { FieldErrors } from '../../errors.ts';
import { isBuiltInWord, isStandardWord, mergeStatusMaps, statusWordOf, withoutStatusWords, type StatusMap } from '../../inbound/status-words.ts';

/**
 * What one change does to an integration's status words: the words removed leave `base` (the
 * integration's map, or the recipe's when the change applies a recipe), then the words added or
 * changed are merged in. Refusals go into `errors` by the field the member app sends them in
 * (`status_map`, `remove_status_words`), so the CLI and the app report the same ones.
 *
 * A word to remove must be one of the map's own: a typo refused beats a word that silently stays
 * mapped. SPEC's words (open, closed, ...) are understood with or without a map, so they cannot
 * be removed, and no removal can leave an integration without a word that closes a ticket.
 */
export const changedStatusMap = (base: StatusMap, added: StatusMap | undefined, removed: readonly string[] | undefined, errors: FieldErrors) => {
  checkAdded(added ?? {}, errors);
  const words = removed === undefined ? [] : wordsToRemove(base, added ?? {}, removed, errors);
  return { statusMap: mergeStatusMaps(withoutStatusWords(base, words), added), removedWords: words };
};

const quoted = (words: readonly string[]) => words.map((word) => JSON.stringify(word)).join(', ');

/** A map keyed by a built-in property's name could read or replace it wherever the map is a plain object. */
const checkAdded = (added: StatusMap, errors: FieldErrors) => {
  const builtInWords = Object.keys(added).filter(isBuiltInWord);
  if (builtInWords.length > 0) errors.status_map = [`Words that name a built-in property cannot be status words: ${quoted(builtInWords)}.`];
};

/** The words to take out of `base`, as it stores them; each one that cannot be removed is refused with its reason. */
const wordsToRemove = (base: StatusMap, added: StatusMap, removed: readonly string[], errors: FieldErrors): string[] => {
  if (removed.length === 0) {
    errors.remove_status_words = ['Name 1 or more words to remove.'];
    return [];
  }
  const stored = new Set(Object.keys(base).map(statusWordOf));
  const addedWords = new Set(Object.keys(added).map(statusWordOf));
  const words = [...new Set(removed.map(statusWordOf))];
  const refusals: string[] = [];
  for (const word of words) {
    if (word === null) refusals.push('A word to remove cannot be blank.');
    else if (isBuiltInWord(word)) refusals.push(`${JSON.stringify(word)} names a built-in property: it is never a status word.`);
    // Which of the two was meant cannot be told, so neither is guessed.
    else if (addedWords.has(word)) refusals.push(`${JSON.stringify(word)} is both added and removed: give it in one of the two.`);
    else if (!stored.has(word)) {
      refusals.push(
        isStandardWord(word)
          ? `${JSON.stringify(word)} is a standard word, always understood without the integration's words: it cannot be removed.`
          : `${JSON.stringify(word)} is not one of this integration's status words.`,
      );
    }
  }
  if (refusals.length > 0) errors.remove_status_words = refusals;
  return words.filter((word): word is string => word !== null);
};

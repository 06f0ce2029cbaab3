import { TICKET_STATUSES, type TicketStatus } from '../model.ts';
import { toWellFormedText } from '../unicode.ts';

/**
 * The ticket status an inbound post names (SPEC.md, Inbound generic ticket webhook): SPEC's
 * words in any capitals, or whatever the integration's status map says; anything else is
 * `unknown`, which never purges.
 */
export type KnownTicketStatus = Exclude<TicketStatus, 'unknown'>;
export type StatusMap = Record<string, KnownTicketStatus>;

export const KNOWN_TICKET_STATUSES: readonly KnownTicketStatus[] = TICKET_STATUSES.filter(
  (status): status is KnownTicketStatus => status !== 'unknown',
);

/** The longest word echoed back in an activity entry, so a huge value cannot bloat it. */
export const MAX_STATUS_WORD_LENGTH = 100;

const SPEC_WORDS: ReadonlyMap<string, KnownTicketStatus> = new Map([
  ['open', 'open'],
  ['new', 'open'],
  ['pending', 'pending'],
  ['on hold', 'pending'],
  ['resolved', 'resolved'],
  ['solved', 'resolved'],
  ['closed', 'closed'],
  ['complete', 'closed'],
  ['completed', 'closed'],
]);

const isKnown = (value: unknown): value is KnownTicketStatus =>
  typeof value === 'string' && (KNOWN_TICKET_STATUSES as readonly string[]).includes(value);

/**
 * Trimmed, inner whitespace collapsed, lower case, in Unicode's composed form (NFC: "Gelöst" typed
 * with ö as one character or as o and a combining diaeresis is one word, as it looks); numbers
 * and booleans as their text.
 */
const normaliseWord = (raw: unknown): string | null => {
  let text: string;
  if (typeof raw === 'string') text = raw;
  else if (typeof raw === 'number' && Number.isFinite(raw)) text = String(raw);
  else if (typeof raw === 'boolean') text = String(raw);
  else return null;
  const word = text.trim().replace(/\s+/g, ' ').toLowerCase().normalize('NFC');
  return word === '' ? null : word;
};

/**
 * Names of the built-in properties every object has (`__proto__`, `constructor`, `toString`, ...),
 * and `prototype`, as words are compared: lower case. A map keyed by one could read or replace
 * that property wherever the map is handled as a plain object (the table's marshalling fails on
 * some), so none of them is a status word.
 */
const BUILT_IN_WORDS: ReadonlySet<string> = new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype'].map((name) => name.toLowerCase()));

/** Whether `word`, in any capitals, names a built-in property and so cannot be a status map's word. */
export const isBuiltInWord = (word: string) => BUILT_IN_WORDS.has(normaliseWord(word) ?? '');

/** `word` as a status map stores and compares it (null when it is blank): trimmed, spaces collapsed, lower case. */
export const statusWordOf = (word: string) => normaliseWord(word);

/** Whether `word`, in any capitals, is one of SPEC's words, understood with or without a status map. */
export const isStandardWord = (word: string) => SPEC_WORDS.has(normaliseWord(word) ?? '');

/** `statusMap` without `words`, each compared in any capitals; the map's other entries as they were. */
export const withoutStatusWords = (statusMap: StatusMap, words: readonly string[]): StatusMap => {
  const removed = new Set(words.map(normaliseWord));
  // fromEntries defines own data properties, as the map was built, so no key becomes a prototype.
  return Object.fromEntries(Object.entries(statusMap).filter(([key]) => !removed.has(normaliseWord(key)))) as StatusMap;
};

/** The map's entry for `word`, its keys compared the same normalised way; own entries only. */
const lookUp = (statusMap: StatusMap, word: string): KnownTicketStatus | null => {
  for (const [key, target] of Object.entries(statusMap)) {
    if (normaliseWord(key) === word && isKnown(target)) return target;
  }
  return null;
};

/**
 * `overrides` laid over `base`, one entry per word however it is written: a word is one word in
 * any capitals, so `Solved=closed` replaces a recipe's `solved: resolved` instead of sitting
 * beside it (which of two such entries a look-up met first would depend on storage order).
 */
export const mergeStatusMaps = (base: StatusMap, overrides: StatusMap = {}): StatusMap => {
  const merged: Array<[string, KnownTicketStatus]> = [];
  for (const [key, target] of [...Object.entries(base), ...Object.entries(overrides)]) {
    const word = normaliseWord(key);
    if (word === null || !isKnown(target)) continue;
    const at = merged.findIndex(([existing]) => existing === word);
    if (at >= 0) merged[at] = [word, target];
    else merged.push([word, target]);
  }
  return Object.fromEntries(merged) as StatusMap;
};

export const normaliseTicketStatus = (
  raw: unknown,
  statusMap: StatusMap = {},
): { status: TicketStatus; word: string | null } => {
  const word = normaliseWord(raw);
  if (word === null) return { status: 'unknown', word: null };
  const status = lookUp(statusMap, word) ?? SPEC_WORDS.get(word) ?? 'unknown';
  // The word goes into the audit chain and the activity view: a lone surrogate sent (or made by
  // cutting a pair in two) could be neither hashed nor stored as text, so it shows as U+FFFD.
  return { status, word: toWellFormedText(word.slice(0, MAX_STATUS_WORD_LENGTH)) };
};

/**
 * The written form of a status map, `Solved=closed,4=resolved`: the CLI flag's pairs by commas,
 * the member app's one pair a line (both read here, so they mean the same). Throws naming the
 * first bad pair, so whoever wrote it sees which one to fix.
 */
export const parseStatusMap = (text: string): StatusMap => {
  const entries: Array<[string, KnownTicketStatus]> = [];
  for (const pair of text.split(/[,\r\n]/)) {
    if (pair.trim() === '') continue;
    const equals = pair.indexOf('=');
    const word = equals < 0 ? '' : pair.slice(0, equals).trim();
    const target = equals < 0 ? '' : pair.slice(equals + 1).trim().toLowerCase();
    if (word === '' || !isKnown(target)) {
      throw new Error(`Bad status map pair "${pair.trim()}": write word=status with status open, pending, resolved or closed.`);
    }
    entries.push([word, target]);
  }
  // fromEntries defines own data properties, so even a `__proto__` word stays a plain key.
  return Object.fromEntries(entries) as StatusMap;
};

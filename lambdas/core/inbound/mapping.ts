import type { TicketStatus } from '../model.ts';
import { isWellFormedText } from '../unicode.ts';
import { firstPresent } from './dotted-path.ts';
import { normaliseTicketStatus, type StatusMap } from './status-words.ts';

/**
 * Where an integration finds the ticket id, the status and the trigger fields in a sender's
 * body (SPEC.md, Inbound generic ticket webhook: field positions can be mapped), and what the
 * body says once read that way.
 */
export const TRIGGER_FIELDS = ['subject.name', 'subject.email', 'subject.phone', 'preset', 'requester_email'] as const;
export type TriggerField = (typeof TRIGGER_FIELDS)[number];

export interface FieldMapping {
  /** Alternatives, first present wins. Default ['ticket_id']. */
  ticketId: string[];
  /** Alternatives, first present wins. Default ['status']. */
  status: string[];
  /** Where each trigger field sits (alternatives); default: the field's own name. */
  fields: Partial<Record<TriggerField, string[]>>;
}

export const DEFAULT_MAPPING: FieldMapping = { ticketId: ['ticket_id'], status: ['status'], fields: {} };

/** SPEC.md: a ticket reference is 1 to 120 characters. */
export const MAX_TICKET_ID_LENGTH = 120;

/** The paths looked at for one value, and the one where something was found. */
export interface PathLookup {
  tried: string[];
  foundAt: string | null;
}

export interface Interpreted {
  ticketId: string | null;
  status: TicketStatus;
  statusWord: string | null;
  trigger: {
    subjectName: string | null;
    subjectEmail: string | null;
    subjectPhone: string | null;
    preset: string | null;
    requesterEmail: string | null;
  };
  /** For problemOf's reasons: an admin fixing a mapping needs to know where we looked. */
  sources: { ticketId: PathLookup; status: PathLookup };
}

/** An empty list of alternatives would find nothing ever; it means "not configured". */
const orDefault = (paths: readonly string[] | undefined, fallback: readonly string[]) =>
  paths && paths.length > 0 ? [...paths] : [...fallback];

// A sender's text with a lone surrogate (a JSON \ud800 escape, also inside an embedded JSON string)
// is no ticket id or field value: it could never be stored or hashed into the audit chain as text.
const ticketIdOf = (value: unknown): string | null => {
  if (typeof value === 'string') {
    if (!isWellFormedText(value)) return null;
    const id = value.trim();
    const characters = [...id].length; // characters, as POST /requests counts ticket_ref
    return characters >= 1 && characters <= MAX_TICKET_ID_LENGTH ? id : null;
  }
  // Many helpdesks send numeric ids as JSON numbers; a fraction or negative is no ticket id.
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return String(value);
  return null;
};

const textOf = (value: unknown): string | null => {
  if (typeof value !== 'string' || !isWellFormedText(value)) return null;
  const text = value.trim();
  return text === '' ? null : text;
};

/** Phone numbers typed into a numeric custom field arrive as JSON numbers. */
const phoneOf = (value: unknown): string | null =>
  typeof value === 'number' && Number.isFinite(value) ? String(value) : textOf(value);

export const interpret = (fields: Record<string, unknown>, mapping: FieldMapping, statusMap: StatusMap): Interpreted => {
  const ticketIdPaths = orDefault(mapping.ticketId, DEFAULT_MAPPING.ticketId);
  const statusPaths = orDefault(mapping.status, DEFAULT_MAPPING.status);
  const ticketIdHit = firstPresent(fields, ticketIdPaths);
  const statusHit = firstPresent(fields, statusPaths);
  const status = statusHit ? normaliseTicketStatus(statusHit.value, statusMap) : { status: 'unknown' as const, word: null };
  const trigger = (field: TriggerField) => firstPresent(fields, orDefault(mapping.fields[field], [field]))?.value;
  return {
    ticketId: ticketIdHit ? ticketIdOf(ticketIdHit.value) : null,
    status: status.status,
    statusWord: status.word,
    trigger: {
      subjectName: textOf(trigger('subject.name')),
      subjectEmail: textOf(trigger('subject.email')),
      subjectPhone: phoneOf(trigger('subject.phone')),
      preset: textOf(trigger('preset')),
      requesterEmail: textOf(trigger('requester_email')),
    },
    sources: {
      ticketId: { tried: ticketIdPaths, foundAt: ticketIdHit?.path ?? null },
      status: { tried: statusPaths, foundAt: statusHit?.path ?? null },
    },
  };
};

const listOf = (paths: readonly string[]) => paths.join(', ');

/**
 * Why an inbound post cannot be used, in words for the integration's activity view; null when
 * it can. A trigger's subject name, preset and requester are checked later, by the caller that
 * knows the presets.
 */
export const problemOf = (interpreted: Interpreted, purpose: 'status' | 'trigger'): string | null => {
  const { ticketId, sources } = interpreted;
  if (ticketId === null) {
    return sources.ticketId.foundAt === null
      ? `No ticket id at ${listOf(sources.ticketId.tried)}.`
      : `The ticket id at ${sources.ticketId.foundAt} is not text of 1 to ${MAX_TICKET_ID_LENGTH} characters or a whole number.`;
  }
  if (purpose === 'trigger' || interpreted.status !== 'unknown') return null;
  if (interpreted.statusWord !== null) {
    return `Status "${interpreted.statusWord}" is not understood; map it in the integration's status map.`;
  }
  return sources.status.foundAt === null
    ? `No status at ${listOf(sources.status.tried)}.`
    : `The status at ${sources.status.foundAt} is not a word or a number.`;
};

import type { AuditEntry } from '../ports.ts';
import {
  CERTIFICATE_FORMAT,
  type CertificateChainEntry,
  type CertificateParty,
  type ChainEntryContent,
  type RequestCertificateBody,
  type SealedToKey,
  type ShareCertificateBody,
} from './document.ts';
import { ENDING_TYPES, RELINKED, STORING_TYPES, factOf } from './custody-facts.ts';
import { DESTRUCTION_SCOPE, restorableUntil, type TableBackups } from './backups.ts';

/** What every certificate carries besides its subject: who issued it, when, and the chain behind it. */
export interface CertificateContext {
  certificateId: string;
  issuedAt: string;
  issuer: { name: string; app_url: string; jwks_url: string };
  organisation: { id: string; name: string };
  /** The organisation's chain head when the certificate is issued. */
  head: { seq: number; hash: string };
  /** The entries about the request or share, as stored (content and hash). */
  entries: AuditEntry[];
  /** What the table's backups keep: every certificate says how long they hold a destroyed credential's ciphertext. */
  backups: TableBackups;
}

const isObject = (value: unknown): value is Record<string, any> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** An entry exactly as the chain hashed it: everything stored but its own hash. */
const chainEntryOf = (entry: AuditEntry): CertificateChainEntry => {
  const { hash, ...content } = entry;
  return { seq: entry.seq, type: entry.type, occurred_at: entry.occurredAt, prev_hash: entry.prevHash, hash, content: content as ChainEntryContent };
};

/** Entry kinds that can repeat without limit and change no custody: only the newest few are carried. */
const ROUTINE_TYPES = new Set(['ticket.status_received', 'subject.verification_failed', 'subject.email_code_sent']);
export const ROUTINE_ENTRIES_KEPT = 20;

/** The entries a certificate carries: all of them but the older repeats of a routine kind. */
const carried = (entries: AuditEntry[]) => {
  const ascending = [...entries].sort((a, b) => a.seq - b.seq);
  const seen = new Map<string, number>();
  const kept = ascending
    .reverse()
    .filter((entry) => {
      if (!ROUTINE_TYPES.has(entry.type)) return true;
      const count = (seen.get(entry.type) ?? 0) + 1;
      seen.set(entry.type, count);
      return count <= ROUTINE_ENTRIES_KEPT;
    })
    .reverse();
  return { kept, omitted: entries.length - kept.length };
};

/** The parts every certificate shares, from the entries alone. */
const commonPart = (context: CertificateContext, view: Record<string, any>, endedWhen: (types: Set<string>) => boolean) => {
  const { kept, omitted } = carried(context.entries);
  const entries = kept.map(chainEntryOf);
  const timeline = entries.map((entry) => factOf(entry.content));
  // A new link starts the request's custody again: what ended before it (a revoke, an expiry before
  // anything was submitted) no longer ends the request, and only what follows it can.
  const lastRelink = timeline.map((fact) => fact.type).lastIndexOf(RELINKED);
  const sinceRelink = timeline.slice(lastRelink + 1);
  const ending = [...sinceRelink].reverse().find((fact) => ENDING_TYPES.has(fact.type));
  const stored = timeline.some((fact) => STORING_TYPES.has(fact.type));
  // The period in force at issue. Shortening it drops the older restore points at once, and
  // lengthening it keeps the ones still held for longer, so a date still ahead at issue is never
  // earlier than the last moment a backup can restore the ciphertext.
  const days = context.backups.pointInTimeRecoveryDays;
  // A request's view holds a ticket object; a share's only the reference it quotes (`ticket_ref`).
  const ticket = isObject(view.ticket) ? view.ticket : typeof view.ticket_ref === 'string' ? { ref: view.ticket_ref } : null;
  return {
    format: CERTIFICATE_FORMAT as typeof CERTIFICATE_FORMAT,
    certificate_id: context.certificateId,
    issued_at: context.issuedAt,
    issuer: context.issuer,
    final: endedWhen(new Set(sinceRelink.map((fact) => fact.type))),
    organisation: context.organisation,
    client: isObject(view.client) ? { id: String(view.client.id), name: String(view.client.name) } : null,
    ticket: ticket
      ? { ref: ticket.ref ?? null, external_id: ticket.external_id ?? null, integration_id: ticket.integration_id ?? null, url: ticket.url ?? null }
      : null,
    timeline,
    destruction: {
      ...(ending
        ? { destroyed: true, at: ending.at, reason: ending.reason ?? ending.event, seq: ending.seq }
        : { destroyed: false, at: null, reason: null, seq: null }),
      scope: DESTRUCTION_SCOPE,
      ciphertext_stored: stored,
      backups: { point_in_time_recovery_days: days, ciphertext_restorable_until: restorableUntil(ending?.at ?? null, stored, days) },
    },
    chain: { organisation_id: context.organisation.id, head: context.head, entries, omitted_entries: omitted },
  };
};

/** The latest view of the record the entries carry (each entry holds it as it was after that change). */
const latestView = (entries: AuditEntry[], member: 'request' | 'share') => {
  const latest = [...entries].sort((a, b) => b.seq - a.seq).find((entry) => isObject(entry.data[member]));
  return (latest?.data[member] ?? {}) as Record<string, any>;
};

const party = (value: unknown): CertificateParty =>
  isObject(value)
    ? { membership_id: value.membership_id ?? null, name: value.name ?? null, email: value.email ?? null }
    : { membership_id: null, name: null, email: null };

/**
 * Sealing facts the newest link's entry records (the creation, or the latest new link, which seals
 * to the recipients' keys as they were then); `fallback`, the request as stored, for a request whose
 * entry records none (written before entries did).
 */
export interface SealingFacts {
  recipients: SealedToKey[];
  commitment: { value: string; computed_by: 'server' | 'browser' };
}

const sealingOf = (entries: AuditEntry[], fallback: SealingFacts): SealingFacts => {
  const newestLink = [...entries].sort((a, b) => b.seq - a.seq).find((entry) => entry.type === 'request.created' || entry.type === RELINKED);
  const custody = newestLink && isObject(newestLink.data.custody) ? newestLink.data.custody : null;
  if (!custody || !Array.isArray(custody.recipients) || !isObject(custody.commitment)) return fallback;
  return {
    recipients: custody.recipients.map((r: Record<string, any>) => ({ membership_id: r.membership_id ?? null, label: r.label ?? null, fingerprint: String(r.fingerprint) })),
    commitment: { value: String(custody.commitment.value), computed_by: custody.commitment.computed_by === 'browser' ? 'browser' : 'server' },
  };
};

export const buildRequestCertificate = (context: CertificateContext, requestId: string, fallback: SealingFacts): RequestCertificateBody => {
  const view = latestView(context.entries, 'request');
  const sealing = sealingOf(context.entries, fallback);
  return {
    ...commonPart(context, view, (types) => ['request.completed', 'request.expired', 'request.revoked'].some((type) => types.has(type))),
    subject_kind: 'request',
    request: {
      id: requestId,
      status: String(view.status ?? 'unknown'),
      subject_name: isObject(view.subject) ? String(view.subject.name ?? '') : '',
      requester: party(view.requester),
      recipients: sealing.recipients,
      commitment: sealing.commitment,
    },
  };
};

export const buildShareCertificate = (context: CertificateContext, shareId: string): ShareCertificateBody => {
  const view = latestView(context.entries, 'share');
  return {
    ...commonPart(context, view, (types) => types.has('share.expired') || types.has('share.purged')),
    subject_kind: 'share',
    share: {
      id: shareId,
      status: String(view.status ?? 'unknown'),
      created_by: party(view.created_by),
      sealed_to: { fingerprint: String(view.sealed_to_fingerprint ?? '') },
      view_limit: Number(view.view_limit ?? 1),
      views: Number(view.views ?? 0),
      expires_at: String(view.expires_at ?? ''),
    },
  };
};

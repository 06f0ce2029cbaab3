import type { ChainEntryContent, CustodyFact } from './document.ts';
import type { RequestTrailType } from '../request-trail-types.ts';

type ShareTrailType = 'share.created' | 'share.revealed' | 'share.expired' | 'share.purged';

/**
 * What each audit type means in a custody timeline, in the words a person reads: one for every type
 * written about a request (request-trail-types.ts) or a share, so the type checker refuses a new
 * kind of entry that a certificate would otherwise show by its raw name.
 */
const EVENT_WORDS: Readonly<Record<RequestTrailType | ShareTrailType, string>> = {
  'request.created': 'created',
  'request.link_posted': 'link posted in the ticket',
  'request.link_post_failed': 'link post failed',
  'request.opened': 'opened',
  'subject.email_code_sent': 'email code sent',
  'subject.verified': 'subject verified',
  'subject.verification_failed': 'verification failed',
  'request.link_locked': 'link locked',
  'request.email_codes_used_up': 'link unusable: every emailed code used up',
  'request.submitted': 'submitted',
  'request.revealed': 'revealed',
  'request.completed': 'completed',
  'credential.rotation_recommended': 'rotation recommended',
  'request.expired': 'expired',
  'request.revoked': 'revoked',
  'request.reported': 'reported',
  'request.purge_scheduled': 'purge scheduled',
  'request.purge_cancelled': 'purge cancelled',
  'ticket.status_received': 'ticket status received',
  'request.relinked': 'new link issued',
  'request.needs_relink': 'link unusable: a recipient key changed',
  'request.recipient_key_changed': 'a recipient key changed; link already unusable',
  'request.unrecoverable': 'no recipient can open it',
  'request.recoverable': 'a recipient can open it again',
  'share.created': 'created',
  'share.revealed': 'revealed',
  'share.expired': 'expired',
  'share.purged': 'purged',
};

export const eventWord = (type: string) => EVENT_WORDS[type as keyof typeof EVENT_WORDS] ?? type;

/** A new link: the request's custody starts again (build-certificate.ts), sealed as its entry records. */
export const RELINKED = 'request.relinked';

/** The types after which the service's table holds no credential: the facts that end custody. */
export const ENDING_TYPES = new Set(['request.completed', 'request.expired', 'request.revoked', 'share.expired', 'share.purged']);

/**
 * The types whose change stored a credential's ciphertext in the table: a request's submission
 * (sealed envelope and attachments) and a share's creation. A request that ends without one never
 * held a ciphertext. Both are custody facts, so a certificate always carries them.
 */
export const STORING_TYPES = new Set(['request.submitted', 'share.created']);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown) => (typeof value === 'string' && value.length > 0 ? value : null);

/** Why, where the entry says: a purge or revoke reason, a ticket status, a share's ending reason. */
const reasonOf = (content: ChainEntryContent): string | null => {
  const data = content.data;
  const details = isObject(data.details) ? data.details : {};
  const view = isObject(data.request) ? data.request : isObject(data.share) ? data.share : {};
  if (content.type === 'request.completed' || content.type === 'request.expired') return text(view.purge_reason) ?? text(details.purge_reason);
  if (content.type === 'request.revoked') return text(view.revoked_reason) ?? text(details.reason);
  return text(details.reason) ?? text(details.purge_reason) ?? (content.type === 'ticket.status_received' ? text(details.status) : null);
};

/** The helpdesk read behind an entry, where its details record one (verify-ticket.ts). */
export const verifiedBy = (content: ChainEntryContent): CustodyFact['verified_by'] | null => {
  const details = isObject(content.data.details) ? content.data.details : {};
  const helpdesk = text(details.helpdesk);
  const readAt = text(details.read_at);
  return details.verified === true && helpdesk && readAt ? { helpdesk, read_at: readAt } : null;
};

/** The timeline fact an entry records. */
export const factOf = (content: ChainEntryContent): CustodyFact => {
  const verified = verifiedBy(content);
  return {
    event: eventWord(content.type),
    at: content.occurredAt,
    seq: content.seq,
    type: content.type,
    actor: { type: content.actor.type, label: content.actor.label ?? null },
    reason: reasonOf(content),
    ...(verified ? { verified_by: verified } : {}),
  };
};

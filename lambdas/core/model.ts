/** The domain records as the service keeps them (storage-agnostic shapes). */

export const PLANS = ['free', 'team', 'business'] as const;
export type Plan = (typeof PLANS)[number];

export const VERIFICATION_MODES = ['none', 'challenge', 'email_otp', 'either', 'both'] as const;
export type VerificationMode = (typeof VERIFICATION_MODES)[number];

export const REQUEST_STATUSES = ['pending', 'opened', 'submitted', 'completed', 'revoked', 'expired'] as const;
export type RequestStatus = (typeof REQUEST_STATUSES)[number];

/** "A pending request", "An expired request": a status as the subject of a sentence. */
export const aRequestWhoseStatusIs = (status: string) => `${/^[aeiou]/.test(status) ? 'An' : 'A'} ${status} request`;

export const TICKET_STATUSES = ['open', 'pending', 'resolved', 'closed', 'unknown'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];

export const SCOPES = ['requests:read', 'requests:write', 'tickets:write', 'events:read', 'webhooks:write'] as const;
export type Scope = (typeof SCOPES)[number];

export const DELIVERY_METHODS = ['none', 'email', 'sms', 'ticket_reply'] as const;
export type DeliveryMethod = (typeof DELIVERY_METHODS)[number];

export const ROLES = ['owner', 'admin', 'member'] as const;
export type Role = (typeof ROLES)[number];

export interface Policy {
  ttlOptionsMinutes: number[];
  defaultTtlMinutes: number;
  minimumVerification: VerificationMode;
  defaultVerification: VerificationMode;
  linkLifetimeMinutes: number;
  ticket: {
    /** Ticket statuses that count as closed for close-to-purge. */
    closeStatuses: Array<'resolved' | 'closed'>;
    trustUnverifiedWebhooks: boolean;
    gracePeriodMinutes: number;
    revokeUnsubmittedOnClose: boolean;
  };
  rotationSignal: boolean;
}

export interface RateLimits {
  perKeyPerMinute: number;
  perOrgPerMinute: number;
}

export interface Organisation {
  id: string;
  name: string;
  plan: Plan;
  policy: Policy;
  rateLimits: RateLimits;
  /** Requests created without a client belong to this one, made with the organisation. */
  defaultClientId: string;
  /** The preset a ticket trigger uses when neither the post nor the client names one. */
  defaultPreset?: string | null;
  createdAt: string;
  /**
   * Counts the changes of the rules the organisation's writes are judged under (its policy, its
   * presets, its plan), so a change made on rules read before another's is judged again, not lost. Absent: 0.
   */
  policyVersion?: number;
  /**
   * Every request and share of the organisation is noted in its ticket index (core/ticket-links.ts):
   * set at its creation, or once an operator's backfill noted its older records. Absent, a ticket
   * status looks through the ticket indexes for every kind of record.
   */
  ticketIndexCovered?: boolean;
}

export type IdentityKeyState = 'verified' | 'replaced_pending_approval' | 'refused';

export interface IdentityKey {
  /** SPKI DER of an ECDH P-256 public key, base64. */
  publicKey: string;
  fingerprint: string;
  state: IdentityKeyState;
  registeredAt: string;
  /**
   * `operator`: made for the member outside their browser (the operator CLI's --generate-key, the
   * local demo's seed), its private half in a file on the operator's machine. Such a key is
   * provisional: the member's first own key replaces it at once, as a first key would be
   * registered. Absent: the member's own key.
   */
  madeBy?: 'operator';
  /**
   * The fingerprints an owner or admin refused for this member, carried from key to key (the
   * newest last, at most REFUSED_KEYS_KEPT): a refused key is never offered again.
   */
  refusedFingerprints?: string[];
}

export const REFUSED_KEYS_KEPT = 20;

/**
 * What a member's next key carries from the current one: the fingerprints refused so far, the
 * current one among them when it was refused.
 */
export const refusedSoFar = (current: IdentityKey | null): string[] | undefined => {
  const refused = [...(current?.refusedFingerprints ?? []), ...(current?.state === 'refused' ? [current.fingerprint] : [])];
  return refused.length ? refused.slice(-REFUSED_KEYS_KEPT) : undefined;
};

/**
 * Whether the member's next key waits for approval: it replaces a key of their own (verified,
 * awaiting approval or refused). Only a verified key an operator made is replaced at once: the
 * member never held it, so it gives a stolen session nothing more than no key would; a pending or
 * refused one (an operator's replacement) still needs an approver's look at whatever comes next.
 */
export const nextKeyAwaitsApproval = (current: IdentityKey | null) => current !== null && !(current.madeBy === 'operator' && current.state === 'verified');

/** A key as it is given to be registered: its public half, fingerprint, and who made it. */
export type NewIdentityKey = Pick<IdentityKey, 'publicKey' | 'fingerprint' | 'madeBy'>;

export interface Member {
  id: string;
  orgId: string;
  name: string;
  email: string;
  role: Role;
  active: boolean;
  identityKey: IdentityKey | null;
  createdAt: string;
  /**
   * Set when the member is disabled: sessions and sign-in links issued before it stay dead after
   * the member is enabled again (a session cookie taken before the disable must not come back).
   */
  sessionsValidFrom?: string;
}

/** Whether a session or sign-in link issued at `issuedAt` still counts for `member`. */
export const issuedAfterLastDisable = (member: Pick<Member, 'sessionsValidFrom'>, issuedAt: string) =>
  !member.sessionsValidFrom || issuedAt >= member.sessionsValidFrom;

export interface Client {
  id: string;
  orgId: string;
  name: string;
  /** The preset a ticket trigger for this client uses when the post names none. */
  defaultPreset?: string | null;
  createdAt: string;
}

export interface Team {
  id: string;
  orgId: string;
  name: string;
  memberIds: string[];
  createdAt: string;
}

export interface Template {
  id: string;
  orgId: string;
  name: string;
  justification: string | null;
  createdAt: string;
}

export interface PresetDefaults {
  justification?: string;
  ttl_minutes?: number;
  verification_mode?: VerificationMode;
  template_id?: string;
  recipients?: string[];
  delivery?: { method: DeliveryMethod };
  allow_attachments?: boolean;
}

export interface Preset {
  orgId: string;
  slug: string;
  name: string;
  defaults: PresetDefaults;
  /** A ticket trigger takes the requester from the post's `requester_email`. */
  requesterFromTicket?: boolean;
  /** The requester of a ticket trigger when it does not take one from the ticket (or the ticket names none). */
  fallbackRequester?: string | null;
  createdAt: string;
}

export interface ApiKey {
  id: string;
  orgId: string;
  name: string;
  prefix: string;
  /** SHA-256 of the whole key, hex. The key itself is never stored. */
  hash: string;
  scopes: Scope[];
  clientId: string | null;
  allowlist: string[];
  expiresAt: string | null;
  revokedAt: string | null;
  createdAt: string;
  /** When a call last presented the key, to the hour (LAST_USE_PRECISION_MS): absent until first used. */
  lastUsedAt?: string;
}

export interface Recipient {
  membershipId: string;
  label: string;
  fingerprint: string;
  /** The key was made by an operator (IdentityKey.madeBy): its private half is in a file, in no browser. */
  keyMadeBy?: 'operator';
}

/** A member as a recipient, sealed to their registered key as it is now. */
export const recipientOf = (member: Member & { identityKey: IdentityKey }): Recipient => ({
  membershipId: member.id,
  label: member.name,
  fingerprint: member.identityKey.fingerprint,
  ...(member.identityKey.madeBy ? { keyMadeBy: member.identityKey.madeBy } : {}),
});

export interface TicketLink {
  ref: string | null;
  url: string | null;
  externalId: string | null;
  integrationId: string | null;
  status: TicketStatus | null;
  /** Whether the latest status was verified against the ticket system (the generic paths never are). */
  statusVerified?: boolean;
  /** When the latest status arrived. */
  statusAt?: string | null;
  /** When the helpdesk was read for the latest status, when it was verified: an older read must not overrule it. */
  statusReadAt?: string | null;
}

export interface HandoffRequest {
  id: string;
  orgId: string;
  status: RequestStatus;
  client: { id: string; name: string };
  subject: { name: string; email: string | null; phone: string | null };
  ticket: TicketLink | null;
  justification: string;
  template: { id: string; name: string } | null;
  requester: { membershipId: string; name: string | null; email: string | null };
  recipients: Recipient[];
  commit: string;
  ttlMinutes: number;
  verificationMode: VerificationMode;
  allowAttachments: boolean;
  attachmentsCount: number;
  needsRelink: boolean;
  /**
   * The recipients whose key differs from the one the link was committed to, each with the key it
   * had (its fingerprint, null for none) when its trail last recorded the change: a later change
   * is recorded once, even on a link already marked `needsRelink`. Absent: none recorded since the
   * link was made, or the request was marked before these were kept.
   */
  keyChangesRecorded?: RecordedKeyChange[];
  unrecoverable: boolean;
  revealCount: number;
  /** Reports the subject recorded ("Report this request", subject/report.ts); absent on requests never reported. */
  reportsMade?: number;
  purgeReason: string | null;
  revokedReason: string | null;
  /** The spoken challenge code's keyed hash (core/codes.ts codeHash); null when none. */
  challengeCodeHash: string | null;
  createdAt: string;
  linkExpiresAt: string | null;
  openedAt: string | null;
  submittedAt: string | null;
  recordExpiresAt: string | null;
  lastRevealedAt: string | null;
  purgeScheduledAt: string | null;
  completedAt: string | null;
  revokedAt: string | null;
  updatedAt: string;
  /**
   * SHA-256 of the current link's token. A relink replaces it, and a page opened with an older
   * token is told its link was replaced. Absent on requests made before links could be replaced,
   * whose one token is the current one.
   */
  linkTokenHash?: string;
  /** Optimistic-lock version, bumped on every change. */
  version: number;
  /** The subject's verification progress; absent until the subject first tries. */
  verification?: SubjectVerification;
}

/** A recipient's key as its change from the committed one was recorded on the request's trail. */
export interface RecordedKeyChange {
  membershipId: string;
  fingerprint: string | null;
}

export interface SubjectVerification {
  failedAttempts: number;
  challengePassed: boolean;
  emailPassed: boolean;
  /** The emailed one-time code's keyed hash (core/codes.ts codeHash), while one is outstanding. */
  emailCodeHash: string | null;
  emailCodeExpiresAt: string | null;
  emailCodesSent: number;
  /**
   * The SHA-256 hash (hex) of the subject pass the last code passed issued: the flags above belong
   * to the browser holding that pass, never to whoever holds the link. Absent or null: none issued.
   */
  passHash?: string | null;
}

/** Who did something, as recorded in the audit chain. */
export interface Actor {
  type: 'member' | 'subject' | 'system' | 'api';
  label: string | null;
  /** API key id or membership id behind the label, for the audit trail. */
  id?: string | null;
}

/** Who the operator CLI's changes are recorded as. */
export const OPERATOR_ACTOR: Actor = { type: 'system', label: 'operator' };

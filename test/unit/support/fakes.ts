/**
 * In-memory fakes and fixture builders for the unit tests. No I/O: nothing here touches a
 * network, a disk or DynamoDB.
 */
import { generateKeyPairSync } from 'node:crypto';
import type { Caller } from '../../../lambdas/core/caller.ts';
import type { Clock } from '../../../lambdas/core/clock.ts';
import { WriteConflict } from '../../../lambdas/core/errors.ts';
import { normaliseIdentityKey } from '../../../lambdas/core/fingerprint.ts';
import type {
  ApiKey,
  Client,
  HandoffRequest,
  IdentityKeyState,
  Member,
  Organisation,
  Preset,
  Team,
  Template,
} from '../../../lambdas/core/model.ts';
import { DEFAULT_POLICY, DEFAULT_RATE_LIMITS } from '../../../lambdas/core/policy.ts';
import type {
  AuditEntry,
  AuditEntryInput,
  Directory,
  DuePage,
  DuePaging,
  Notifier,
  RequestQuery,
  RequestRepository,
} from '../../../lambdas/core/ports.ts';

export const ORG_ID = '01hzzzzzzzzzzzzzzzzzzzzor1';
export const CLIENT_ID = '01hzzzzzzzzzzzzzzzzzzzzcl1';
export const OTHER_CLIENT_ID = '01hzzzzzzzzzzzzzzzzzzzzcl2';
export const KEY_ID = '01hzzzzzzzzzzzzzzzzzzzzke1';
export const URLS = { baseUrl: 'https://api.example.test/v1', appUrl: 'https://app.example.test' };
export const FIXED_NOW = new Date('2025-03-04T05:06:07.000Z');

export const fixedClock = (at: Date = FIXED_NOW): Clock => ({ now: () => new Date(at.getTime()) });

/** A fresh EC P-256 public key as the service stores it. */
export const p256Key = () => {
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return normaliseIdentityKey(publicKey.export({ format: 'pem', type: 'spki' }).toString());
};

export const makeOrg = (overrides: Partial<Organisation> = {}): Organisation => ({
  id: ORG_ID,
  name: 'Acme IT',
  plan: 'team',
  policy: structuredClone(DEFAULT_POLICY),
  rateLimits: { ...DEFAULT_RATE_LIMITS },
  defaultClientId: CLIENT_ID,
  createdAt: '2024-01-01T00:00:00.000Z',
  ...overrides,
});

export const makeApiKey = (overrides: Partial<ApiKey> = {}): ApiKey => ({
  id: KEY_ID,
  orgId: ORG_ID,
  name: 'Helpdesk integration',
  prefix: 'chs_live_abcdef',
  hash: 'f'.repeat(64),
  scopes: ['requests:read', 'requests:write'],
  clientId: null,
  allowlist: [],
  expiresAt: null,
  revokedAt: null,
  createdAt: '2024-01-01T00:00:00.000Z',
  ...overrides,
});

export const makeCaller = (org: Partial<Organisation> = {}, key: Partial<ApiKey> = {}): Caller => ({
  org: makeOrg(org),
  apiKey: makeApiKey(key),
  sourceIp: '203.0.113.7',
});

let memberCounter = 0;
/** A member with a deterministic, sortable id; `keyState: null` gives a member with no identity key. */
export const makeMember = (
  name: string,
  options: { id?: string; email?: string; keyState?: IdentityKeyState | null; active?: boolean } = {},
): Member => {
  memberCounter += 1;
  const key = options.keyState === null ? null : p256Key();
  return {
    id: options.id ?? `01hmember${String(memberCounter).padStart(17, '0')}`,
    orgId: ORG_ID,
    name,
    email: options.email ?? `${name.toLowerCase().replace(/\s+/g, '.')}@acme.test`,
    role: 'member',
    active: options.active ?? true,
    identityKey: key ? { ...key, state: options.keyState ?? 'verified', registeredAt: '2024-01-01T00:00:00.000Z' } : null,
    createdAt: '2024-01-01T00:00:00.000Z',
  };
};

export class FakeDirectory implements Directory {
  members: Member[] = [];
  clients: Client[] = [
    { id: CLIENT_ID, orgId: ORG_ID, name: 'Default client', createdAt: '2024-01-01T00:00:00.000Z' },
    { id: OTHER_CLIENT_ID, orgId: ORG_ID, name: 'Other client', createdAt: '2024-01-01T00:00:00.000Z' },
  ];
  teams: Team[] = [];
  templates: Template[] = [];
  presets: Preset[] = [];
  integrations: string[] = [];
  /** The client an integration is for; absent: organisation-wide. */
  integrationClients: Record<string, string> = {};

  async getOrganisation(orgId: string) {
    return orgId === ORG_ID ? makeOrg() : null;
  }
  async listMembers(orgId: string) {
    return this.members.filter((m) => m.orgId === orgId);
  }
  async getClient(orgId: string, clientId: string) {
    return this.clients.find((c) => c.orgId === orgId && c.id === clientId) ?? null;
  }
  async getTeam(orgId: string, teamId: string) {
    return this.teams.find((t) => t.orgId === orgId && t.id === teamId) ?? null;
  }
  async getTemplate(orgId: string, templateId: string) {
    return this.templates.find((t) => t.orgId === orgId && t.id === templateId) ?? null;
  }
  async getPreset(orgId: string, slug: string) {
    return this.presets.find((p) => p.orgId === orgId && p.slug === slug) ?? null;
  }
  async getIntegration(orgId: string, integrationId: string) {
    return orgId === ORG_ID && this.integrations.includes(integrationId) ? { clientId: this.integrationClients[integrationId] ?? null } : null;
  }
}

const auditEntryOf = (input: AuditEntryInput, seq: number): AuditEntry => ({
  ...input,
  seq,
  occurredAt: FIXED_NOW.toISOString(),
  prevHash: '0'.repeat(64),
  hash: String(seq).padStart(64, '0'),
});

export interface UpdateCall {
  before: HandoffRequest;
  after: HandoffRequest;
  audit: AuditEntryInput;
  purgeMaterial: boolean;
  /** Entries appended after `audit` in the same transaction. */
  followUps?: AuditEntryInput[];
}

/**
 * A page of a byDue index whose entries are `indexed` (ids, in index order), as a store's dueBy
 * answers: up to `limit` of them after the id `page.after` stopped at (that id itself may have
 * left the index since), and where to go on, null when nothing is left.
 */
export const duePageOf = (indexed: readonly string[], page: DuePaging = {}): DuePage => {
  const after = page.after?.index?.id as string | undefined;
  const rest = after === undefined ? [...indexed] : indexed.filter((id) => id > after);
  const ids = rest.slice(0, page.limit ?? 100);
  return { ids, next: rest.length > ids.length ? { index: { id: ids.at(-1)! } } : null };
};

/** An in-memory RequestRepository with optimistic locking on `version`, recording every call. */
export class FakeRequestRepository implements RequestRepository {
  readonly items = new Map<string, HandoffRequest>();
  readonly created: Array<{ request: HandoffRequest; linkTokenHash: string; audit: AuditEntryInput }> = [];
  readonly updates: UpdateCall[] = [];
  readonly listQueries: RequestQuery[] = [];
  getCalls = 0;
  /** Runs before each update; may change the stored record or throw, to stage a race. */
  beforeUpdate: ((call: UpdateCall, attempt: number) => void) | null = null;
  private updateAttempts = 0;
  private seq = 0;

  async get(requestId: string) {
    this.getCalls += 1;
    const item = this.items.get(requestId);
    return item ? structuredClone(item) : null;
  }
  async list(query: RequestQuery) {
    this.listQueries.push(query);
    const items = [...this.items.values()]
      .filter((r) => r.orgId === query.orgId && (!query.clientId || r.client.id === query.clientId))
      .filter((r) => !query.status || r.status === query.status)
      .sort((a, b) => (a.id < b.id ? 1 : -1));
    return { items: items.slice(0, query.limit), nextCursor: items.length > query.limit ? items[query.limit - 1].id : null };
  }
  async create(request: HandoffRequest, linkTokenHash: string, audit: AuditEntryInput) {
    this.items.set(request.id, structuredClone(request));
    this.created.push({ request: structuredClone(request), linkTokenHash, audit: structuredClone(audit) });
    return auditEntryOf(audit, ++this.seq);
  }
  /** Every noteTicketRead call, applied or not. */
  readonly noteCalls: Array<[string, string]> = [];
  /** As the store notes a read: on the verified status the request holds, a later read time only. */
  async noteTicketRead(request: HandoffRequest, readAt: string) {
    this.noteCalls.push([request.id, readAt]);
    const ticket = this.items.get(request.id)?.ticket;
    if (!ticket?.statusVerified || ticket.status !== request.ticket?.status || (ticket.statusReadAt ?? '') >= readAt) return;
    ticket.statusReadAt = readAt;
  }
  async update(before: HandoffRequest, after: HandoffRequest, audit: AuditEntryInput, purgeMaterial: boolean, followUps: AuditEntryInput[] = []) {
    const call: UpdateCall = { before: structuredClone(before), after: structuredClone(after), audit: structuredClone(audit), purgeMaterial };
    if (followUps.length) call.followUps = structuredClone(followUps);
    this.updateAttempts += 1;
    this.beforeUpdate?.(call, this.updateAttempts);
    const stored = this.items.get(before.id);
    if (!stored || stored.version !== before.version) throw new WriteConflict('the request changed');
    this.items.set(after.id, { ...structuredClone(after), version: before.version + 1 });
    this.updates.push(call);
    const entry = auditEntryOf(audit, ++this.seq);
    this.seq += followUps.length;
    return entry;
  }
}

export type SentMessage =
  | ({ channel: 'email' } & Parameters<Notifier['sendEmail']>[0])
  | ({ channel: 'sms' } & Parameters<Notifier['sendSms']>[0]);

export class FakeNotifier implements Notifier {
  readonly sent: SentMessage[] = [];
  failWith: Error | null = null;
  async sendEmail(message: Parameters<Notifier['sendEmail']>[0]) {
    if (this.failWith) throw this.failWith;
    this.sent.push({ channel: 'email', ...message });
  }
  async sendSms(message: Parameters<Notifier['sendSms']>[0]) {
    if (this.failWith) throw this.failWith;
    this.sent.push({ channel: 'sms', ...message });
  }
}

/** A complete stored request; every optional date set so that a view test sees non-null values. */
export const makeRequest = (overrides: Partial<HandoffRequest> = {}): HandoffRequest => ({
  id: '01hrequest0000000000000001',
  orgId: ORG_ID,
  status: 'pending',
  client: { id: CLIENT_ID, name: 'Default client' },
  subject: { name: 'Sam Subject', email: 'sam@customer.test', phone: '+447911123456' },
  ticket: { ref: 'INC-42', url: 'https://tickets.test/INC-42', externalId: 'ext-42', integrationId: '01hintegration000000000001', status: 'open' },
  justification: 'Need the router admin password',
  template: { id: '01htemplate000000000000001', name: 'Router' },
  requester: { membershipId: '01hmember00000000000000001', name: 'Tess Tech', email: 'tess@acme.test' },
  recipients: [{ membershipId: '01hmember00000000000000001', label: 'Tess Tech', fingerprint: 'ab'.repeat(32) }],
  commit: 'COMMITcommitCOMMITcomm',
  ttlMinutes: 1440,
  verificationMode: 'challenge',
  allowAttachments: true,
  attachmentsCount: 2,
  needsRelink: false,
  unrecoverable: false,
  revealCount: 3,
  purgeReason: 'purge-reason',
  revokedReason: 'revoked-reason',
  challengeCodeHash: 'cd'.repeat(32),
  createdAt: '2025-01-01T00:00:00.000Z',
  linkExpiresAt: '2025-01-04T00:00:00.000Z',
  openedAt: '2025-01-01T01:00:00.000Z',
  submittedAt: '2025-01-01T02:00:00.000Z',
  recordExpiresAt: '2025-01-02T02:00:00.000Z',
  lastRevealedAt: '2025-01-01T03:00:00.000Z',
  purgeScheduledAt: '2025-01-01T04:00:00.000Z',
  completedAt: '2025-01-01T05:00:00.000Z',
  revokedAt: '2025-01-01T06:00:00.000Z',
  updatedAt: '2025-01-01T06:00:00.000Z',
  version: 1,
  ...overrides,
});

import type { AuditType } from '#core/audit-types.ts';
import { addressForLookup } from '#core/email-address.ts';
import { organisationAudit } from '#core/organisation-audit.ts';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '#core/clock.ts';
import { WriteConflict } from '#core/errors.ts';
import { newId } from '#core/ids.ts';
import type {
  Actor,
  Client,
  IdentityKey,
  Member,
  NewIdentityKey,
  Organisation,
  Plan,
  Policy,
  PresetDefaults,
  RateLimits,
  Role,
} from '#core/model.ts';
import { OPERATOR_ACTOR, refusedSoFar } from '#core/model.ts';
import { DEFAULT_POLICY, DEFAULT_RATE_LIMITS } from '#core/policy.ts';
import { createApiKey, revokeApiKey, type ApiKeyInput } from '#core/use-cases/api-keys.ts';
import { heldByAnotherMember } from '#core/use-cases/member-keys.ts';
import { DynamoApiKeyStore } from './api-key-store.ts';
import type { AuditLog, TransactItem } from './audit-log.ts';
import { DynamoDirectory } from './directory.ts';
import { DynamoIdentityKeys } from './member-keys.ts';
import { DynamoOrganisationChanges, newMemberWrites } from './organisation-changes.ts';
import { setFieldsOf } from './set-fields.ts';
import { operatorActing, type OrganisationDeps } from '#core/use-cases/organisation/acting.ts';
import * as clients from '#core/use-cases/organisation/clients.ts';
import * as members from '#core/use-cases/organisation/members.ts';
import * as teams from '#core/use-cases/organisation/teams.ts';
import { changePolicy, policyView } from '#core/use-cases/organisation/policy.ts';
import { rateLimitsView } from '#core/rate-limits-view.ts';
import * as settings from '#core/use-cases/organisation/presets.ts';
import { DynamoOrganisationSettings } from './organisation-settings.ts';
import type { Documents } from './dynamo.ts';
import { toItem } from './items.ts';
import { keys, type ItemKey } from './keys.ts';

/** One key, one member (member-keys.ts), as the CLI words it. */
const ANOTHER_MEMBERS_KEY_CLI = "this key is another member's: each member needs a key of their own";


/** An organisation recovery's reason is at least this long: its audit entry must say why. */
export const MIN_RECOVERY_REASON_LENGTH = 10;

/**
 * What the operator CLI (and the local seed) changes: organisations, members, clients, teams,
 * templates, presets, policy, plan and API keys. Each change is one transaction with its audit
 * entry.
 */
export class AdminStore {
  readonly directory: DynamoDirectory;
  private readonly identityKeys: DynamoIdentityKeys;
  readonly apiKeys: DynamoApiKeyStore;

  constructor(
    private readonly db: Documents,
    private readonly tableName: string,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly actor: Actor = OPERATOR_ACTOR,
  ) {
    this.directory = new DynamoDirectory(db, tableName);
    this.apiKeys = new DynamoApiKeyStore(db, tableName, audit);
    this.identityKeys = new DynamoIdentityKeys(tableName, audit);
  }

  async createOrganisation(input: { name: string; plan: Plan; policy?: Partial<Policy> }) {
    const at = this.now();
    const orgId = newId();
    const defaultClient: Client = { id: newId(), orgId, name: `${input.name} (internal)`, createdAt: at };
    const org: Organisation = {
      id: orgId,
      name: input.name,
      plan: input.plan,
      policy: { ...DEFAULT_POLICY, ...input.policy, ticket: { ...DEFAULT_POLICY.ticket, ...input.policy?.ticket } },
      rateLimits: { ...DEFAULT_RATE_LIMITS },
      defaultClientId: defaultClient.id,
      createdAt: at,
      // A new organisation has no record from before the ticket index was kept: it covers it from the start.
      ticketIndexCovered: true,
    };
    await this.change(orgId, 'organisation.created', { organisation: { id: orgId, name: org.name, plan: org.plan } }, [
      this.put(keys.organisation(orgId), 'organisation', org),
      this.put(keys.client(orgId, defaultClient.id), 'client', defaultClient),
    ]);
    return org;
  }

  /** Members, clients and teams change by the rules the member application's owners and admins meet too (core/use-cases/organisation/). */
  addMember(input: { orgId: string; name: string; email: string; role: Role; identityKey?: NewIdentityKey }) {
    const { orgId, identityKey, ...fields } = input;
    return members.addMember(this.organisationDeps(), operatorActing(this.actor), orgId, fields, { identityKey });
  }

  /**
   * Organisation recovery: the operator's break-glass step for an organisation that has lost
   * every owner who can get in (the last owner left, or lost their mailbox or identity key). The
   * member with this email becomes an active owner again; with no such member, one is added as a
   * new active owner (which needs a name). A key given here is registered as verified at once.
   *
   * All in one transaction with one `org_recovery.used` audit entry, which is an event: customers
   * see it in GET /events and webhooks subscribed to it, so they can alert on it. Its details carry
   * the reason and the new key's fingerprint, never a key.
   */
  async recoverOrganisation(input: {
    orgId: string;
    email: string;
    reason: string;
    name?: string;
    identityKey?: NewIdentityKey;
  }) {
    await this.requireOrganisation(input.orgId);
    const reason = input.reason.trim();
    if (reason.length < MIN_RECOVERY_REASON_LENGTH) {
      throw new Error(`the reason must be at least ${MIN_RECOVERY_REASON_LENGTH} characters: the audit entry records why the organisation was recovered`);
    }
    const at = this.now();
    const email = addressForLookup(input.email);
    const existing = await this.memberByEmail(input.orgId, email);
    if (input.identityKey && heldByAnotherMember(await this.directory.listMembers(input.orgId), existing?.id ?? '', input.identityKey.fingerprint)) {
      throw new Error(ANOTHER_MEMBERS_KEY_CLI);
    }
    // An operator-attested key: recovery exists for when no owner or admin is left to approve a
    // replacement, so the key is verified at once and replaces any earlier one (setIdentityKey
    // would leave a replacement waiting for an approval nobody can give).
    const identityKey: IdentityKey | undefined = input.identityKey ? { ...input.identityKey, state: 'verified', registeredAt: at } : undefined;
    let member: Member;
    let writes: TransactItem[];
    if (existing) {
      member = { ...existing, role: 'owner', active: true, identityKey: identityKey ?? existing.identityKey };
      writes = [
        this.setFields(keys.member(input.orgId, existing.id), { role: 'owner', active: true, ...(identityKey ? { identityKey } : {}) }),
      ];
    } else {
      const name = input.name?.trim();
      if (!name) throw new Error(`organisation ${input.orgId} has no member with the email ${email}: a name is needed to add them as a new owner`);
      member = members.newMember({ orgId: input.orgId, name, email, role: 'owner', identityKey: input.identityKey, at });
      writes = newMemberWrites(this.tableName, member);
    }
    const entry = await this.change(
      input.orgId,
      'org_recovery.used',
      {
        member: memberRef(member),
        details: { reason, role: 'owner', created_member: !existing, key_fingerprint: identityKey?.fingerprint ?? null },
      },
      writes,
    );
    return { member, createdMember: !existing, entry };
  }

  /**
   * Registers a member's identity key. A first key is verified at once; a replacement waits for
   * an owner or admin to approve it, and until then the member is left out of new requests.
   * Written on condition that the key is still the one read (refused otherwise), as the web
   * application's own key changes are (member-keys.ts).
   */
  async setIdentityKey(orgId: string, memberId: string, key: NewIdentityKey) {
    const member = await this.requireMember(orgId, memberId);
    // One key, one member (member-keys.ts): a reveal must name the one person who holds the key.
    if (heldByAnotherMember(await this.directory.listMembers(orgId), memberId, key.fingerprint)) throw new Error(ANOTHER_MEMBERS_KEY_CLI);
    const refused = refusedSoFar(member.identityKey);
    if (refused?.includes(key.fingerprint)) throw new Error('an owner or admin refused this key for this member: make a new one');
    const state: IdentityKey['state'] = member.identityKey ? 'replaced_pending_approval' : 'verified';
    const identityKey: IdentityKey = { ...key, state, registeredAt: this.now(), ...(refused ? { refusedFingerprints: refused } : {}) };
    const type = member.identityKey ? 'member.key_replaced' : 'member.key_registered';
    const audit = organisationAudit(orgId, this.actor, type, { member: memberRef(member), details: { fingerprint: key.fingerprint, state } });
    await keyChangeOnce(this.identityKeys.replaceIdentityKey(member, member.identityKey ?? null, identityKey, audit));
    return identityKey;
  }

  /**
   * Verifies (approve) or refuses a replacement key, on condition that it is still the one read:
   * never a key the member swapped in meanwhile; and, given the fingerprint checked with the
   * member, only that key. A refused key stays on the member, so their next key waits for approval.
   */
  async decideIdentityKey(orgId: string, memberId: string, decision: 'approve' | 'refuse', reviewedFingerprint?: string) {
    const member = await this.requireMember(orgId, memberId);
    if (member.identityKey?.state !== 'replaced_pending_approval') throw new Error('this member has no key awaiting approval');
    if (reviewedFingerprint !== undefined && reviewedFingerprint.replace(/\s+/g, '').toLowerCase() !== member.identityKey.fingerprint) {
      throw new Error(`the key awaiting approval has the fingerprint ${member.identityKey.fingerprint}, not the one given: check it with the member again`);
    }
    const [state, type] = decision === 'approve' ? (['verified', 'member.key_approved'] as const) : (['refused', 'member.key_refused'] as const);
    const audit = organisationAudit(orgId, this.actor, type, { member: memberRef(member), details: { fingerprint: member.identityKey.fingerprint } });
    await keyChangeOnce(this.identityKeys.replaceIdentityKey(member, member.identityKey, { ...member.identityKey, state }, audit));
  }

  /** Enables or disables a member; a member already in that state is left alone (no second event). */
  setMemberActive(orgId: string, memberId: string, active: boolean) {
    return members.setMemberActive(this.organisationDeps(), operatorActing(this.actor), orgId, memberId, active);
  }

  createClient(orgId: string, name: string) {
    return clients.createClient(this.organisationDeps(), operatorActing(this.actor), orgId, { name });
  }

  createTeam(orgId: string, name: string, memberIds: string[]) {
    return teams.createTeam(this.organisationDeps(), operatorActing(this.actor), orgId, { name, member_ids: memberIds });
  }

  renameTeam(orgId: string, teamId: string, name: string) {
    return teams.renameTeam(this.organisationDeps(), operatorActing(this.actor), orgId, teamId, { name });
  }

  /**
   * Templates, presets, default presets and the policy change by the rules the member
   * application's owners and admins meet too (core/use-cases/organisation/policy.ts, presets.ts).
   */
  createTemplate(orgId: string, name: string, justification: string | null) {
    return settings.createTemplate(this.settingsDeps(), this.actor, orgId, { name, justification });
  }

  /** Creates the preset with this slug, or replaces it; answers the preset. */
  async savePreset(
    orgId: string,
    slug: string,
    name: string,
    defaults: PresetDefaults,
    ticket: { requesterFromTicket?: boolean; fallbackRequester?: string | null } = {},
  ) {
    return this.putPreset(orgId, { slug, name, defaults, requester_from_ticket: ticket.requesterFromTicket, fallback_requester: ticket.fallbackRequester });
  }

  /** The same, from a body in the member endpoints' shape (the CLI's flags, unchecked). */
  async putPreset(orgId: string, body: unknown) {
    return (await settings.savePreset(this.settingsDeps(), this.actor, orgId, body)).preset;
  }

  /**
   * The preset a ticket trigger uses when the post names none: the client's (with a client), else
   * the organisation's. Null clears it.
   */
  setDefaultPreset(orgId: string, clientId: string | null, slug: string | null) {
    return settings.setDefaultPreset(this.settingsDeps(), this.actor, orgId, { client_id: clientId, preset: slug });
  }

  /** Changes the fields `changes` names (in the member endpoints' shape); answers the policy and what changed. */
  changePolicy(orgId: string, changes: unknown) {
    return changePolicy(this.settingsDeps(), this.actor, orgId, changes);
  }

  /** Changes the fields of the policy that `changes` has. */
  async setPolicy(orgId: string, changes: Partial<Omit<Policy, 'ticket'>> & { ticket?: Partial<Policy['ticket']> }) {
    return (await this.changePolicy(orgId, policyView(changes))).policy;
  }

  /**
   * What is already so writes nothing (no second audit entry for a command run again). The change
   * moves the policy version on, as a policy change does: a preset saved or used, or a request
   * made, on the plan read before it commits is judged again under the plan now in force.
   */
  async setPlan(orgId: string, plan: Plan) {
    const org = await this.requireOrganisation(orgId);
    if (org.plan === plan) return;
    await this.change(orgId, 'organisation.plan_changed', { details: { plan } }, [
      {
        Update: {
          TableName: this.tableName,
          Key: keys.organisation(orgId),
          UpdateExpression: 'SET #plan = :plan ADD policyVersion :one',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#plan': 'plan' },
          ExpressionAttributeValues: { ':plan': plan, ':one': 1 },
        },
      },
    ]);
  }

  async setRateLimits(orgId: string, rateLimits: RateLimits) {
    const org = await this.requireOrganisation(orgId);
    if (org.rateLimits?.perKeyPerMinute === rateLimits.perKeyPerMinute && org.rateLimits?.perOrgPerMinute === rateLimits.perOrgPerMinute) return;
    await this.change(orgId, 'organisation.rate_limits_changed', { details: rateLimitsView(rateLimits) }, [
      this.setFields(keys.organisation(orgId), { rateLimits }),
    ]);
  }

  /** Creates a key and returns it with its secret, which is never stored and never shown again (core/use-cases/api-keys.ts). */
  createApiKey(input: ApiKeyInput) {
    return createApiKey(this.apiKeyDeps(), this.actor, input);
  }

  /** Revokes by id or display prefix; the key is refused from the next call on (core/use-cases/api-keys.ts). */
  revokeApiKey(orgId: string, idOrPrefix: string) {
    return revokeApiKey(this.apiKeyDeps(), this.actor, orgId, idOrPrefix);
  }

  private organisationDeps(): OrganisationDeps {
    return { directory: this.directory, changes: new DynamoOrganisationChanges(this.db, this.tableName, this.audit), clock: this.clock };
  }

  private settingsDeps() {
    return { settings: new DynamoOrganisationSettings(this.tableName, this.audit), directory: this.directory, clock: this.clock };
  }

  private apiKeyDeps() {
    return { apiKeys: this.apiKeys, directory: this.directory, clock: this.clock };
  }

  private now() {
    return this.clock.now().toISOString();
  }

  private async requireOrganisation(orgId: string) {
    const org = await this.directory.getOrganisation(orgId);
    if (!org) throw new Error(`no organisation ${orgId}`);
    return org;
  }

  private async requireMember(orgId: string, memberId: string) {
    const member = await this.directory.getMember(orgId, memberId);
    if (!member) throw new Error(`no member ${memberId} in organisation ${orgId}`);
    return member;
  }

  /** The member with this email (the organisation's email index item names them), or null. */
  private async memberByEmail(orgId: string, email: string) {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: keys.memberEmail(orgId, email), ConsistentRead: true }));
    return Item ? this.requireMember(orgId, Item.memberId as string) : null;
  }

  private change(orgId: string, type: AuditType, data: Record<string, unknown>, writes: TransactItem[]) {
    return this.audit.append(organisationAudit(orgId, this.actor, type, data), writes);
  }

  private put(key: ItemKey, kind: string, record: object, mustBeNew = true): TransactItem {
    return {
      Put: {
        TableName: this.tableName,
        Item: toItem(key, kind, record),
        ...(mustBeNew ? { ConditionExpression: 'attribute_not_exists(pk)' } : {}),
      },
    };
  }

  private setFields(key: ItemKey, fields: Record<string, unknown>): TransactItem {
    return setFieldsOf(this.tableName, key, fields);
  }
}

/**
 * A key change that lost to a concurrent one writes nothing, and says so in words: the operator
 * CLI would otherwise report the WriteConflict as a duplicate record.
 */
const keyChangeOnce = async (write: Promise<void>) => {
  try {
    await write;
  } catch (error) {
    if (error instanceof WriteConflict) throw new Error("the member's identity key changed meanwhile: nothing was written; run the command again", { cause: error });
    throw error;
  }
};

const memberRef = (member: Member) => ({ membership_id: member.id, name: member.name, email: member.email });

/** Whether an organisation with this id exists (used by the local seed). */
export const organisationExists = async (db: Documents, tableName: string, orgId: string) =>
  Boolean((await db.send(new GetCommand({ TableName: tableName, Key: keys.organisation(orgId) }))).Item);


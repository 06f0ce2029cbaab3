import type { AuditType } from '../../audit-types.ts';
import { organisationAudit } from '../../organisation-audit.ts';
import * as z from 'zod/mini';
import type { Clock } from '../../clock.ts';
import type { RecipientHealthDeps } from '../recipient-health.ts';
import { notFound } from '../../errors.ts';
import { managerActor, type MemberCaller, type MemberDirectory } from '../../member-access.ts';
import type { Actor, Client, Member, Team } from '../../model.ts';
import type { AuditEntryInput, Directory } from '../../ports.ts';

/**
 * The organisation's members, clients and teams change through the use cases of this folder,
 * whoever asks: the operator CLI (through AdminStore, the operator as actor) and the member
 * application's owners and admins (the member as actor). Each rule is written once, here.
 */

/** Who makes a change: the operator (`member` null), or a signed-in owner or admin. */
export interface Acting {
  actor: Actor;
  member: Member | null;
}

export const operatorActing = (actor: Actor): Acting => ({ actor, member: null });

/** A member endpoint's caller, who must be an owner or admin (403 otherwise). */
export const managerActing = (caller: MemberCaller, action: string): Acting => {
  return { actor: managerActor(caller, action), member: caller.member };
};

/** The writes, each one transaction with its audit entry; a lost condition throws WriteConflict. */
export interface OrganisationChanges {
  /** The member id the organisation's email index names, or null. */
  memberIdByEmail(orgId: string, email: string): Promise<string | null>;
  /** The member and its email and sign-in index items, each on condition that it is new. */
  addMember(member: Member, audit: AuditEntryInput): Promise<void>;
  /**
   * Sets role and active if the member still has the role and state it was read with, and each
   * of `keptOwners` is still an active owner (so two concurrent changes cannot leave none).
   */
  /** `keptOwner`: an owner checked, in the same transaction, to be an active owner still. */
  updateMember(member: Member, next: Pick<Member, 'role' | 'active' | 'sessionsValidFrom'>, audit: AuditEntryInput, keptOwner: Member | null): Promise<void>;
  putClient(client: Client, audit: AuditEntryInput): Promise<void>;
  renameClient(client: Client, name: string, audit: AuditEntryInput): Promise<void>;
  /** The team, on condition that each of its members exists. */
  putTeam(team: Team, audit: AuditEntryInput): Promise<void>;
  /**
   * Sets what `change` holds on condition that the team still has the name and members it was read
   * with and that each member it names exists (else WriteConflict), with one audit entry for each
   * kind of change.
   */
  changeTeam(team: Team, change: TeamChange, audits: AuditEntryInput[]): Promise<void>;
}

/** What a change of a team sets: a new name, its members from now on, or both. */
export type TeamChange = Partial<Pick<Team, 'name' | 'memberIds'>>;

export interface OrganisationDeps {
  directory: MemberDirectory &
    Pick<Directory, 'getClient' | 'getTeam'> & {
      listClients(orgId: string): Promise<Client[]>;
      listTeams(orgId: string): Promise<Team[]>;
    };
  changes: OrganisationChanges;
  clock: Clock;
  /** Where the live requests a disabled or enabled recipient affects are found and marked (unrecoverable). */
  recipientHealth?: RecipientHealthDeps;
}

export const MAX_NAME_LENGTH = 100;

/** A display name: trimmed, 1 to 100 characters. */
export const nameField = () =>
  z
    .string('Must be a string.')
    .check(z.trim(), z.minLength(1, 'Required.'), z.maxLength(MAX_NAME_LENGTH, `Must be at most ${MAX_NAME_LENGTH} characters.`));

/** A body of a name alone: a client made or renamed, a team renamed. */
export const nameInput = z.strictObject({ name: nameField() });

export const requireOrganisation = async (deps: Pick<OrganisationDeps, 'directory'>, orgId: string) => {
  const org = await deps.directory.getOrganisation(orgId);
  if (!org) throw notFound(`No organisation ${orgId}.`);
  return org;
};

/** An audit entry of an organisation change, naming who made it. */
export const changeAudit = (orgId: string, acting: Acting, type: AuditType, data: Record<string, unknown>): AuditEntryInput =>
  organisationAudit(orgId, acting.actor, type, data);


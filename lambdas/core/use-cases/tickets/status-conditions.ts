import { assertIntegrationUnchanged, type Integration } from '../../integration.ts';
import type { ShareWriteCondition } from '../shares/share-lifecycle.ts';
import { PolicyChanged } from './apply-share-ticket-status.ts';
import type { TicketStatusDeps, TicketStatusInput } from './apply-ticket-status.ts';

/*
 * What a ticket status's writes are conditioned on besides the record's own version: the
 * integration whose URL it came to (still the version its post was read under), or else the one the
 * request's ticket is linked through (still the version whose helpdesk connection decided whether
 * the status is only a hint) and, for shares as for requests, the policy it was judged under.
 */

/** The integration a request's ticket is linked through, as read: whether it was connected to its helpdesk, at which version. */
export interface LinkedIntegration {
  id: string;
  version: number;
  helpdesk: boolean;
}

export const linkedIntegration = (integration: Integration | null): LinkedIntegration | undefined =>
  integration ? { id: integration.id, version: integration.version, helpdesk: Boolean(integration.helpdesk) } : undefined;

/**
 * The integration a request's write is conditioned on: the one whose URL the status came to, else
 * the one its ticket is linked through (a status sent with an API key): a helpdesk connected while
 * the status was applied then refuses a close judged without it.
 */
export const integrationCondition = (input: TicketStatusInput, linked: LinkedIntegration | undefined) =>
  sentThrough(input) ?? (linked ? { id: linked.id, version: linked.version } : undefined);

/** A request's write refused: the integration its ticket is linked through, read again to judge the status afresh (undefined once gone). */
export const linkedAgain = async (deps: TicketStatusDeps, orgId: string, linked: LinkedIntegration | undefined) =>
  linked && deps.integrations ? linkedIntegration(await deps.integrations.get(orgId, linked.id)) : linked;

/** The integration whose URL the status came to, at the version its post was understood under. */
export const sentThrough = ({ channel }: TicketStatusInput) =>
  channel.integrationId !== null && channel.integrationVersion !== undefined ? { id: channel.integrationId, version: channel.integrationVersion } : undefined;

/** A write refused because the integration changed: the post is judged again by its sender's URL (IntegrationChanged). */
export const checkIntegrationUnchanged = async (deps: TicketStatusDeps, input: TicketStatusInput) => {
  const read = sentThrough(input);
  if (read && deps.integrations) await assertIntegrationUnchanged(deps.integrations, input.org.id, read);
};

/**
 * What a share's change is conditioned on, as a request's: the integration the status came
 * through, and the policy it is judged under (where the organisation can be read again).
 */
export const shareCondition = (deps: TicketStatusDeps, input: TicketStatusInput): ShareWriteCondition => {
  const policyVersion = deps.directory ? (input.org.policyVersion ?? 0) : undefined;
  return {
    conditions: { integration: sentThrough(input), policyVersion },
    onConflict: async (conditions) => {
      await checkIntegrationUnchanged(deps, input);
      const org = deps.directory ? await deps.directory.getOrganisation(input.org.id) : null;
      if (org && (org.policyVersion ?? 0) !== conditions.policyVersion) throw new PolicyChanged(org);
    },
  };
};

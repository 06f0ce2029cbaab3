import type { Integration } from '#core/integration.ts';
import type { Member, PresetDefaults, Template } from '#core/model.ts';
import { ttlText } from '../../web/app/request-words.ts';

/** How the discovery commands (discovery-commands.ts) word a record's state in a table cell. */

/** An organisation nobody can manage from the application: the operator's recover-org gives it an owner again. */
export type OrganisationStatus = 'active' | 'no_active_owner';
export const organisationStatus = (activeOwners: number): OrganisationStatus => (activeOwners > 0 ? 'active' : 'no_active_owner');
export const ORGANISATION_STATUS_TEXT: Record<OrganisationStatus, string> = { active: 'active', no_active_owner: 'no active owner' };

export const memberCountText = (all: number, active: number) => (all === active ? String(all) : `${all} (${all - active} disabled)`);

/** The member's identity key: none, verified, a replacement awaiting approval (approve-key), or refused (refuse-key). */
export const identityKeyText = (key: Member['identityKey']) => (!key ? 'none' : key.state === 'replaced_pending_approval' ? 'awaiting approval' : key.state);

const JUSTIFICATION_SHOWN = 30;
const clipped = (text: string) => (text.length > JUSTIFICATION_SHOWN ? `${text.slice(0, JUSTIFICATION_SHOWN - 1)}…` : text);
const RECIPIENTS_SHOWN = 2;

/** A preset's saved defaults in short, in the order the new-request form asks for them. */
export const presetDefaultsText = (defaults: PresetDefaults, templates: ReadonlyMap<string, Template>) => {
  const parts = [
    defaults.template_id && `template "${templates.get(defaults.template_id)?.name ?? defaults.template_id}"`,
    defaults.justification && `"${clipped(defaults.justification)}"`,
    defaults.recipients?.length &&
      `to ${defaults.recipients.slice(0, RECIPIENTS_SHOWN).join(', ')}${defaults.recipients.length > RECIPIENTS_SHOWN ? ` +${defaults.recipients.length - RECIPIENTS_SHOWN}` : ''}`,
    defaults.verification_mode && `verify: ${defaults.verification_mode}`,
    defaults.ttl_minutes !== undefined && `keep ${ttlText(defaults.ttl_minutes)}`,
    defaults.delivery && `deliver: ${defaults.delivery.method}`,
    defaults.allow_attachments !== undefined && (defaults.allow_attachments ? 'files allowed' : 'no files'),
  ].filter((part): part is string => typeof part === 'string' && part !== '');
  return parts.length > 0 ? parts.join('; ') : "none (the policy's defaults)";
};

/** Who a ticket trigger using the preset names as the requester. */
export const presetRequesterText = (fromTicket: boolean, fallback: string | null) => {
  if (fromTicket) return fallback ? `from the ticket, else ${fallback}` : 'from the ticket';
  return fallback ?? '-';
};

export const integrationKindText = (integration: Pick<Integration, 'kind' | 'recipe'>) => (integration.recipe ? `${integration.kind} (${integration.recipe})` : integration.kind);

export const integrationAuthText = (auth: Integration['auth']) => (auth.mode === 'header' && auth.headerName ? `header ${auth.headerName}` : auth.mode);

/// <reference lib="dom" />
/**
 * The organisation's settings are several pages (/app/organisation/*) under one nav entry; this
 * row of links, shown at the top of each, moves between them and marks the one shown.
 */
import { tabRow } from './tabs.ts';

export const ORGANISATION_TABS = [
  ['/app/organisation/policy', 'Policy', 'policy'],
  ['/app/organisation/presets', 'Presets and templates', 'presets'],
  ['/app/organisation/clients', 'Clients and teams', 'clients'],
  ['/app/members', 'Members', 'members'],
] as const;

export type OrganisationTab = (typeof ORGANISATION_TABS)[number][2];

export const organisationTabs = (current: OrganisationTab) => tabRow('Organisation settings', ORGANISATION_TABS, current);

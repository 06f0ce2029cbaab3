/// <reference lib="dom" />
/**
 * Words for the states that several pages of the member application show: a request's status
 * badge (the list and the detail page) and an identity key's state (My key and Members).
 * A fingerprint is written by fingerprintCode in web/shared/dom.ts.
 */
import { h } from '../shared/dom.ts';
import type { IdentityKey } from './shapes.ts';

const STATUS_TEXT: Record<string, string> = {
  pending: 'Pending',
  opened: 'Opened',
  submitted: 'Submitted',
  completed: 'Completed',
  revoked: 'Revoked',
  expired: 'Expired',
};
export const statusBadge = (status: string) => h('span', { class: `badge badge-${status}` }, STATUS_TEXT[status] ?? status);

const KEY_STATES: Record<string, string> = {
  verified: 'Verified',
  replaced_pending_approval: 'Replaced; waiting for an owner or admin to approve it',
  revoked: 'Revoked',
};
export const keyStateText = (key: IdentityKey | null) => (key ? (KEY_STATES[key.state] ?? key.state) : 'No key');

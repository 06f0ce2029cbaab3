/// <reference lib="dom" />
/**
 * Members (/app/members, owners and admins): the organisation's members with their roles and
 * keys. A replaced key waits here for approval before requests are sealed to it.
 *
 * Stable hooks for automated tests:
 *   #members (table), rows tr[data-member-id], #approve-<membershipId>
 */
import { fingerprintCode, h, tableWrap } from '../../shared/dom.ts';
import { postThenRender } from '../actions.ts';
import type { AppContext } from '../context.ts';
import { keyStateText } from '../labels.ts';
import { organisationTabs } from '../organisation-tabs.ts';
import type { Member } from '../shapes.ts';

export const membersPage = async (app: AppContext) => {
  if (!app.isAdmin()) return h('div', {}, h('h1', {}, 'Members'), h('p', {}, 'Only owners and admins can see this page.'));
  const { data } = await app.get<{ data: Member[] }>('/app/api/members');
  const rows = data.map((member) => {
    const key = member.identity_key;
    let action: HTMLElement | string = '';
    if (key?.state === 'replaced_pending_approval') {
      const approve = h(
        'button',
        { id: `approve-${member.membership_id}`, type: 'button', 'aria-label': `Approve the new key of ${member.name ?? member.email ?? 'this member'}` },
        'Approve key',
      );
      approve.addEventListener('click', () =>
        postThenRender(app, approve, `/app/api/members/${member.membership_id}/approve-key`, `The new key of ${member.name ?? member.email} is approved.`),
      );
      action = approve;
    }
    return h(
      'tr',
      { 'data-member-id': member.membership_id },
      h('th', { scope: 'row' }, member.name ?? '—', member.email ? h('span', { class: 'sub' }, member.email) : null),
      h('td', {}, member.role),
      h('td', {}, keyStateText(key), key ? h('span', { class: 'sub' }, fingerprintCode(key.fingerprint)) : null),
      h('td', {}, action),
    );
  });
  const table = h(
    'table',
    { id: 'members' },
    h('caption', {}, `Members of ${app.me().organisation.name}`),
    h('thead', {}, h('tr', {}, ...['Member', 'Role', 'Key and fingerprint', 'Action'].map((text) => h('th', { scope: 'col' }, text)))),
    h('tbody', {}, ...rows),
  );
  return h(
    'div',
    {},
    h('h1', {}, 'Members'),
    organisationTabs('members'),
    h('p', {}, 'A replaced key must be approved before requests are sealed to it. Before approving, check its fingerprint with the member by phone or in person.'),
    tableWrap(table),
  );
};

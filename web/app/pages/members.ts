/// <reference lib="dom" />
/**
 * Members (/app/members, owners and admins): the organisation's members with their roles, states
 * and keys. A replaced key waits here for approval before requests are sealed to it, or is refused. Members are
 * invited here (pages/member-invite.ts), their role changed, disabled and enabled again, each
 * change confirmed first. Only owners make owners or change or disable an owner; the last active
 * owner is never demoted or disabled (the service refuses it, whoever asks).
 *
 * Stable hooks for automated tests:
 *   #members (table), rows tr[data-member-id], #approve-<membershipId>, #refuse-<membershipId>,
 *   #role-<membershipId> (select) #change-role-<membershipId>, #disable-<membershipId>, #enable-<membershipId>;
 *   then #member-action-confirmation with #confirm-member-action and #cancel-member-action
 *   invitation: see pages/member-invite.ts
 */
import { messageOf } from '../../shared/api.ts';
import { busy, fingerprintCode, h, say, sayError, tableWrap } from '../../shared/dom.ts';
import { postThenRender } from '../actions.ts';
import { confirmationGroup } from '../confirm-action.ts';
import type { AppContext } from '../context.ts';
import { keyStateText } from '../labels.ts';
import { organisationTabs } from '../organisation-tabs.ts';
import type { Member } from '../shapes.ts';
import { grantableRoles, inviteSection, ROLE_TEXT } from './member-invite.ts';

type ListedMember = Member & { active: boolean };

const nameOf = (member: Member) => member.name ?? member.email ?? 'this member';
const aRole = (role: string) => (role === 'member' ? 'a member' : `an ${role}`);

export const membersPage = async (app: AppContext) => {
  if (!app.isAdmin()) return h('div', {}, h('h1', {}, 'Members'), h('p', {}, 'Only owners and admins can see this page.'));
  const { data } = await app.get<{ data: ListedMember[] }>('/app/api/members');
  const me = app.me().member;
  const { group: confirmation, open } = confirmationGroup('member-action');

  /** The change, once confirmed: posted, the page shown again with it, the focus back on its row's control. */
  const change = (button: HTMLButtonElement, path: string, body: unknown, done: string, focusId: string) =>
    busy(button, async () => {
      try {
        await app.post(path, body);
      } catch (error) {
        return sayError(messageOf(error));
      }
      await app.render({ keepMessages: true, focus: false });
      document.getElementById(focusId)?.focus();
      say(done);
    });

  const actionsOf = (member: ListedMember) => {
    const id = member.membership_id;
    const actions: HTMLElement[] = [];
    if (member.identity_key?.state === 'replaced_pending_approval') {
      const approve = h('button', { id: `approve-${id}`, type: 'button', 'aria-label': `Approve key of ${nameOf(member)}` }, 'Approve key');
      // The fingerprint shown on this row goes with the approval: a key registered meanwhile (another
      // browser, or whoever holds the member's session) is refused, not approved unseen.
      const shown = member.identity_key.fingerprint;
      approve.addEventListener('click', () =>
        postThenRender(app, approve, `/app/api/members/${id}/approve-key`, `The new key of ${nameOf(member)} is approved.`, { fingerprint: shown }),
      );
      const refuse = h('button', { id: `refuse-${id}`, type: 'button', class: 'danger', 'aria-label': `Refuse key of ${nameOf(member)}`, 'aria-expanded': 'false', 'aria-controls': 'member-action-confirmation' }, 'Refuse key');
      refuse.addEventListener('click', () =>
        open(refuse, {
          question: `Refuse the new key of ${nameOf(member)} (fingerprint starting ${shown.slice(0, 4)} ${shown.slice(4, 8)})? Nothing is sealed to it, and they must set up another key, which waits for approval again. Refuse a key the member cannot confirm as theirs.`,
          confirmLabel: 'Yes, refuse this key',
          onConfirm: (yes) => change(yes, `/app/api/members/${id}/refuse-key`, { fingerprint: shown }, `The new key of ${nameOf(member)} is refused.`, `role-${id}`),
        }),
      );
      actions.push(approve, refuse);
    }
    // An admin sees no controls on an owner's row: only owners change owners.
    if (me.role !== 'owner' && member.role === 'owner') return actions;
    const roles = grantableRoles(app);
    const role = h('select', { id: `role-${id}`, 'aria-label': `New role for ${nameOf(member)}` }, ...roles.map((value) => h('option', { value, selected: value === member.role }, ROLE_TEXT[value])));
    const changeRole = h('button', { id: `change-role-${id}`, type: 'button', class: 'secondary', 'aria-expanded': 'false', 'aria-controls': 'member-action-confirmation' }, 'Change role');
    changeRole.setAttribute('aria-label', `Change role of ${nameOf(member)}`);
    changeRole.addEventListener('click', () => {
      if (role.value === member.role) return say(`${nameOf(member)} is already ${aRole(member.role)}: choose another role first.`);
      const next = role.value;
      open(changeRole, {
        question: `Make ${nameOf(member)} ${aRole(next)} instead of ${aRole(member.role)}?${member.membership_id === me.membership_id ? ' This is your own role.' : ''}`,
        confirmLabel: `Yes, make them ${aRole(next)}`,
        onConfirm: (yes) => change(yes, `/app/api/members/${id}/role`, { role: next }, `${nameOf(member)} is now ${aRole(next)}.`, `change-role-${id}`),
      });
    });
    actions.push(h('span', {}, role, ' ', changeRole));
    if (id !== me.membership_id) {
      const verb = member.active ? 'disable' : 'enable';
      const toggle = h('button', { id: `${verb}-${id}`, type: 'button', class: member.active ? 'danger' : 'secondary', 'aria-label': `${member.active ? 'Disable' : 'Enable'} ${nameOf(member)}`, 'aria-expanded': 'false', 'aria-controls': 'member-action-confirmation' }, member.active ? 'Disable' : 'Enable');
      toggle.addEventListener('click', () =>
        open(toggle, {
          question: member.active
            ? `Disable ${nameOf(member)}? They are signed out at once, cannot sign in, and are left out of new requests. You can enable them again.`
            : `Enable ${nameOf(member)} again? They can sign in and receive requests again.`,
          confirmLabel: member.active ? 'Yes, disable them' : 'Yes, enable them',
          onConfirm: (yes) =>
            change(yes, `/app/api/members/${id}/${verb}`, undefined, member.active ? `${nameOf(member)} is disabled and signed out.` : `${nameOf(member)} is enabled again.`, `${member.active ? 'enable' : 'disable'}-${id}`),
        }),
      );
      actions.push(toggle);
    }
    return actions;
  };

  const rows = data.map((member) => {
    const key = member.identity_key;
    return h(
      'tr',
      { 'data-member-id': member.membership_id },
      h('th', { scope: 'row' }, member.name ?? '—', member.email ? h('span', { class: 'sub' }, member.email) : null),
      h('td', {}, ROLE_TEXT[member.role] ?? member.role),
      h('td', {}, h('span', { class: `badge badge-${member.active ? 'active' : 'revoked'}` }, member.active ? 'Active' : 'Disabled')),
      h('td', {}, keyStateText(key), key ? h('span', { class: 'sub' }, fingerprintCode(key.fingerprint)) : null),
      h('td', { class: 'actions' }, ...actionsOf(member)),
    );
  });
  const table = h(
    'table',
    { id: 'members' },
    h('caption', {}, `Members of ${app.me().organisation.name}`),
    h('thead', {}, h('tr', {}, ...['Member', 'Role', 'State', 'Key and fingerprint', 'Actions'].map((text) => h('th', { scope: 'col' }, text)))),
    h('tbody', {}, ...rows),
  );
  return h(
    'div',
    {},
    h('h1', {}, 'Members'),
    organisationTabs('members'),
    h('p', {}, 'A replaced key must be approved before requests are sealed to it. Before approving, check its fingerprint with the member by phone or in person; refuse a key they cannot confirm as theirs.'),
    h(
      'p',
      { class: 'hint', id: 'member-rules' },
      'Only owners can make someone an owner, or change or disable an owner; admins manage admins and members. The last active owner cannot be demoted or disabled. Disabling someone signs them out at once; you can enable them again.',
    ),
    data.length ? tableWrap(table) : h('p', { id: 'no-members' }, 'No members yet. Invite one below.'),
    confirmation,
    inviteSection(app),
  );
};

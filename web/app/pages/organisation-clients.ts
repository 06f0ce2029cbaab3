/// <reference lib="dom" />
/**
 * Clients and teams (/app/organisation/clients, owners and admins): the organisation's clients,
 * made and renamed; its teams with their members, made, renamed and changed. Clients are never deleted
 * (requests and the audit log keep naming them).
 *
 * Stable hooks for automated tests:
 *   clients: #clients (table), rows tr[data-client-id], #no-clients, #rename-<id>;
 *            #rename-client-form #rename-client-name #save-rename-client #cancel-rename-client;
 *            #client-form #client-name #create-client
 *   teams:   #teams (table), rows tr[data-team-id], #no-teams, #rename-team-<id>, #edit-team-<id>;
 *            #rename-team-form #rename-team-name #save-rename-team #cancel-rename-team;
 *            #edit-team-form #edit-team-members (fieldset, input[name="member"]) #save-edit-team #cancel-edit-team;
 *            #team-form #team-name #team-members (fieldset, input[name="member"][value="<membership id>"]) #create-team
 *   a field's refusal in #<control id>-error
 */
import { messageOf } from '../../shared/api.ts';
import { busy, clearMessages, field, h, replaceChildren, say, sayError, tableWrap } from '../../shared/dom.ts';
import type { AppContext } from '../context.ts';
import { fieldErrors, refusedFields } from '../field-errors.ts';
import { organisationTabs } from '../organisation-tabs.ts';
import { newIdempotencyKey } from '../shown-once.ts';
import { maxChars } from '../../shared/max-chars.ts';

interface ClientView {
  id: string;
  name: string;
  default: boolean;
}
interface TeamMember {
  membership_id: string;
  name: string;
  email: string;
  active: boolean;
}
interface TeamView {
  id: string;
  name: string;
  members: TeamMember[];
}
interface TeamList {
  data: TeamView[];
  members: TeamMember[];
}

export const organisationClientsPage = async (app: AppContext) => {
  if (!app.isAdmin()) return h('div', {}, h('h1', {}, 'Clients and teams'), h('p', {}, 'Only owners and admins can see this page.'));
  const [clients, teams] = await Promise.all([app.get<{ data: ClientView[] }>('/app/api/clients'), app.get<TeamList>('/app/api/teams')]);
  return h(
    'div',
    {},
    h('h1', {}, 'Clients and teams'),
    organisationTabs('clients'),
    clientsSection(app, clients.data),
    teamsSection(app, teams),
  );
};

/** After a change: the page again, the change said, the focus on `focusId` (or the heading). */
const showChange = async (app: AppContext, done: string, focusId?: string) => {
  await app.render({ keepMessages: true, focus: !focusId });
  if (focusId) document.getElementById(focusId)?.focus();
  say(done);
};

/** A form that POSTs its body once per distinct body (a retry reuses the Idempotency-Key), its refusals by field. */
const postForm = (
  app: AppContext,
  form: HTMLFormElement,
  submit: HTMLButtonElement,
  options: { path: string | (() => string); controls: Record<string, string>; body: () => Record<string, unknown>; check?: (body: Record<string, unknown>) => Record<string, string[]>; idempotent?: boolean; done: (answer: any) => Promise<void> },
) => {
  const errors = fieldErrors(form, options.controls);
  let last: { key: string; body: string } | null = null;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearMessages();
    const body = options.body();
    const local = options.check?.(body) ?? {};
    if (Object.keys(local).length) return errors.show(local);
    errors.clear();
    void busy(submit, async () => {
      const text = JSON.stringify(body);
      if (last?.body !== text) last = { key: newIdempotencyKey(), body: text };
      const path = typeof options.path === 'string' ? options.path : options.path();
      try {
        const answer = await app.post(path, body, options.idempotent ? { 'Idempotency-Key': last.key } : {});
        await options.done(answer);
      } catch (error) {
        failed(errors, error);
      }
    });
  });
  return errors;
};

/** A refusal by field marked at its controls; any other failure said. */
const failed = (errors: ReturnType<typeof fieldErrors>, error: unknown) => {
  const fields = refusedFields(error);
  if (fields) errors.show(fields);
  else sayError(messageOf(error));
};

/**
 * A form the rows of a list share (rename a client or a team, change a team's members), hidden until a row's
 * button opens it for that row; Cancel or Escape closes it and gives the focus back to the button.
 * Hooks: #<id>-form, #save-<id>, #cancel-<id>.
 */
const rowForm = <Target>(id: string, content: HTMLElement, saveText: string) => {
  const heading = h('h3', { id: `${id}-heading` });
  const save = h('button', { id: `save-${id}`, type: 'submit' }, saveText);
  const cancel = h('button', { id: `cancel-${id}`, type: 'button', class: 'secondary' }, 'Cancel');
  const form = h('form', { id: `${id}-form`, novalidate: true, hidden: true, 'aria-labelledby': heading.id }, heading, content, save, ' ', cancel);
  let current: { target: Target; opener: HTMLButtonElement } | null = null;
  const close = () => {
    form.hidden = true;
    current?.opener.focus();
    current = null;
  };
  cancel.addEventListener('click', close);
  form.addEventListener('keydown', (event) => event.key === 'Escape' && close());
  const open = (opener: HTMLButtonElement, target: Target, title: string) => {
    current = { target, opener };
    heading.textContent = title;
    form.hidden = false;
  };
  return { form, save, open, target: () => current!.target };
};

const nameRequired = (body: Record<string, unknown>): Record<string, string[]> => (String(body.name ?? '') ? {} : { name: ['Enter a name.'] });

/**
 * Renaming a record a row shows (a client, a team): each row's Rename button opens one shared form
 * with the name filled in and focused; once saved, the page comes back with the focus on that
 * row's button. Hooks: #rename-<kind>-form #rename-<kind>-name #save-rename-<kind> #cancel-rename-<kind>.
 */
const renameControl = <T extends { id: string; name: string }>(
  app: AppContext,
  kind: 'client' | 'team',
  options: { path: (record: T) => string; buttonId: (record: T) => string },
) => {
  const input = h('input', { id: `rename-${kind}-name`, name: 'name', type: 'text', ...maxChars(100), autocomplete: 'off', required: true });
  const rename = rowForm<T>(`rename-${kind}`, field('New name', input), 'Save the name');
  const errors = postForm(app, rename.form, rename.save, {
    path: () => options.path(rename.target()),
    controls: { name: input.id },
    body: () => ({ name: input.value.trim() }),
    check: nameRequired,
    done: (renamed: T) => showChange(app, `The ${kind} is now called “${renamed.name}”.`, options.buttonId(renamed)),
  });
  const button = (record: T) => {
    const opener = h('button', { id: options.buttonId(record), type: 'button', class: 'secondary', 'aria-label': `Rename the ${kind} ${record.name}`, 'aria-controls': rename.form.id }, 'Rename');
    opener.addEventListener('click', () => {
      errors.clear();
      rename.open(opener, record, `Rename “${record.name}”`);
      input.value = record.name;
      input.focus();
    });
    return opener;
  };
  return { form: rename.form, button };
};

// --- Clients --------------------------------------------------------------------------------------

const clientsSection = (app: AppContext, clients: ClientView[]) => {
  const rename = renameControl<ClientView>(app, 'client', { path: (client) => `/app/api/clients/${client.id}`, buttonId: (client) => `rename-${client.id}` });
  const rows = clients.map((client) =>
    h(
      'tr',
      { 'data-client-id': client.id },
      h('th', { scope: 'row' }, client.name, client.default ? h('span', { class: 'sub' }, 'Default: requests without a client belong here') : null),
      h('td', {}, rename.button(client)),
    ),
  );
  const list = clients.length
    ? tableWrap(
        h('table', { id: 'clients' }, h('caption', {}, 'Clients, by name'), h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Client'), h('th', { scope: 'col' }, 'Action'))), h('tbody', {}, ...rows)),
      )
    : h('p', { id: 'no-clients' }, 'No clients yet. Add one below.');

  const name = h('input', { id: 'client-name', name: 'name', type: 'text', ...maxChars(100), autocomplete: 'off', required: true });
  const create = h('button', { id: 'create-client', type: 'submit' }, 'Add the client');
  const form = h('form', { id: 'client-form', novalidate: true }, field('Client name', name, 'The customer as your technicians know it, for example “Acme Ltd”.'), create);
  postForm(app, form, create, {
    path: '/app/api/clients',
    controls: { name: 'client-name' },
    body: () => ({ name: name.value.trim() }),
    check: nameRequired,
    idempotent: true,
    done: (client: ClientView) => showChange(app, `The client “${client.name}” is added.`, 'client-name'),
  });
  return h(
    'section',
    { 'aria-labelledby': 'clients-heading' },
    h('h2', { id: 'clients-heading' }, 'Clients'),
    h('p', {}, 'A request, an API key or a preset can belong to a client. Clients are never deleted: requests and the audit log keep naming them.'),
    list,
    rename.form,
    h('h3', {}, 'Add a client'),
    form,
  );
};

// --- Teams ----------------------------------------------------------------------------------------

const memberText = (member: TeamMember) => `${member.name} (${member.email})${member.active ? '' : ', disabled'}`;

/** Fills `fieldset` with checkboxes of the members a team can be made of, those in `chosen` ticked. */
const fillMemberChecks = (fieldset: HTMLFieldSetElement, legend: string, members: TeamMember[], chosen: ReadonlySet<string>) => {
  const boxes = members.map((member) => {
    const boxId = `${fieldset.id}-${member.membership_id}`;
    const box = h('input', { id: boxId, name: 'member', type: 'checkbox', value: member.membership_id, checked: chosen.has(member.membership_id) });
    return { box, row: h('div', { class: 'check' }, box, h('label', { for: boxId }, memberText(member))) };
  });
  replaceChildren(fieldset, h('legend', {}, legend), ...(boxes.length ? boxes.map((b) => b.row) : [h('p', {}, 'The organisation has no members yet.')]));
  return () => boxes.filter((b) => b.box.checked).map((b) => b.box.value);
};

const teamsSection = (app: AppContext, list: TeamList) => {
  const rename = renameControl<TeamView>(app, 'team', { path: (team) => `/app/api/teams/${team.id}`, buttonId: (team) => `rename-team-${team.id}` });
  const editMembers = h('fieldset', { id: 'edit-team-members', class: 'checks' });
  const edit = rowForm<{ team: TeamView; chosen: () => string[] }>('edit-team', editMembers, 'Save the members');
  const teamErrors = fieldErrors(edit.form, { member_ids: 'edit-team-members' });

  const rows = list.data.map((team) => {
    const opener = h('button', { id: `edit-team-${team.id}`, type: 'button', class: 'secondary', 'aria-label': `Change members of ${team.name}`, 'aria-controls': 'edit-team-form' }, 'Change members');
    opener.addEventListener('click', () => {
      const chosen = fillMemberChecks(editMembers, `Members of ${team.name}`, list.members, new Set(team.members.map((m) => m.membership_id)));
      teamErrors.clear();
      edit.open(opener, { team, chosen }, `Change the members of “${team.name}”`);
      (editMembers.querySelector('input') ?? edit.save).focus();
    });
    return h(
      'tr',
      { 'data-team-id': team.id },
      h('th', { scope: 'row' }, team.name),
      h('td', {}, team.members.length ? h('ul', { class: 'plain-list' }, ...team.members.map((m) => h('li', {}, memberText(m)))) : 'No members'),
      h('td', {}, rename.button(team), ' ', opener),
    );
  });
  edit.form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearMessages();
    const current = edit.target();
    void busy(edit.save, async () => {
      try {
        await app.post(`/app/api/teams/${current.team.id}`, { member_ids: current.chosen() });
        await showChange(app, `The members of “${current.team.name}” are saved.`, `edit-team-${current.team.id}`);
      } catch (error) {
        failed(teamErrors, error);
      }
    });
  });

  const table = list.data.length
    ? tableWrap(
        h(
          'table',
          { id: 'teams' },
          h('caption', {}, 'Teams, by name'),
          h('thead', {}, h('tr', {}, ...['Team', 'Members', 'Action'].map((text) => h('th', { scope: 'col' }, text)))),
          h('tbody', {}, ...rows),
        ),
      )
    : h('p', { id: 'no-teams' }, 'No teams yet. Make one below: a team’s members are added together as a request’s recipients.');

  const name = h('input', { id: 'team-name', name: 'name', type: 'text', ...maxChars(100), autocomplete: 'off', required: true });
  const members = h('fieldset', { id: 'team-members', class: 'checks' });
  const chosen = fillMemberChecks(members, 'Members', list.members, new Set());
  const create = h('button', { id: 'create-team', type: 'submit' }, 'Make the team');
  const form = h('form', { id: 'team-form', novalidate: true }, field('Team name', name, 'For example “Night shift” or “Network team”.'), members, create);
  postForm(app, form, create, {
    path: '/app/api/teams',
    controls: { name: 'team-name', member_ids: 'team-members' },
    body: () => ({ name: name.value.trim(), member_ids: chosen() }),
    check: nameRequired,
    idempotent: true,
    done: (team: TeamView) => showChange(app, `The team “${team.name}” is made, with ${team.members.length} member${team.members.length === 1 ? '' : 's'}.`, 'team-name'),
  });
  return h(
    'section',
    { 'aria-labelledby': 'teams-heading' },
    h('h2', { id: 'teams-heading' }, 'Teams'),
    table,
    rename.form,
    edit.form,
    h('h3', {}, 'Make a team'),
    form,
  );
};

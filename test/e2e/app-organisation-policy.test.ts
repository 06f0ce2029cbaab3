/**
 * The member application's organisation settings endpoints over real HTTP (docs/web-api.md,
 * Organisation settings): owners and admins read and change the policy, templates, presets and
 * default presets through the operator CLI's own rules (core/use-cases/organisation/), audited
 * with the member as the actor; a plain member is refused, and so is a POST without its CSRF
 * header; bad input answers 422 by field and writes nothing.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../lambdas/store/keys.ts';
import { runAdminCli } from '../support/admin-cli.ts';
import { MemberBrowser } from '../support/member-browser.ts';
import { auditEntries, expectError, expectKeys, ULID } from '../support/shapes.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;
let admin: MemberBrowser;
let owner: MemberBrowser;
let plain: MemberBrowser;
const adminName = 'Ada Admin';

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Settings Org' });
  const adminEmail = `ada-${org.orgId.slice(-6)}@example.com`;
  await service.admin.addMember({ orgId: org.orgId, name: adminName, email: adminEmail, role: 'admin' });
  admin = await MemberBrowser.signIn(service, adminEmail);
  owner = await MemberBrowser.signIn(service, org.owner.email);
  plain = await MemberBrowser.signIn(service, org.member.email);
});
afterAll(() => service?.stop());

const item = async (key: { pk: string; sk: string }) =>
  (await service.deps.db.send(new GetCommand({ TableName: service.deps.tableName, Key: key, ConsistentRead: true }))).Item;
const storedPolicy = async () => (await item(keys.organisation(org.orgId)))!.policy;
const lastEntry = async (type: string) => (await auditEntries(service, org.orgId)).filter((entry) => entry.type === type).at(-1);

const POLICY_FIELDS = ['ttl_options_minutes', 'default_ttl_minutes', 'minimum_verification', 'default_verification', 'link_lifetime_minutes', 'ticket', 'rotation_signal'];
const TICKET_FIELDS = ['close_statuses', 'trust_unverified_webhooks', 'grace_period_minutes', 'revoke_unsubmitted_on_close'];

describe('GET and POST /app/api/organisation/policy', () => {
  it('shows the policy and what its fields may be', async () => {
    const answer = await admin.call('GET', '/app/api/organisation/policy');
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expectKeys(answer.body, ['policy', 'choices'], 'answer');
    expectKeys(answer.body.policy, POLICY_FIELDS, 'policy');
    expectKeys(answer.body.policy.ticket, TICKET_FIELDS, 'policy.ticket');
    expect(answer.body.policy).toMatchObject({ ttl_options_minutes: [60, 1440, 4320, 10080], default_ttl_minutes: 1440, minimum_verification: 'none' });
    expect(answer.body.choices.verification_modes).toEqual(['none', 'challenge', 'email_otp', 'either', 'both']);
  });

  it('changes only the fields sent, says what changed, and audits it with the member as the actor', async () => {
    const answer = await admin.call('POST', '/app/api/organisation/policy', {
      body: { ttl_options_minutes: [1440, 60, 4320], default_ttl_minutes: 60, minimum_verification: 'challenge', ticket: { grace_period_minutes: 15 } },
    });
    expect(answer.status, answer.text).toBe(200);
    expectKeys(answer.body, ['policy', 'changed'], 'answer');
    expect(answer.body.policy).toMatchObject({ ttl_options_minutes: [60, 1440, 4320], default_ttl_minutes: 60, minimum_verification: 'challenge', default_verification: 'challenge' });
    expect(answer.body.changed).toEqual([
      { field: 'ttl_options_minutes', from: [60, 1440, 4320, 10080], to: [60, 1440, 4320] },
      { field: 'default_ttl_minutes', from: 1440, to: 60 },
      { field: 'minimum_verification', from: 'none', to: 'challenge' },
      { field: 'ticket.grace_period_minutes', from: 0, to: 15 },
    ]);
    expect(await storedPolicy()).toMatchObject({ ttlOptionsMinutes: [60, 1440, 4320], defaultTtlMinutes: 60, minimumVerification: 'challenge', ticket: { gracePeriodMinutes: 15, closeStatuses: ['resolved', 'closed'] } });
    const entry = await lastEntry('organisation.policy_changed');
    expect(entry?.actor).toMatchObject({ type: 'member', label: adminName, id: admin.session!.body.member.membership_id });
    expect((entry?.data as any).details.changed).toHaveLength(4);

    // The new-request form offers what the policy now says.
    const options = await admin.call('GET', '/app/api/request-options');
    expect(options.body.policy).toMatchObject({ ttl_options_minutes: [60, 1440, 4320], default_ttl_minutes: 60, verification_modes: ['challenge', 'both'] });
  });

  it('saving the same values again changes nothing and writes no entry', async () => {
    const before = (await auditEntries(service, org.orgId)).length;
    const answer = await owner.call('POST', '/app/api/organisation/policy', { body: { default_ttl_minutes: 60 } });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.changed).toEqual([]);
    expect((await auditEntries(service, org.orgId)).length).toBe(before);
  });

  it.each([
    ['a default TTL not among the options', { default_ttl_minutes: 10080 }, ['default_ttl_minutes']],
    ['options that leave out the default', { ttl_options_minutes: [1440] }, ['default_ttl_minutes']],
    ['a default verification below the minimum', { default_verification: 'none' }, ['default_verification']],
    ['a minimum above the default verification', { minimum_verification: 'both' }, ['default_verification']],
    ['a TTL option out of range', { ttl_options_minutes: [60, 4] }, ['ttl_options_minutes.1']],
    ['an unknown mode', { minimum_verification: 'retina' }, ['minimum_verification']],
    ['a text where minutes go', { link_lifetime_minutes: '60' }, ['link_lifetime_minutes']],
    ['a grace period over a week', { ticket: { grace_period_minutes: 10081 } }, ['ticket.grace_period_minutes']],
    ['no close status', { ticket: { close_statuses: [] } }, ['ticket.close_statuses']],
    ['an unknown field', { colour: 'red' }, ['colour']],
  ])('refuses %s: 422 by field, nothing written', async (_, body, fields) => {
    const before = await storedPolicy();
    expectError(await admin.call('POST', '/app/api/organisation/policy', { body }), 422, 'validation_failed', fields);
    expect(await storedPolicy()).toEqual(before);
  });

  it('refuses a plain member (403) and a POST without the CSRF header (403)', async () => {
    expectError(await plain.call('GET', '/app/api/organisation/policy'), 403, 'forbidden');
    expectError(await plain.call('POST', '/app/api/organisation/policy', { body: { rotation_signal: true } }), 403, 'forbidden');
    expectError(await admin.call('POST', '/app/api/organisation/policy', { body: { rotation_signal: true }, csrf: false }), 403, 'forbidden');
    expect((await storedPolicy()).rotationSignal).toBe(false);
  });

  it('two saves at once of different fields both hold: the later is made again on what the earlier left', async () => {
    const before = (await storedPolicy()).linkLifetimeMinutes;
    const saves = await Promise.all([
      admin.call('POST', '/app/api/organisation/policy', { body: { link_lifetime_minutes: before + 60 } }),
      owner.call('POST', '/app/api/organisation/policy', { body: { ticket: { grace_period_minutes: 45 } } }),
    ]);
    for (const save of saves) expect(save.status, save.text).toBe(200);
    const stored = await storedPolicy();
    expect(stored.linkLifetimeMinutes).toBe(before + 60);
    expect(stored.ticket.gracePeriodMinutes).toBe(45);
  });

  it('the CLI set-policy goes through the same rule', async () => {
    const refused = await runAdminCli(service.deps.tableName, 'set-policy', ['--org', org.orgId, '--default-ttl', '4320', '--ttl-options', '60,1440']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/default_ttl_minutes: Must be one of the TTL options/);
    const done = await runAdminCli(service.deps.tableName, 'set-policy', ['--org', org.orgId, '--rotation-signal', 'true']);
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(done.stdout).rotation_signal).toBe(true);
    expect((await lastEntry('organisation.policy_changed'))?.actor).toMatchObject({ type: 'system', label: 'operator' });
  });
});

describe('templates and presets', () => {
  let templateId: string;

  it('creates a template (201) and lists it', async () => {
    const answer = await admin.call('POST', '/app/api/templates', { body: { name: 'VPN access', justification: 'We need the VPN password to finish the ticket.' }, headers: { 'Idempotency-Key': `tpl-${org.orgId}` } });
    expect(answer.status, answer.text).toBe(201);
    expectKeys(answer.body, ['id', 'name', 'justification', 'created_at'], 'template');
    expect(answer.body.id).toMatch(ULID);
    templateId = answer.body.id;
    expect(await item(keys.template(org.orgId, templateId))).toMatchObject({ kind: 'template', name: 'VPN access' });
    expect((await lastEntry('template.created'))?.actor).toMatchObject({ type: 'member', label: adminName });
    const listed = await admin.call('GET', '/app/api/templates');
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((t: { id: string }) => t.id)).toContain(templateId);
  });

  it('refuses a template without a name or with a short justification: 422 by field', async () => {
    expectError(await admin.call('POST', '/app/api/templates', { body: { name: ' ', justification: 'short' } }), 422, 'validation_failed', ['name', 'justification']);
    expectError(await plain.call('POST', '/app/api/templates', { body: { name: 'Nope' } }), 403, 'forbidden');
  });

  const preset = (extra: Record<string, unknown> = {}) => ({
    slug: 'vpn-reset',
    name: 'VPN reset',
    defaults: { justification: 'The VPN password after the reset.', ttl_minutes: 60, verification_mode: 'challenge', template_id: templateId, recipients: [org.owner.email], delivery: { method: 'none' }, allow_attachments: true },
    requester_from_ticket: true,
    fallback_requester: org.owner.email,
    ...extra,
  });

  it('creates a preset (201), then replaces it under the same slug (200)', async () => {
    const created = await admin.call('POST', '/app/api/presets', { body: preset() });
    expect(created.status, created.text).toBe(201);
    expectKeys(created.body, ['preset', 'replaced'], 'answer');
    expectKeys(created.body.preset, ['slug', 'name', 'defaults', 'requester_from_ticket', 'fallback_requester', 'created_at'], 'preset');
    expect(created.body.replaced).toBe(false);
    const replaced = await admin.call('POST', '/app/api/presets', { body: preset({ name: 'VPN reset (quiet)', requester_from_ticket: false }) });
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body).toMatchObject({ replaced: true, preset: { name: 'VPN reset (quiet)', requester_from_ticket: false, created_at: created.body.preset.created_at } });
    expect(await item(keys.preset(org.orgId, 'vpn-reset'))).toMatchObject({ name: 'VPN reset (quiet)', requesterFromTicket: false, fallbackRequester: org.owner.email });
    expect((await lastEntry('preset.saved'))?.actor).toMatchObject({ type: 'member', label: adminName });

    const listed = await admin.call('GET', '/app/api/presets');
    expect(listed.status).toBe(200);
    expectKeys(listed.body, ['data', 'preset_access', 'default_preset', 'clients', 'templates', 'members', 'choices'], 'presets answer');
    expect(listed.body.preset_access).toBe(true);
    expect(listed.body.data.map((p: { slug: string }) => p.slug)).toEqual(['vpn-reset']);
  });

  it('refuses a policy change that would leave a preset unusable, naming the preset', async () => {
    const policyBefore = await storedPolicy();
    const narrowed = await admin.call('POST', '/app/api/organisation/policy', { body: { ttl_options_minutes: [1440], default_ttl_minutes: 1440 } });
    expectError(narrowed, 422, 'validation_failed', ['ttl_options_minutes']);
    expect(narrowed.body.errors.ttl_options_minutes[0]).toContain('vpn-reset');
    const raised = await admin.call('POST', '/app/api/organisation/policy', { body: { minimum_verification: 'both', default_verification: 'both' } });
    expectError(raised, 422, 'validation_failed', ['minimum_verification']);
    expect(raised.body.errors.minimum_verification[0]).toContain('vpn-reset');
    expect(await storedPolicy()).toEqual(policyBefore);
  });

  it('of two first saves of one slug at once, one makes it (201) and the other replaces it (200)', async () => {
    const saves = await Promise.all([
      admin.call('POST', '/app/api/presets', { body: preset({ slug: 'racing', name: 'First' }) }),
      owner.call('POST', '/app/api/presets', { body: preset({ slug: 'racing', name: 'Second' }) }),
    ]);
    expect(saves.map((save) => save.status).sort()).toEqual([200, 201]);
    expect(saves.map((save) => save.body.replaced).sort()).toEqual([false, true]);
  });

  it.each([
    ['a bad slug', { slug: 'VPN Reset' }, ['slug']],
    ['a TTL not among the policy options', { defaults: { ttl_minutes: 10080 } }, ['defaults.ttl_minutes']],
    ['a verification below the policy minimum', { defaults: { verification_mode: 'none' } }, ['defaults.verification_mode']],
    ['an unknown template', { defaults: { template_id: '01h00000000000000000000001' } }, ['defaults.template_id']],
    ['an unknown delivery', { defaults: { delivery: { method: 'pigeon' } } }, ['defaults.delivery.method']],
    ['a fallback requester who is no member', { fallback_requester: 'nobody@example.com' }, ['fallback_requester']],
    ['a recipient who is no member', { defaults: { recipients: ['nobody@example.com'] } }, ['defaults.recipients.0']],
  ])('refuses %s: 422 by field', async (_, extra, fields) => {
    expectError(await admin.call('POST', '/app/api/presets', { body: preset({ slug: 'other', ...extra }) }), 422, 'validation_failed', fields);
    expect(await item(keys.preset(org.orgId, 'other'))).toBeUndefined();
  });

  it("sets the organisation's and a client's default preset, and clears it with null", async () => {
    const client = await service.admin.createClient(org.orgId, 'Acme Ltd');
    const forOrg = await admin.call('POST', '/app/api/default-preset', { body: { preset: 'vpn-reset' } });
    expect(forOrg.status, forOrg.text).toBe(200);
    expect(forOrg.body).toEqual({ client_id: null, default_preset: 'vpn-reset' });
    const forClient = await admin.call('POST', '/app/api/default-preset', { body: { client_id: client.id, preset: 'vpn-reset' } });
    expect(forClient.body).toEqual({ client_id: client.id, default_preset: 'vpn-reset' });
    expect((await item(keys.organisation(org.orgId)))!.defaultPreset).toBe('vpn-reset');
    expect((await item(keys.client(org.orgId, client.id)))!.defaultPreset).toBe('vpn-reset');
    expect((await lastEntry('preset.default_set'))?.actor).toMatchObject({ type: 'member', label: adminName });

    const listed = await admin.call('GET', '/app/api/presets');
    expect(listed.body.default_preset).toBe('vpn-reset');
    expect(listed.body.clients).toContainEqual({ id: client.id, name: 'Acme Ltd', default_preset: 'vpn-reset' });

    const cleared = await admin.call('POST', '/app/api/default-preset', { body: { client_id: client.id, preset: null } });
    expect(cleared.body).toEqual({ client_id: client.id, default_preset: null });
    expect((await item(keys.client(org.orgId, client.id)))!.defaultPreset).toBeNull();

    expectError(await admin.call('POST', '/app/api/default-preset', { body: { preset: 'no-such-preset' } }), 422, 'validation_failed', ['preset']);
    // Blank names no preset: null clears the default.
    expectError(await admin.call('POST', '/app/api/default-preset', { body: { preset: '' } }), 422, 'validation_failed', ['preset']);
    expectError(await admin.call('POST', '/app/api/default-preset', { body: { client_id: '01h00000000000000000000002', preset: 'vpn-reset' } }), 422, 'validation_failed', ['client_id']);
    expectError(await plain.call('POST', '/app/api/default-preset', { body: { preset: null } }), 403, 'forbidden');
    expectError(await admin.call('POST', '/app/api/default-preset', { body: { preset: null }, csrf: false }), 403, 'forbidden');
  });

  it('refuses a plain member every list', async () => {
    for (const path of ['/app/api/templates', '/app/api/presets']) expectError(await plain.call('GET', path), 403, 'forbidden');
  });
});

/**
 * POST /requests over real HTTP: the creation result field by field, the Location header, the
 * stored request, link-token hash and audit entry, and every validation rule of the body.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recipientCommitment } from '../../lambdas/core/commitment.ts';
import { codeHash } from '../../lambdas/core/codes.ts';
import { sha256Hex } from '../../lambdas/core/hashing.ts';
import { OPERATOR_ACTOR } from '../../lambdas/core/model.ts';
import { connectIntegration } from '../../lambdas/core/use-cases/integrations/manage-integration.ts';
import { keys } from '../../lambdas/store/keys.ts';
import {
  auditEntriesOfRequest,
  expectCreationResult,
  expectError,
  expectRequest,
  requestItem,
  type CreationResult,
} from '../support/shapes.ts';
import { requestCreation } from '../support/request-creation.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

const ORG_NAME = 'Northwind Support';
const WRITER_NAME = 'Create writer key';
const JUSTIFICATION = 'Need the VPN password to finish the migration';

let service: TestService;
let org: TestOrganisation;
let writer: string;
let reader: string;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: ORG_NAME });
  writer = await service.createKey(org.orgId, { scopes: ['requests:write'], name: WRITER_NAME });
  reader = await service.createKey(org.orgId, { scopes: ['requests:read'], name: 'Create reader key' });
});
afterAll(() => service?.stop());

const { base, create, created, fingerprintOf } = requestCreation(() => ({ service, org, writer, justification: JUSTIFICATION }));

const outboxFiles = () => readdirSync(service.outboxDir).filter((name) => name.endsWith('.json'));

describe('POST /requests: the creation result', () => {
  it('answers 201 with every field of the result and the request as SPEC.md names them', async () => {
    const before = Date.now();
    const answer = await create(base());
    const after = Date.now();
    expect(answer.status, answer.text).toBe(201);
    expect(answer.headers.get('content-type')).toContain('application/json');
    const result = expectCreationResult(answer.body);
    const r = result.request;

    expect(answer.headers.get('location')).toBe(`${service.baseUrl}/requests/${r.id}`);
    expect(r.links).toEqual({ self: `${service.baseUrl}/requests/${r.id}`, app: `${service.appUrl}/app/requests/${r.id}` });

    expect(r.object).toBe('request');
    expect(r.status).toBe('pending');
    expect(r.client).toEqual({ id: org.defaultClientId, name: `${ORG_NAME} (internal)` });
    expect(r.subject).toEqual({ name: 'Jane Doe', email: null, phone: null });
    expect(r.ticket).toBeNull();
    expect(r.justification).toBe(JUSTIFICATION);
    expect(r.template).toBeNull();
    expect(r.requester).toEqual({ membership_id: org.owner.id, name: org.owner.name, email: org.owner.email });
    expect(r.recipients).toEqual([{ label: org.owner.name, membership_id: org.owner.id }]);
    expect(r.ttl_minutes).toBe(1440);
    expect(r.verification_mode).toBe('challenge');
    expect(r.allow_attachments).toBe(false);
    expect(r.attachments_count).toBe(0);
    expect(r.needs_relink).toBe(false);
    expect(r.unrecoverable).toBe(false);
    expect(r.reveal_count).toBe(0);
    expect(r.purge_reason).toBeNull();
    expect(r.revoked_reason).toBeNull();
    const createdAt = Date.parse(r.created_at);
    expect(createdAt).toBeGreaterThanOrEqual(before - 1000);
    expect(createdAt).toBeLessThanOrEqual(after + 1000);
    // The default policy's link lifetime is three days.
    expect(Date.parse(r.link_expires_at!) - createdAt).toBe(4320 * 60_000);
    for (const field of ['opened_at', 'submitted_at', 'record_expires_at', 'last_revealed_at', 'purge_scheduled_at', 'completed_at', 'revoked_at'] as const) {
      expect(r[field], field).toBeNull();
    }

    // link = {app_url}/r/<token>#<commit>; the fragment is the commitment.
    const match = new RegExp(`^${service.appUrl}/r/([A-Za-z0-9_-]{20,})#([A-Za-z0-9_-]{22})$`).exec(result.link!);
    expect(match, result.link!).not.toBeNull();
    const [, token, fragment] = match!;
    expect(fragment).toBe(result.commit);
    expect(result.link_without_fragment).toBe(`${service.appUrl}/r/${token}`);
    expect(result.link).toBe(`${result.link_without_fragment}#${result.commit}`);
    expect(result.commit).toBe(
      recipientCommitment([{ membershipId: org.owner.id, fingerprint: await fingerprintOf(org.orgId, org.owner.id) }]),
    );
    expect(result.challenge_code).toMatch(/^[0-9]{6}$/);
    expect(result.delivery).toBeNull();
    expect(result.excluded_recipients).toEqual([]);
    expect(result.commitment.computed_by).toBe('server');

    // The Request object never carries the link token, the code or the commitment.
    const requestText = JSON.stringify(r);
    expect(requestText).not.toContain(token);
    expect(requestText).not.toContain(result.commit);

    // Reading it back gives the very same object.
    const read = await service.call('GET', `/requests/${r.id}`, { key: reader });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(r);
  });

  it('stores the request, only a hash of the link token and of the code, and one audit entry naming the key', async () => {
    const result = await created(base());
    const r = result.request;
    const token = result.link_without_fragment!.split('/r/')[1];
    const code = result.challenge_code!;

    const item = await requestItem(service, r.id);
    expect(item).toBeDefined();
    expect(item!.status).toBe('pending');
    expect(item!.orgId).toBe(org.orgId);
    expect(item!.commit).toBe(result.commit);
    expect(item!.version).toBe(1);
    const itemText = JSON.stringify(item);
    expect(itemText).not.toContain(token);
    // A keyed hash (HMAC under the code key, core/codes.ts): reading the table is not enough to try the 10^6 codes.
    expect(item!.challengeCodeHash).toBe(await codeHash(service.deps.codeKey, r.id, 'challenge', code));
    expect(item!.challengeCodeHash).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    expect(item!.challengeCodeHash).not.toContain(sha256Hex(`${r.id}:${code}`));

    const link = await service.deps.db.send(
      new GetCommand({ TableName: service.deps.tableName, Key: { pk: `LINK#${sha256Hex(token)}`, sk: 'LINK' }, ConsistentRead: true }),
    );
    expect(link.Item).toMatchObject({ requestId: r.id, orgId: org.orgId });
    expect(JSON.stringify(link.Item)).not.toContain(token);

    const entries = await auditEntriesOfRequest(service, org.orgId, r.id);
    expect(entries.map((e) => e.type)).toEqual(['request.created']);
    const [entry] = entries;
    expect(entry.sk).toMatch(/^SEQ#\d+$/);
    expect(entry.actor.type).toBe('api');
    expect(entry.actor.label).toBe(WRITER_NAME);
    expect(entry.clientId).toBe(org.defaultClientId);
    expect(entry.data.request).toEqual(r);
    expect(entry.data.actor).toEqual({ type: 'api', label: WRITER_NAME });
    const entryText = JSON.stringify(entry);
    expect(entryText).not.toContain(token);
    expect(entryText).not.toContain(result.link);
  });

  it('gives each request its own link and code', async () => {
    const first = await created(base());
    const second = await created(base());
    expect(second.request.id).not.toBe(first.request.id);
    expect(second.link_without_fragment).not.toBe(first.link_without_fragment);
    // Same recipients, same commitment.
    expect(second.commit).toBe(first.commit);
  });
});

describe('POST /requests: body validation', () => {
  it('answers 422 "Unknown field." for a field SPEC.md does not name', async () => {
    const answer = await create(base({ colour: 'blue' }));
    const body = expectError(answer, 422, 'validation_failed', ['colour']);
    expect(body.errors.colour).toEqual(['Unknown field.']);
  });

  it('answers 422 "Unknown field." inside delivery', async () => {
    const answer = await create(base({ delivery: { method: 'none', when: 'now' } }));
    const body = expectError(answer, 422, 'validation_failed', ['delivery.when']);
    expect(body.errors['delivery.when']).toEqual(['Unknown field.']);
  });

  it('answers 422 naming subject_name when it is missing', async () => {
    const { subject_name: _, ...body } = base();
    expectError(await create(body), 422, 'validation_failed', ['subject_name']);
  });

  it('answers 422 naming justification when it is missing', async () => {
    const { justification: _, ...body } = base();
    expectError(await create(body), 422, 'validation_failed', ['justification']);
  });

  it('answers 422 naming recipients when they are missing', async () => {
    const { recipients: _, ...body } = base();
    const answer = await create(body);
    expect(answer.status).toBe(422);
    expect(answer.body.code).toBe('validation_failed');
    expect(Object.keys(answer.body.errors)).toContain('recipients');
  });

  it('answers 422 when the body is not a JSON object', async () => {
    const answer = await service.call('POST', '/requests', { key: writer, rawBody: '[1,2]', headers: { 'Content-Type': 'application/json' } });
    expect(answer.status).toBe(422);
    expect(answer.body.code).toBe('validation_failed');
  });

  const invalid: Array<[string, Record<string, unknown>, string]> = [
    ['subject_name of 1 character', { subject_name: 'J' }, 'subject_name'],
    ['subject_name of 121 characters', { subject_name: 'J'.repeat(121) }, 'subject_name'],
    ['subject_name that is not a string', { subject_name: 42 }, 'subject_name'],
    ['justification of 9 characters', { justification: 'x'.repeat(9) }, 'justification'],
    ['justification of 1001 characters', { justification: 'x'.repeat(1001) }, 'justification'],
    ['no recipients', { recipients: [] }, 'recipients'],
    ['65 recipients', { recipients: Array.from({ length: 65 }, (_, i) => `r${i}@example.com`) }, 'recipients'],
    ['a recipient that is not an email', { recipients: ['not-an-email'] }, 'recipients.0'],
    ['subject_email that is not an email', { subject_email: 'jane' }, 'subject_email'],
    ['subject_phone of 41 characters', { subject_phone: '1'.repeat(41) }, 'subject_phone'],
    ['an invalid subject_phone', { subject_phone: '12345' }, 'subject_phone'],
    ['a subject_phone of letters', { subject_phone: 'call me maybe' }, 'subject_phone'],
    ['requester that is not an email', { requester: 'boss' }, 'requester'],
    ['a team id that is not a ULID', { teams: ['team-1'] }, 'teams.0'],
    ['client_id that is not a ULID', { client_id: 'acme' }, 'client_id'],
    ['preset of 41 characters', { preset: 'p'.repeat(41) }, 'preset'],
    ['template_id that is not a ULID', { template_id: 'tmpl' }, 'template_id'],
    ['ticket_ref of 121 characters', { ticket_ref: 'T'.repeat(121) }, 'ticket_ref'],
    ['ticket_url that is not a URI', { ticket_url: 'not a url' }, 'ticket_url'],
    ['ticket_integration_id that is not a ULID', { ticket_integration_id: 'zendesk' }, 'ticket_integration_id'],
    ['ticket_external_id of 65 characters', { ticket_external_id: 'e'.repeat(65) }, 'ticket_external_id'],
    ['ttl_minutes of 4', { ttl_minutes: 4 }, 'ttl_minutes'],
    ['ttl_minutes of 43201', { ttl_minutes: 43201 }, 'ttl_minutes'],
    ['ttl_minutes not among the policy options', { ttl_minutes: 30 }, 'ttl_minutes'],
    ['ttl_minutes that is not an integer', { ttl_minutes: 60.5 }, 'ttl_minutes'],
    ['ttl_minutes as a string', { ttl_minutes: '60' }, 'ttl_minutes'],
    ['an unknown verification_mode', { verification_mode: 'fingerprint' }, 'verification_mode'],
    ['allow_attachments that is not a boolean', { allow_attachments: 'yes' }, 'allow_attachments'],
    ['an unknown delivery method', { delivery: { method: 'pigeon' } }, 'delivery.method'],
    ['delivery ticket_reply without a reply-capable integration', { delivery: { method: 'ticket_reply' } }, 'delivery.method'],
    ['delivery email without subject_email', { delivery: { method: 'email' } }, 'subject_email'],
    ['delivery sms without subject_phone', { delivery: { method: 'sms' } }, 'subject_phone'],
    ['email_otp without subject_email', { verification_mode: 'email_otp' }, 'subject_email'],
    ['either without subject_email', { verification_mode: 'either' }, 'subject_email'],
    ['both without subject_email', { verification_mode: 'both' }, 'subject_email'],
    ['an unknown preset', { preset: 'no-such-preset' }, 'preset'],
    ['an unknown template_id', { template_id: '01h00000000000000000000001' }, 'template_id'],
    ['an unknown client_id', { client_id: '01h00000000000000000000002' }, 'client_id'],
    ['an unknown ticket_integration_id', { ticket_integration_id: '01h00000000000000000000003' }, 'ticket_integration_id'],
  ];

  it.concurrent.each(invalid)('answers 422 validation_failed for %s, naming only that field', async (_, extra, field) => {
    const answer = await create(base(extra));
    expectError(answer, 422, 'validation_failed', [field]);
  });

  it('stores nothing when the body is refused', async () => {
    const before = await service.call('GET', '/requests?limit=100', { key: reader });
    await create(base({ ttl_minutes: 30 }));
    const after = await service.call('GET', '/requests?limit=100', { key: reader });
    expect(after.body.data.map((r: { id: string }) => r.id)).toEqual(before.body.data.map((r: { id: string }) => r.id));
  });

  const boundaries: Array<[string, Record<string, unknown>, (r: CreationResult) => void]> = [
    ['subject_name of 2 characters', { subject_name: 'Jo' }, (r) => expect(r.request.subject.name).toBe('Jo')],
    ['subject_name of 120 characters', { subject_name: 'J'.repeat(120) }, (r) => expect(r.request.subject.name).toBe('J'.repeat(120))],
    ['justification of 10 characters', { justification: 'x'.repeat(10) }, (r) => expect(r.request.justification).toBe('x'.repeat(10))],
    ['justification of 1000 characters', { justification: 'x'.repeat(1000) }, (r) => expect(r.request.justification).toBe('x'.repeat(1000))],
    ['ticket_ref of 120 characters', { ticket_ref: 'T'.repeat(120) }, (r) => expect(r.request.ticket!.ref).toBe('T'.repeat(120))],
    ['ticket_external_id of 64 characters', { ticket_external_id: 'e'.repeat(64) }, (r) => expect(r.request.ticket!.external_id).toBe('e'.repeat(64))],
  ];

  it.concurrent.each(boundaries)('accepts %s', async (_, extra, check) => {
    check(await created(base(extra)));
  });
});

describe('POST /requests: policy, verification and phone', () => {
  it.concurrent.each([60, 1440, 4320, 10080])('accepts ttl_minutes %i, one of the default policy options', async (ttl) => {
    const { request } = await created(base({ ttl_minutes: ttl }));
    expect(request.ttl_minutes).toBe(ttl);
  });

  it('returns a 6-digit challenge code for challenge, either and both, and null for none and email_otp', async () => {
    const withEmail = { subject_email: 'jane@example.com' };
    const cases: Array<[string, boolean]> = [
      ['challenge', true],
      ['either', true],
      ['both', true],
      ['none', false],
      ['email_otp', false],
    ];
    for (const [mode, hasCode] of cases) {
      const result = await created(base({ verification_mode: mode, ...withEmail }));
      expect(result.request.verification_mode, mode).toBe(mode);
      expect(result.request.subject.email).toBe('jane@example.com');
      if (hasCode) expect(result.challenge_code, mode).toMatch(/^[0-9]{6}$/);
      else expect(result.challenge_code, mode).toBeNull();
      const item = await requestItem(service, result.request.id);
      if (hasCode) expect(item!.challengeCodeHash, mode).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
      else expect(item!.challengeCodeHash ?? null, mode).toBeNull();
    }
  });

  it('reads a national phone number as UK and returns it in E.164', async () => {
    const national = await created(base({ subject_phone: '07400 123456' }));
    expect(national.request.subject.phone).toBe('+447400123456');
    const international = await created(base({ subject_phone: '+44 7400 123456' }));
    expect(international.request.subject.phone).toBe('+447400123456');
    const foreign = await created(base({ subject_phone: '+1 650 253 0000' }));
    expect(foreign.request.subject.phone).toBe('+16502530000');
  });

  // docs/decisions.md: none < either < (challenge | email_otp) < both. challenge and email_otp are different
  // factors, so a minimum of one is met only by itself or both.
  it('enforces the policy minimum verification', async () => {
    const strict = await service.createOrganisation({ name: 'Strict Org' });
    const key = await service.createKey(strict.orgId, { scopes: ['requests:write'] });
    const body = (extra: Record<string, unknown>) => ({
      subject_name: 'Jane Doe',
      subject_email: 'jane@example.com',
      justification: JUSTIFICATION,
      recipients: [strict.owner.email],
      ...extra,
    });
    const expectMinimum = async (minimum: string, allowed: string[]) => {
      await service.admin.setPolicy(strict.orgId, { minimumVerification: minimum as 'none', defaultVerification: minimum as 'none' });
      for (const mode of ['none', 'either', 'challenge', 'email_otp', 'both']) {
        if (allowed.includes(mode)) {
          expect((await created(body({ verification_mode: mode }), key)).request.verification_mode, `${mode} under ${minimum}`).toBe(mode);
        } else {
          expectError(await create(body({ verification_mode: mode }), key), 422, 'validation_failed', ['verification_mode']);
        }
      }
    };

    await expectMinimum('both', ['both']);
    // A policy stored before its default had to meet its minimum: a request left to that default is refused.
    await service.deps.db.send(
      new UpdateCommand({ TableName: service.deps.tableName, Key: keys.organisation(strict.orgId), UpdateExpression: 'SET policy.defaultVerification = :challenge', ExpressionAttributeValues: { ':challenge': 'challenge' } }),
    );
    expectError(await create(body({}), key), 422, 'validation_failed', ['verification_mode']);
    await expectMinimum('challenge', ['challenge', 'both']);
    await expectMinimum('email_otp', ['email_otp', 'both']);
    await expectMinimum('either', ['either', 'challenge', 'email_otp', 'both']);
  });

  it('follows the policy TTL options and default', async () => {
    const custom = await service.createOrganisation({ name: 'Custom TTL Org' });
    const key = await service.createKey(custom.orgId, { scopes: ['requests:write'] });
    await service.admin.setPolicy(custom.orgId, { ttlOptionsMinutes: [30, 120], defaultTtlMinutes: 120, defaultVerification: 'none' });
    const body = (extra: Record<string, unknown>) => ({ subject_name: 'Jane Doe', justification: JUSTIFICATION, recipients: [custom.owner.email], ...extra });
    const byDefault = await created(body({}), key);
    expect(byDefault.request.ttl_minutes).toBe(120);
    expect(byDefault.request.verification_mode).toBe('none');
    expect(byDefault.challenge_code).toBeNull();
    expect((await created(body({ ttl_minutes: 30 }), key)).request.ttl_minutes).toBe(30);
    expectError(await create(body({ ttl_minutes: 1440 }), key), 422, 'validation_failed', ['ttl_minutes']);
  });
});

describe('POST /requests: delivery', () => {
  const readOutbox = (deliveryId: string) => {
    const file = outboxFiles().find((name) => name.includes(deliveryId));
    expect(file, `an outbox file for delivery ${deliveryId}`).toBeDefined();
    const text = readFileSync(join(service.outboxDir, file!), 'utf8');
    return { text, message: JSON.parse(text) as Record<string, any> };
  };

  it('emails the link (not the challenge code) for delivery email', async () => {
    const result = await created(base({ subject_email: 'jane@example.com', delivery: { method: 'email' } }));
    expect(result.delivery).toEqual({ id: expect.stringMatching(/^[0-9a-z]{26}$/), method: 'email', status: 'sent' });
    expect(result.challenge_code).toMatch(/^[0-9]{6}$/);
    const { text, message } = readOutbox(result.delivery!.id);
    expect(message.channel).toBe('email');
    expect(message.to).toBe('jane@example.com');
    expect(message.id).toBe(result.delivery!.id);
    expect(message.text).toContain(result.link);
    // Nothing but the link, the delivery id and the address may hold a digit run like the code.
    const rest = text.split(result.link!).join('').split(result.delivery!.id).join('');
    expect(rest).not.toContain(result.challenge_code);
  });

  it('texts the link (not the challenge code) for delivery sms, to the E.164 number', async () => {
    const result = await created(base({ subject_phone: '07400 123456', delivery: { method: 'sms' } }));
    expect(result.delivery).toEqual({ id: expect.stringMatching(/^[0-9a-z]{26}$/), method: 'sms', status: 'sent' });
    const { text, message } = readOutbox(result.delivery!.id);
    expect(message.channel).toBe('sms');
    expect(message.to).toBe('+447400123456');
    expect(message.text).toContain(result.link);
    const rest = text.split(result.link!).join('').split(result.delivery!.id).join('').split('+447400123456').join('');
    expect(rest).not.toContain(result.challenge_code);
  });

  it('sends nothing for delivery none', async () => {
    const before = outboxFiles().length;
    const result = await created(base({ subject_email: 'jane@example.com', subject_phone: '07400 123456', delivery: { method: 'none' } }));
    expect(result.delivery).toBeNull();
    expect(outboxFiles().length).toBe(before);
  });
});

describe('POST /requests: presets, templates, clients and tickets', () => {
  it('applies a preset, and lets body fields override it', async () => {
    const template = await service.admin.createTemplate(org.orgId, 'VPN template', null);
    await service.admin.savePreset(org.orgId, 'vpn', 'VPN handoff', {
      justification: 'Preset says we need the VPN secret',
      ttl_minutes: 60,
      verification_mode: 'none',
      template_id: template.id,
      recipients: [org.member.email],
      allow_attachments: true,
    });

    const fromPreset = await created({ subject_name: 'Jane Doe', preset: 'vpn' });
    const p = fromPreset.request;
    expect(p.justification).toBe('Preset says we need the VPN secret');
    expect(p.ttl_minutes).toBe(60);
    expect(p.verification_mode).toBe('none');
    expect(fromPreset.challenge_code).toBeNull();
    expect(p.template).toEqual({ id: template.id, name: 'VPN template' });
    expect(p.recipients).toEqual([{ label: org.member.name, membership_id: org.member.id }]);
    expect(p.requester.membership_id).toBe(org.member.id);
    expect(p.allow_attachments).toBe(true);

    const overridden = await created({
      subject_name: 'Jane Doe',
      preset: 'vpn',
      justification: 'The body justification wins',
      ttl_minutes: 4320,
      verification_mode: 'challenge',
      recipients: [org.owner.email],
      allow_attachments: false,
    });
    const o = overridden.request;
    expect(o.justification).toBe('The body justification wins');
    expect(o.ttl_minutes).toBe(4320);
    expect(o.verification_mode).toBe('challenge');
    expect(overridden.challenge_code).toMatch(/^[0-9]{6}$/);
    expect(o.recipients).toEqual([{ label: org.owner.name, membership_id: org.owner.id }]);
    expect(o.allow_attachments).toBe(false);
    expect(o.template).toEqual({ id: template.id, name: 'VPN template' });
  });

  it('applies a preset delivery, with its requirements', async () => {
    await service.admin.savePreset(org.orgId, 'mail-it', 'Mail it', { delivery: { method: 'email' }, verification_mode: 'none' });
    expectError(await create(base({ preset: 'mail-it' })), 422, 'validation_failed', ['subject_email']);
    const result = await created(base({ preset: 'mail-it', subject_email: 'jane@example.com' }));
    expect(result.delivery?.method).toBe('email');
    // The body's own delivery overrides the preset's.
    const none = await created(base({ preset: 'mail-it', subject_email: 'jane@example.com', delivery: { method: 'none' } }));
    expect(none.delivery).toBeNull();
  });

  it('takes the justification from a template when the body has none', async () => {
    const template = await service.admin.createTemplate(org.orgId, 'Firewall', 'Template reason for the firewall');
    const { request } = await created({ subject_name: 'Jane Doe', recipients: [org.owner.email], template_id: template.id });
    expect(request.template).toEqual({ id: template.id, name: 'Firewall' });
    expect(request.justification).toBe('Template reason for the firewall');
  });

  it('files a request under the client named by client_id', async () => {
    const client = await service.admin.createClient(org.orgId, 'Acme Ltd');
    const { request } = await created(base({ client_id: client.id }));
    expect(request.client).toEqual({ id: client.id, name: 'Acme Ltd' });
    const entries = await auditEntriesOfRequest(service, org.orgId, request.id);
    expect(entries[0].clientId).toBe(client.id);
  });

  it('files a client-scoped key\'s requests under its client, and refuses another client with 403', async () => {
    const mine = await service.admin.createClient(org.orgId, 'Scoped Client');
    const theirs = await service.admin.createClient(org.orgId, 'Other Client');
    const scoped = await service.createKey(org.orgId, { scopes: ['requests:write'], clientId: mine.id });
    expect((await created(base(), scoped)).request.client).toEqual({ id: mine.id, name: 'Scoped Client' });
    expect((await created(base({ client_id: mine.id }), scoped)).request.client.id).toBe(mine.id);
    expectError(await create(base({ client_id: theirs.id }), scoped), 403, 'forbidden');
    expectError(await create(base({ client_id: org.defaultClientId }), scoped), 403, 'forbidden');
  });

  it("refuses a client-scoped key linking another client's integration, as POST /tickets/{ref}/status does", async () => {
    const mine = await service.admin.createClient(org.orgId, 'Linking Client');
    const theirs = await service.admin.createClient(org.orgId, 'Linked Elsewhere');
    const scoped = await service.createKey(org.orgId, { scopes: ['requests:write', 'tickets:write'], clientId: mine.id });
    const connect = async (name: string, clientId: string | null) =>
      (await connectIntegration(service.deps, OPERATOR_ACTOR, { orgId: org.orgId, name, clientId })).integration.id;
    const [own, foreign, orgWide] = await Promise.all([connect('Own desk', mine.id), connect('Their desk', theirs.id), connect('Shared desk', null)]);

    expect((await created(base({ ticket_integration_id: own, ticket_external_id: 'E-1' }), scoped)).request.ticket).toMatchObject({ integration_id: own });
    for (const integration of [foreign, orgWide]) {
      expectError(await create(base({ ticket_integration_id: integration, ticket_external_id: 'E-2' }), scoped), 422, 'validation_failed', ['ticket_integration_id']);
      // The ticket status endpoint refuses the same integration the same way, on its own field name.
      const status = await service.call('POST', '/tickets/E-2/status', { key: scoped, body: { status: 'closed', integration_id: integration } });
      expectError(status, 422, 'validation_failed', ['integration_id']);
    }
    // An organisation-wide key may link any of the organisation's integrations, to a request of its client:
    // another client's request would never hear that integration's statuses.
    expect((await created(base({ client_id: theirs.id, ticket_integration_id: foreign, ticket_external_id: 'E-3' }))).request.ticket).toMatchObject({ integration_id: foreign });
    expectError(await create(base({ ticket_integration_id: foreign, ticket_external_id: 'E-4' })), 422, 'validation_failed', ['ticket_integration_id']);
  });

  it('keeps the ticket fields', async () => {
    const { request } = await created(
      base({ ticket_ref: 'INC-1042', ticket_url: 'https://tickets.example.com/INC-1042', ticket_external_id: '98765' }),
    );
    expect(request.ticket).toEqual({
      ref: 'INC-1042',
      url: 'https://tickets.example.com/INC-1042',
      external_id: '98765',
      integration_id: null,
      status: null,
    });
  });

  it('keeps the subject fields', async () => {
    const { request } = await created(base({ subject_name: 'Jane Q. Doe', subject_email: 'jane.doe@example.org', subject_phone: '+447400123456' }));
    expect(request.subject).toEqual({ name: 'Jane Q. Doe', email: 'jane.doe@example.org', phone: '+447400123456' });
    expectRequest(request);
  });
});

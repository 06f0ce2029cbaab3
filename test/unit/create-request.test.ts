import { createHash, createHmac } from 'node:crypto';
import { decodeTime } from 'ulid';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../lambdas/core/errors.ts';
import type { Member } from '../../lambdas/core/model.ts';
import { createRequest, type CreateRequestDeps } from '../../lambdas/core/use-cases/create-request.ts';
import {
  CLIENT_ID,
  FakeDirectory,
  FakeNotifier,
  FakeRequestRepository,
  FIXED_NOW,
  fixedClock,
  KEY_ID,
  makeCaller,
  makeMember,
  ORG_ID,
  OTHER_CLIENT_ID,
  URLS,
} from './support/fakes.ts';

const sha256Hex = (s: string) => createHash('sha256').update(s).digest('hex');
/** The code key of these tests, and the keyed hash recomputed here from its definition (HMAC-SHA-256 of purpose:request:code). */
const CODE_KEY = Buffer.alloc(32, 7);
const codeKey = { mac: async (message: string) => createHmac('sha256', CODE_KEY).update(message).digest('hex') };
const keyedHash = (purpose: string, requestId: string, code: string) => `hmac-sha256:${createHmac('sha256', CODE_KEY).update(`${purpose}:${requestId}:${code}`).digest('hex')}`;
/** The commitment recomputed here from its definition, not by calling the service's function. */
const expectedCommit = (members: Member[]) => {
  const sorted = [...members].sort((a, b) => (a.id < b.id ? -1 : 1));
  const canonical = `[${sorted.map((m) => `{"fingerprint":"${m.identityKey!.fingerprint}","membership_id":"${m.id}"}`).join(',')}]`;
  return createHash('sha256').update(canonical).digest().subarray(0, 16).toString('base64url');
};

const TEMPLATE_ID = '01htemplate000000000000001';
const INTEGRATION_ID = '01hintegration000000000001';
const JUSTIFICATION = 'Need the router admin password for the migration';

let directory: FakeDirectory;
let requests: FakeRequestRepository;
let notifier: FakeNotifier;
let failures: Array<{ error: unknown; requestId: string }>;
let deps: CreateRequestDeps;
let tess: Member, alex: Member, pat: Member, kim: Member, gone: Member;

beforeEach(() => {
  directory = new FakeDirectory();
  requests = new FakeRequestRepository();
  notifier = new FakeNotifier();
  failures = [];
  // Ids in the reverse of the listing order, so sorting by id is observable.
  tess = makeMember('Tess Tech', { id: '01hmember0000000000000000t3' });
  alex = makeMember('Alex Admin', { id: '01hmember0000000000000000a2' });
  pat = makeMember('Pat Pending', { id: '01hmember0000000000000000p1', keyState: 'replaced_pending_approval' });
  kim = makeMember('Kim Keyless', { id: '01hmember0000000000000000k4', keyState: null });
  gone = makeMember('Gone Member', { id: '01hmember0000000000000000g5', active: false });
  directory.members = [tess, alex, pat, kim, gone];
  directory.templates = [
    { id: TEMPLATE_ID, orgId: ORG_ID, name: 'Router', justification: 'Template justification text', createdAt: '2024-01-01T00:00:00.000Z' },
  ];
  directory.integrations = [INTEGRATION_ID];
  deps = {
    directory,
    requests,
    notifier,
    clock: fixedClock(),
    urls: URLS,
    codeKey,
    onDeliveryFailure: (error, requestId) => failures.push({ error, requestId }),
  };
});

const body = (patch: Record<string, unknown> = {}) => ({
  subject_name: 'Sam Subject',
  justification: JUSTIFICATION,
  recipients: [tess.email, alex.email],
  ...patch,
});

const refusal = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => {
      throw new Error('expected a refusal');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
};

describe('createRequest: the happy path', () => {
  it('stores and returns a pending request with a link, commit and challenge code', async () => {
    const result = await createRequest(deps, makeCaller(), body());

    expect(requests.created).toHaveLength(1);
    const { request: stored, linkTokenHash } = requests.created[0];
    const id = result.request.id;
    expect(id).toMatch(/^[0-9a-z]{26}$/);
    expect(decodeTime(id.toUpperCase())).toBe(FIXED_NOW.getTime());
    expect(stored.id).toBe(id);

    expect(result.request.status).toBe('pending');
    expect(result.request.created_at).toBe('2025-03-04T05:06:07.000Z');
    // DEFAULT_POLICY.linkLifetimeMinutes is 4320 (three days).
    expect(result.request.link_expires_at).toBe('2025-03-07T05:06:07.000Z');
    expect(result.request.ttl_minutes).toBe(1440);
    expect(result.request.verification_mode).toBe('challenge');
    expect(result.request.allow_attachments).toBe(false);
    expect(result.request.client).toEqual({ id: CLIENT_ID, name: 'Default client' });
    expect(result.request.subject).toEqual({ name: 'Sam Subject', email: null, phone: null });
    expect(result.request.ticket).toBeNull();
    expect(result.request.template).toBeNull();
    expect(result.request.requester).toEqual({ membership_id: tess.id, name: 'Tess Tech', email: tess.email });
    expect(result.request.recipients).toEqual([
      { label: 'Tess Tech', membership_id: tess.id },
      { label: 'Alex Admin', membership_id: alex.id },
    ]);

    expect(result.commit).toBe(expectedCommit([tess, alex]));
    expect(stored.commit).toBe(result.commit);
    expect(result.link_without_fragment).toMatch(/^https:\/\/app\.example\.test\/r\/[A-Za-z0-9_-]{43}$/);
    expect(result.link).toBe(`${result.link_without_fragment}#${result.commit}`);
    const token = result.link_without_fragment.split('/r/')[1];
    expect(linkTokenHash).toBe(sha256Hex(token));
    expect(JSON.stringify(stored)).not.toContain(token);

    expect(result.challenge_code).toMatch(/^[0-9]{6}$/);
    expect(stored.challengeCodeHash).toBe(keyedHash('challenge', id, result.challenge_code!));
    // Not the unkeyed salted hash, which anyone reading the table could invert by trying 10^6 codes.
    expect(stored.challengeCodeHash).not.toContain(sha256Hex(`${id}:${result.challenge_code}`));
    expect(result.delivery).toBeNull();
    expect(result.excluded_recipients).toEqual([]);
    expect(result.commitment.computed_by).toBe('server');
    expect(result.commitment.note).toMatch(/compromised server/);
    expect(notifier.sent).toEqual([]);
  });

  it('hands requests.create the audit input of request.created, named after the key', async () => {
    const result = await createRequest(deps, makeCaller(), body());
    const { audit } = requests.created[0];
    expect(audit).toEqual({
      orgId: ORG_ID,
      type: 'request.created',
      actor: { type: 'api', label: 'Helpdesk integration', id: KEY_ID },
      clientId: CLIENT_ID,
      requestId: result.request.id,
      data: {
        request: result.request,
        actor: { type: 'api', label: 'Helpdesk integration' },
        justification: JUSTIFICATION,
        details: {},
        // The sealing facts the custody certificate states: public keys' fingerprints and the
        // commitment over them (a hash anyone holding the public keys can compute), never a secret.
        custody: {
          recipients: requests.created[0].request.recipients.map((r) => ({ membership_id: r.membershipId, label: r.label, fingerprint: r.fingerprint })),
          commitment: { value: result.commit, computed_by: 'server' },
        },
      },
    });
    const text = JSON.stringify(audit);
    expect(text).not.toContain(result.link_without_fragment);
    expect(text).not.toContain(`"${result.challenge_code}"`);
  });

  it('gives no challenge code when the mode needs none', async () => {
    const result = await createRequest(deps, makeCaller(), body({ verification_mode: 'none' }));
    expect(result.challenge_code).toBeNull();
    expect(requests.created[0].request.challengeCodeHash).toBeNull();
  });

  it('uses the policy link lifetime, not a constant', async () => {
    const caller = makeCaller();
    caller.org.policy.linkLifetimeMinutes = 90;
    const result = await createRequest(deps, caller, body());
    expect(result.request.link_expires_at).toBe('2025-03-04T06:36:07.000Z');
  });

  it('keeps a ticket reference and stores the subject phone as E.164', async () => {
    const result = await createRequest(
      deps,
      makeCaller(),
      body({ ticket_ref: 'INC-42', ticket_integration_id: INTEGRATION_ID, subject_phone: '07911 123456' }),
    );
    expect(result.request.ticket).toEqual({ ref: 'INC-42', url: null, external_id: null, integration_id: INTEGRATION_ID, status: null });
    expect(result.request.subject.phone).toBe('+447911123456');
  });

  it('creates for the key\'s client when the key is client-scoped', async () => {
    const result = await createRequest(deps, makeCaller({}, { clientId: OTHER_CLIENT_ID }), body());
    expect(result.request.client).toEqual({ id: OTHER_CLIENT_ID, name: 'Other client' });
    expect(requests.created[0].audit.clientId).toBe(OTHER_CLIENT_ID);
  });
});

describe('createRequest: recipients and requester', () => {
  it('defaults the requester to the first recipient', async () => {
    const result = await createRequest(deps, makeCaller(), body({ recipients: [alex.email, tess.email] }));
    expect(result.request.requester.membership_id).toBe(alex.id);
  });

  it('always makes the requester a recipient', async () => {
    const result = await createRequest(deps, makeCaller(), body({ recipients: [tess.email], requester: alex.email }));
    expect(result.request.requester).toEqual({ membership_id: alex.id, name: 'Alex Admin', email: alex.email });
    expect(result.request.recipients.map((r) => r.membership_id).sort()).toEqual([alex.id, tess.id].sort());
    expect(result.commit).toBe(expectedCommit([tess, alex]));
  });

  it('lists a recipient once when named twice (case-insensitively)', async () => {
    const result = await createRequest(deps, makeCaller(), body({ recipients: [tess.email, tess.email.toUpperCase()] }));
    expect(result.request.recipients).toEqual([{ label: 'Tess Tech', membership_id: tess.id }]);
  });

  it('names a member whose replaced key awaits approval in excluded_recipients and leaves them out', async () => {
    const result = await createRequest(deps, makeCaller(), body({ recipients: [tess.email, pat.email] }));
    expect(result.excluded_recipients).toEqual(['Pat Pending']);
    expect(result.request.recipients).toEqual([{ label: 'Tess Tech', membership_id: tess.id }]);
    expect(result.commit).toBe(expectedCommit([tess]));
  });

  it('defaults the requester to the first listed recipient who is included, never to one left out', async () => {
    const result = await createRequest(deps, makeCaller(), body({ recipients: [pat.email, tess.email] }));
    expect(result.excluded_recipients).toEqual(['Pat Pending']);
    expect(result.request.requester.membership_id).toBe(tess.id);
    expect(result.request.recipients.map((r) => r.membership_id)).toContain(result.request.requester.membership_id);
  });

  it('refuses an explicit requester whose replaced key awaits approval (the requester must be a recipient)', async () => {
    const error = await refusal(createRequest(deps, makeCaller(), body({ recipients: [tess.email], requester: pat.email })));
    expect(error.status).toBe(422);
    expect(Object.keys(error.errors!)).toEqual(['requester']);
  });

  it('adds team members, skipping inactive ones and naming keyless ones as left out', async () => {
    const teamId = '01hteam0000000000000000001';
    directory.teams = [{ id: teamId, orgId: ORG_ID, name: 'Ops', memberIds: [alex.id, kim.id, gone.id], createdAt: '2024-01-01T00:00:00.000Z' }];
    const result = await createRequest(deps, makeCaller(), body({ recipients: [tess.email], teams: [teamId] }));
    expect(result.request.recipients.map((r) => r.membership_id)).toEqual([tess.id, alex.id]);
    expect(result.excluded_recipients).toEqual(['Kim Keyless']);
  });

  it('refuses teams that make more than 64 recipients: a submission sealed to more is refused', async () => {
    const many = Array.from({ length: 70 }, (_, i) => makeMember(`Team Member ${i}`));
    directory.members = [tess, ...many];
    directory.teams = [
      { id: '01hteam0000000000000000001', orgId: ORG_ID, name: 'Day', memberIds: many.slice(0, 35).map((m) => m.id), createdAt: '2024-01-01T00:00:00.000Z' },
      { id: '01hteam0000000000000000002', orgId: ORG_ID, name: 'Night', memberIds: many.slice(35).map((m) => m.id), createdAt: '2024-01-01T00:00:00.000Z' },
    ];
    const error = await refusal(createRequest(deps, makeCaller(), body({ recipients: [tess.email], teams: ['01hteam0000000000000000001', '01hteam0000000000000000002'] })));
    expect(error.status).toBe(422);
    expect(Object.keys(error.errors!)).toEqual(['teams']);
    expect(requests.created).toEqual([]);
    // 63 from teams and the one listed: exactly 64 is allowed.
    directory.teams[1]!.memberIds = many.slice(35, 63).map((m) => m.id);
    const result = await createRequest(deps, makeCaller(), body({ recipients: [tess.email], teams: ['01hteam0000000000000000001', '01hteam0000000000000000002'] }));
    expect(result.request.recipients).toHaveLength(64);
  });

  it('refuses a listed recipient without an identity key, an unknown or inactive email, by position', async () => {
    const error = await refusal(
      createRequest(deps, makeCaller(), body({ recipients: [tess.email, kim.email, 'nobody@acme.test', gone.email] })),
    );
    expect(error.status).toBe(422);
    expect(error.code).toBe('validation_failed');
    expect(Object.keys(error.errors!).sort()).toEqual(['recipients.1', 'recipients.2', 'recipients.3']);
    expect(requests.created).toEqual([]);
  });

  it('refuses when only members awaiting approval remain', async () => {
    const error = await refusal(createRequest(deps, makeCaller(), body({ recipients: [pat.email] })));
    expect(error.errors).toEqual({ recipients: ['None of the recipients has a verified identity key.'] });
  });
});

describe('createRequest: presets', () => {
  const presetDefaults = {
    justification: 'Preset justification is long enough',
    ttl_minutes: 60,
    verification_mode: 'none' as const,
    template_id: TEMPLATE_ID,
    recipients: ['alex.admin@acme.test'],
    delivery: { method: 'email' as const },
    allow_attachments: true,
  };
  beforeEach(() => {
    directory.presets = [{ orgId: ORG_ID, slug: 'router', name: 'Router', defaults: presetDefaults, createdAt: '2024-01-01T00:00:00.000Z' }];
  });

  it('applies every preset default when the body sets none of them', async () => {
    const result = await createRequest(deps, makeCaller(), {
      subject_name: 'Sam Subject',
      subject_email: 'sam@customer.test',
      preset: 'router',
    });
    expect(result.request.justification).toBe('Preset justification is long enough');
    expect(result.request.ttl_minutes).toBe(60);
    expect(result.request.verification_mode).toBe('none');
    expect(result.request.template).toEqual({ id: TEMPLATE_ID, name: 'Router' });
    expect(result.request.recipients).toEqual([{ label: 'Alex Admin', membership_id: alex.id }]);
    expect(result.request.allow_attachments).toBe(true);
    expect(result.delivery).toEqual({ id: expect.stringMatching(/^[0-9a-z]{26}$/), method: 'email', status: 'sent' });
    expect(notifier.sent).toHaveLength(1);
  });

  it('lets each body field override the preset', async () => {
    const result = await createRequest(deps, makeCaller(), {
      subject_name: 'Sam Subject',
      preset: 'router',
      justification: 'Body justification wins here',
      ttl_minutes: 4320,
      verification_mode: 'challenge',
      recipients: [tess.email],
      delivery: { method: 'none' },
      allow_attachments: false,
    });
    expect(result.request.justification).toBe('Body justification wins here');
    expect(result.request.ttl_minutes).toBe(4320);
    expect(result.request.verification_mode).toBe('challenge');
    expect(result.request.recipients).toEqual([{ label: 'Tess Tech', membership_id: tess.id }]);
    expect(result.request.allow_attachments).toBe(false);
    expect(result.delivery).toBeNull();
    expect(notifier.sent).toEqual([]);
    // Not overridden: still the preset's.
    expect(result.request.template).toEqual({ id: TEMPLATE_ID, name: 'Router' });
  });

  it('falls back to the template justification when neither body nor preset has one', async () => {
    directory.presets[0].defaults = { template_id: TEMPLATE_ID };
    const result = await createRequest(deps, makeCaller(), { subject_name: 'Sam Subject', recipients: [tess.email], preset: 'router' });
    expect(result.request.justification).toBe('Template justification text');
  });

  it('refuses an unknown preset slug', async () => {
    const error = await refusal(createRequest(deps, makeCaller(), body({ preset: 'nope' })));
    expect(error.status).toBe(422);
    expect(Object.keys(error.errors!)).toEqual(['preset']);
  });
});

describe('createRequest: refusals', () => {
  it.each([
    ['justification missing', { justification: undefined }, 'justification'],
    ['recipients missing (so no requester either)', { recipients: undefined }, 'recipients,requester'],
    ['ttl not a policy option', { ttl_minutes: 30 }, 'ttl_minutes'],
    ['email_otp without subject email', { verification_mode: 'email_otp' }, 'subject_email'],
    ['delivery by email without subject email', { delivery: { method: 'email' } }, 'subject_email'],
    ['delivery by sms without subject phone', { delivery: { method: 'sms' } }, 'subject_phone'],
    ['ticket_reply without an integration', { delivery: { method: 'ticket_reply' } }, 'delivery.method'],
    [
      'ticket_reply through an integration not connected to its helpdesk',
      { delivery: { method: 'ticket_reply' }, ticket_integration_id: INTEGRATION_ID, ticket_external_id: '4242' },
      'delivery.method',
    ],
    ['unparseable phone', { subject_phone: 'call me' }, 'subject_phone'],
    ['unknown client', { client_id: '01hzzzzzzzzzzzzzzzzzzzzcl9' }, 'client_id'],
    ['unknown template', { template_id: '01htemplate000000000000009' }, 'template_id'],
    ['unknown integration', { ticket_integration_id: '01hintegration000000000009' }, 'ticket_integration_id'],
    ['unknown requester', { requester: 'nobody@acme.test' }, 'requester'],
  ])('%s → 422 on %s', async (_, patch, field) => {
    const error = await refusal(createRequest(deps, makeCaller(), body(patch)));
    expect(error.status).toBe(422);
    expect(error.code).toBe('validation_failed');
    expect(Object.keys(error.errors!).sort()).toEqual(field.split(','));
    expect(requests.created).toEqual([]);
  });

  it('refuses a mode below the policy minimum', async () => {
    const caller = makeCaller();
    caller.org.policy.minimumVerification = 'challenge';
    const error = await refusal(createRequest(deps, caller, body({ verification_mode: 'either', subject_email: 's@c.test' })));
    expect(Object.keys(error.errors!)).toEqual(['verification_mode']);
  });

  it('refuses a client-scoped key naming another client with 403', async () => {
    const error = await refusal(createRequest(deps, makeCaller({}, { clientId: OTHER_CLIENT_ID }), body({ client_id: CLIENT_ID })));
    expect(error.status).toBe(403);
    expect(error.code).toBe('forbidden');
  });

  it("refuses a client-scoped key linking another client's or an organisation-wide integration, as unknown (422 on ticket_integration_id)", async () => {
    const OWN = '01hintegration000000000002';
    const THEIRS = '01hintegration000000000003';
    directory.integrations.push(OWN, THEIRS);
    directory.integrationClients = { [OWN]: OTHER_CLIENT_ID, [THEIRS]: CLIENT_ID };
    const scoped = () => makeCaller({}, { clientId: OTHER_CLIENT_ID });
    for (const integration of [THEIRS, INTEGRATION_ID]) {
      const error = await refusal(createRequest(deps, scoped(), body({ ticket_integration_id: integration })));
      expect(error).toMatchObject({ status: 422, code: 'validation_failed', errors: { ticket_integration_id: ['No such ticketing integration.'] } });
      expect(Object.keys(error.errors!)).toEqual(['ticket_integration_id']);
    }
    expect(requests.created).toEqual([]);
    expect((await createRequest(deps, scoped(), body({ ticket_integration_id: OWN }))).request.ticket?.integration_id).toBe(OWN);
    // An organisation-wide key names any of the organisation's integrations.
    expect((await createRequest(deps, makeCaller(), body({ ticket_integration_id: THEIRS }))).request.ticket?.integration_id).toBe(THEIRS);
  });

  it("refuses linking a request to an integration limited to another client (422 on ticket_integration_id), whoever creates it", async () => {
    const OTHERS = '01hintegration000000000004';
    directory.integrations.push(OTHERS);
    directory.integrationClients = { [OTHERS]: OTHER_CLIENT_ID };
    const error = await refusal(createRequest(deps, makeCaller(), body({ client_id: CLIENT_ID, ticket_integration_id: OTHERS })));
    expect(error).toMatchObject({ status: 422, code: 'validation_failed' });
    expect(error.errors).toEqual({ ticket_integration_id: [expect.stringMatching(/^This ticketing integration serves another client/)] });
    expect(requests.created).toEqual([]);
    // The integration's own client, and an organisation-wide integration for any client, are linked.
    expect((await createRequest(deps, makeCaller(), body({ client_id: OTHER_CLIENT_ID, ticket_integration_id: OTHERS }))).request.ticket?.integration_id).toBe(OTHERS);
    expect((await createRequest(deps, makeCaller(), body({ client_id: OTHER_CLIENT_ID, ticket_integration_id: INTEGRATION_ID }))).request.ticket?.integration_id).toBe(INTEGRATION_ID);
  });

  it('refuses a body that is not valid against the schema', async () => {
    const error = await refusal(createRequest(deps, makeCaller(), { subject_name: 'S' }));
    expect(error.status).toBe(422);
    expect(error.errors!.subject_name).toBeDefined();
    await expect(createRequest(deps, makeCaller(), undefined)).rejects.toMatchObject({ status: 422, code: 'validation_failed' });
  });
});

describe('createRequest: delivery', () => {
  it('emails the link (never the challenge code) to the subject', async () => {
    const result = await createRequest(deps, makeCaller(), body({ subject_email: 'sam@customer.test', delivery: { method: 'email' } }));
    expect(result.delivery).toEqual({ id: expect.stringMatching(/^[0-9a-z]{26}$/), method: 'email', status: 'sent' });
    expect(notifier.sent).toHaveLength(1);
    const [message] = notifier.sent;
    expect(message).toMatchObject({ channel: 'email', id: result.delivery!.id, purpose: 'request_link', to: 'sam@customer.test' });
    expect(message.text).toContain(result.link);
    expect(message.text).toContain(JUSTIFICATION);
    expect(result.challenge_code).toMatch(/^[0-9]{6}$/);
    expect(message.text).not.toContain(result.challenge_code!);
    if (message.channel === 'email') expect(message.subject).not.toContain(result.challenge_code!);
  });

  it('texts the link to the E.164 number', async () => {
    const result = await createRequest(deps, makeCaller(), body({ subject_phone: '07911 123456', delivery: { method: 'sms' } }));
    expect(notifier.sent).toHaveLength(1);
    expect(notifier.sent[0]).toMatchObject({ channel: 'sms', to: '+447911123456', id: result.delivery!.id });
    expect(notifier.sent[0].text).toContain(result.link);
    expect(notifier.sent[0].text).not.toContain(result.challenge_code!);
  });

  it('reports a failed delivery, says so in the answer, and still returns the stored request', async () => {
    const boom = new Error('SES is down');
    notifier.failWith = boom;
    const onDeliveryFailure = vi.fn();
    const result = await createRequest({ ...deps, onDeliveryFailure }, makeCaller(), body({ subject_email: 'sam@customer.test', delivery: { method: 'email' } }));
    expect(onDeliveryFailure).toHaveBeenCalledTimes(1);
    expect(onDeliveryFailure).toHaveBeenCalledWith(boom, result.request.id);
    expect(result.request.status).toBe('pending');
    expect(result.link).toMatch(/#/);
    // The caller holds the link: told the email failed, they can send it another way.
    expect(result.delivery).toEqual({ id: expect.any(String), method: 'email', status: 'failed', reason: 'The email could not be sent; send the link another way.' });
    expect(requests.created).toHaveLength(1);
  });
});

/**
 * POST /requests over real HTTP, every validation rule of the body: unknown fields, missing and
 * ill-formed fields answered 422 naming only the field, nothing stored for a refused body, and
 * the values at each bound accepted.
 */
import { describe, expect, it } from 'vitest';
import { base, create, created, reader, service, useCreationService, writer } from '../support/requests-create.ts';
import { expectError, type CreationResult } from '../support/shapes.ts';

useCreationService();

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
    ['subject_email with a non-ASCII mailbox name', { subject_email: 'jürgen@example.com' }, 'subject_email'],
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

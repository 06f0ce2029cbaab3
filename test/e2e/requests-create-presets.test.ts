/**
 * POST /requests over real HTTP with what fills or files a request: a preset (its fields, overridden
 * by the body's, and its delivery), a template's justification, the client named or the client of
 * a client-scoped key, a linked integration, and the ticket and subject fields kept.
 */
import { describe, expect, it } from 'vitest';
import { OPERATOR_ACTOR } from '../../lambdas/core/model.ts';
import { connectIntegration } from '../../lambdas/core/use-cases/integrations/manage-integration.ts';
import { base, create, created, org, service, useCreationService } from '../support/requests-create.ts';
import { auditEntriesOfRequest, expectError, expectRequest } from '../support/shapes.ts';

useCreationService();

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

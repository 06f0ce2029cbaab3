import { describe, expect, it } from 'vitest';
import { EVENT_TYPES, isEventType, SUBSCRIBABLE_EVENT_TYPES, toEventObject } from '../../lambdas/core/events.ts';
import type { AuditEntry } from '../../lambdas/core/ports.ts';

const entry = (overrides: Partial<AuditEntry> = {}): AuditEntry => ({
  orgId: '01hqorg0000000000000000000',
  seq: 42,
  type: 'request.completed',
  occurredAt: '2026-01-02T03:04:05.678Z',
  actor: { type: 'api', label: 'Ticket bot', id: '01hqkey0000000000000000000' },
  clientId: '01hqclient0000000000000000',
  requestId: '01hqreq0000000000000000000',
  data: {
    request: { id: '01hqreq0000000000000000000', object: 'request', status: 'completed', client: { name: 'Acme', id: '01hqclient0000000000000000' } },
    actor: { type: 'api', label: 'Ticket bot' },
    details: { purge_reason: 'completed_via_api' },
  },
  prevHash: 'a'.repeat(64),
  hash: 'b'.repeat(64),
  ...overrides,
});

describe('event types', () => {
  it('lists SPEC.md\'s types and the two extensions; ping cannot be subscribed to', () => {
    expect(EVENT_TYPES).toEqual([
      'request.created', 'request.opened', 'request.submitted', 'request.revealed', 'request.completed',
      'credential.rotation_recommended', 'request.expired', 'request.revoked', 'request.reported',
      'member.disabled', 'org_recovery.used', 'request.relinked', 'request.unrecoverable', 'ping',
    ]);
    expect(SUBSCRIBABLE_EVENT_TYPES).toEqual(EVENT_TYPES.filter((type) => type !== 'ping'));
  });

  it('tells event types from other audit types', () => {
    for (const type of EVENT_TYPES) expect(isEventType(type)).toBe(true);
    for (const type of ['subject.verified', 'api_key.created', 'webhook.created', 'member.enabled', 'member.added', '', 'REQUEST.CREATED']) {
      expect(isEventType(type), type).toBe(false);
    }
  });
});

describe('toEventObject', () => {
  it('builds SPEC.md\'s Event from the stored entry, field by field, in a fixed order', () => {
    const event = toEventObject(entry());
    expect(event).toEqual({
      id: 'evt_42',
      object: 'event',
      type: 'request.completed',
      occurred_at: '2026-01-02T03:04:05.678Z',
      organisation_id: '01hqorg0000000000000000000',
      client_id: '01hqclient0000000000000000',
      seq: 42,
      data: {
        request: { client: { id: '01hqclient0000000000000000', name: 'Acme' }, id: '01hqreq0000000000000000000', object: 'request', status: 'completed' },
        details: { purge_reason: 'completed_via_api' },
        actor: { type: 'api', label: 'Ticket bot' },
      },
    });
    expect(Object.keys(event)).toEqual(['id', 'object', 'type', 'occurred_at', 'organisation_id', 'client_id', 'seq', 'data']);
    expect(Object.keys(event.data)).toEqual(['request', 'details', 'actor']);
  });

  it('gives byte-identical JSON whatever order storage handed the maps back in', () => {
    const a = entry();
    const b = entry({
      data: {
        details: { purge_reason: 'completed_via_api' },
        actor: { label: 'Ticket bot', type: 'api' },
        request: { client: { id: '01hqclient0000000000000000', name: 'Acme' }, status: 'completed', object: 'request', id: '01hqreq0000000000000000000' },
      },
    });
    expect(JSON.stringify(toEventObject(b))).toBe(JSON.stringify(toEventObject(a)));
    expect(JSON.stringify(toEventObject(a))).toBe(JSON.stringify(toEventObject(structuredClone(a))));
  });

  it('carries member and justification when present, details always an object, and never the actor id', () => {
    const event = toEventObject(
      entry({
        type: 'member.disabled',
        clientId: null,
        requestId: null,
        data: { member: { membership_id: 'm', name: 'Tom', email: 't@example.com' }, justification: 'why', actor: { type: 'system', label: null } },
      }),
    );
    expect(event.client_id).toBeNull();
    expect(event.data).toEqual({
      member: { email: 't@example.com', membership_id: 'm', name: 'Tom' },
      justification: 'why',
      details: {},
      actor: { type: 'system', label: null },
    });
    expect(JSON.stringify(event)).not.toContain('01hqkey');
  });

  it('copies only the members SPEC.md lists, never anything else the entry carries', () => {
    const event = toEventObject(entry({ data: { secret: 'whsec_x', token: 't', details: 'not an object' } as Record<string, unknown> }));
    expect(event.data).toEqual({ details: {}, actor: { type: 'api', label: 'Ticket bot' } });
  });
});

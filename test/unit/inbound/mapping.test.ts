import { describe, expect, it } from 'vitest';
import { readInboundPayload } from '../../../lambdas/core/inbound/inbound-payload.ts';
import { DEFAULT_MAPPING, TRIGGER_FIELDS, interpret, problemOf, type FieldMapping } from '../../../lambdas/core/inbound/mapping.ts';

const NO_TRIGGER = { subjectName: null, subjectEmail: null, subjectPhone: null, preset: null, requesterEmail: null };

describe('DEFAULT_MAPPING', () => {
  it('reads SPEC.md field names', () => {
    expect(DEFAULT_MAPPING).toEqual({ ticketId: ['ticket_id'], status: ['status'], fields: {} });
    expect(TRIGGER_FIELDS).toEqual(['subject.name', 'subject.email', 'subject.phone', 'preset', 'requester_email']);
  });
});

describe('interpret', () => {
  it('reads a SPEC-shaped status post', () => {
    const result = interpret({ ticket_id: ' INC-7 ', status: ' Closed ' }, DEFAULT_MAPPING, {});
    expect(result).toEqual({
      ticketId: 'INC-7',
      status: 'closed',
      statusWord: 'closed',
      trigger: NO_TRIGGER,
      sources: { ticketId: { tried: ['ticket_id'], foundAt: 'ticket_id' }, status: { tried: ['status'], foundAt: 'status' } },
    });
  });

  it('turns whole-number ids into text and refuses other ids', () => {
    expect(interpret({ ticket_id: 5158 }, DEFAULT_MAPPING, {}).ticketId).toBe('5158');
    expect(interpret({ ticket_id: 0 }, DEFAULT_MAPPING, {}).ticketId).toBe('0');
    for (const bad of [1.5, -3, Number.MAX_SAFE_INTEGER + 2, true, { id: 1 }, ['1'], 'x'.repeat(121)]) {
      expect(interpret({ ticket_id: bad }, DEFAULT_MAPPING, {}).ticketId).toBeNull();
    }
    expect(interpret({ ticket_id: 'x'.repeat(120) }, DEFAULT_MAPPING, {}).ticketId).toBe('x'.repeat(120));
    expect(interpret({ ticket_id: `  ${'y'.repeat(120)}  ` }, DEFAULT_MAPPING, {}).ticketId).toBe('y'.repeat(120));
    expect(interpret({ ticket_id: '   ' }, DEFAULT_MAPPING, {}).ticketId).toBeNull();
  });

  it('keeps the ticket id exactly as sent apart from surrounding spaces', () => {
    expect(interpret({ ticket_id: 'inc-0042' }, DEFAULT_MAPPING, {}).ticketId).toBe('inc-0042');
  });

  it('follows a configured mapping, first present alternative winning', () => {
    const mapping: FieldMapping = { ticketId: ['detail.id', 'ticket.id'], status: ['event.current', 'ticket.status'], fields: {} };
    expect(interpret({ ticket: { id: 9, status: 'solved' } }, mapping, {})).toMatchObject({
      ticketId: '9',
      status: 'resolved',
      statusWord: 'solved',
      sources: { ticketId: { foundAt: 'ticket.id' }, status: { foundAt: 'ticket.status' } },
    });
    const both = { detail: { id: '1' }, event: { current: 'OPEN' }, ticket: { id: '2', status: 'closed' } };
    expect(interpret(both, mapping, {})).toMatchObject({ ticketId: '1', status: 'open', statusWord: 'open' });
  });

  it('maps statuses through the status map', () => {
    const mapping: FieldMapping = { ticketId: ['id'], status: ['state'], fields: {} };
    expect(interpret({ id: 1, state: 4 }, mapping, { '4': 'resolved' })).toMatchObject({ status: 'resolved', statusWord: '4' });
    expect(interpret({ id: 1, state: 6 }, mapping, { '4': 'resolved' })).toMatchObject({ status: 'unknown', statusWord: '6' });
  });

  it('gives unknown with no word when the status is absent', () => {
    expect(interpret({ ticket_id: '1' }, DEFAULT_MAPPING, {})).toMatchObject({ status: 'unknown', statusWord: null });
  });

  it('treats an empty list of alternatives as the default', () => {
    const mapping: FieldMapping = { ticketId: [], status: [], fields: { preset: [] } };
    expect(interpret({ ticket_id: 'A', status: 'new', preset: 'vpn' }, mapping, {})).toMatchObject({
      ticketId: 'A',
      status: 'open',
      trigger: { preset: 'vpn' },
    });
  });

  it('reads trigger fields under their own names, nested or flat', () => {
    const nested = {
      ticket_id: 'T-1',
      subject: { name: ' Ada Lovelace ', email: 'ada@example.com', phone: '+44 7700 900123' },
      preset: 'vpn-access',
      requester_email: 'tech@example.com',
    };
    expect(interpret(nested, DEFAULT_MAPPING, {}).trigger).toEqual({
      subjectName: 'Ada Lovelace',
      subjectEmail: 'ada@example.com',
      subjectPhone: '+44 7700 900123',
      preset: 'vpn-access',
      requesterEmail: 'tech@example.com',
    });
    const { fields } = readInboundPayload({
      body: 'ticket_id=T-2&subject.name=Grace+Hopper&subject.phone=07700900123',
      contentType: 'application/x-www-form-urlencoded',
      query: { preset: 'wifi' },
    });
    expect(interpret(fields, DEFAULT_MAPPING, {}).trigger).toEqual({
      ...NO_TRIGGER,
      subjectName: 'Grace Hopper',
      subjectPhone: '07700900123',
      preset: 'wifi',
    });
  });

  it('reads trigger fields where the mapping says', () => {
    const mapping: FieldMapping = {
      ticketId: ['ticket.id'],
      status: ['ticket.status'],
      fields: { 'subject.name': ['ticket.requester.name'], 'subject.phone': ['ticket.requester.phone', 'phone'], requester_email: ['ticket.assignee.email'] },
    };
    const fields = { ticket: { id: 3, requester: { name: 'Alan Turing' }, assignee: { email: 'agent@example.com' } }, phone: 447700900123 };
    expect(interpret(fields, mapping, {}).trigger).toEqual({
      ...NO_TRIGGER,
      subjectName: 'Alan Turing',
      subjectPhone: '447700900123',
      requesterEmail: 'agent@example.com',
    });
  });

  it('gives null for empty or non-text trigger values', () => {
    const fields = { subject: { name: '   ', email: 42, phone: { n: 1 } }, preset: ['vpn'], requester_email: true };
    expect(interpret(fields, DEFAULT_MAPPING, {}).trigger).toEqual(NO_TRIGGER);
    expect(interpret({ subject: { phone: Number.NaN } }, DEFAULT_MAPPING, {}).trigger.subjectPhone).toBeNull();
  });
});

describe('problemOf', () => {
  const mapping: FieldMapping = { ticketId: ['detail.id', 'ticket.id'], status: ['event.current', 'ticket.status'], fields: {} };

  it('is null for a usable status post', () => {
    expect(problemOf(interpret({ ticket: { id: 1, status: 'closed' } }, mapping, {}), 'status')).toBeNull();
  });

  it('names the paths where no ticket id was found', () => {
    expect(problemOf(interpret({ ticket: { status: 'closed' } }, mapping, {}), 'status')).toBe('No ticket id at detail.id, ticket.id.');
    expect(problemOf(interpret({}, DEFAULT_MAPPING, {}), 'trigger')).toBe('No ticket id at ticket_id.');
  });

  it('says when the ticket id found is unusable', () => {
    expect(problemOf(interpret({ ticket: { id: { n: 1 } } }, mapping, {}), 'status')).toBe(
      'The ticket id at ticket.id is not text of 1 to 120 characters or a whole number.',
    );
  });

  it('names a status word that is not understood', () => {
    expect(problemOf(interpret({ ticket: { id: 1, status: 'Waiting  on Vendor' } }, mapping, {}), 'status')).toBe(
      'Status "waiting on vendor" is not understood; map it in the integration\'s status map.',
    );
  });

  it('names the paths where no status was found, or a status that is no word', () => {
    expect(problemOf(interpret({ ticket: { id: 1 } }, mapping, {}), 'status')).toBe('No status at event.current, ticket.status.');
    expect(problemOf(interpret({ ticket: { id: 1, status: ['closed'] } }, mapping, {}), 'status')).toBe(
      'The status at ticket.status is not a word or a number.',
    );
  });

  it('checks only the ticket id for a trigger', () => {
    expect(problemOf(interpret({ ticket_id: 'T-1' }, DEFAULT_MAPPING, {}), 'trigger')).toBeNull();
    expect(problemOf(interpret({ ticket_id: 'T-1', status: 'weird' }, DEFAULT_MAPPING, {}), 'trigger')).toBeNull();
  });
});

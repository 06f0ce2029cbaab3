import { describe, expect, it } from 'vitest';
import { DEFAULT_MAPPING, interpret, problemOf, type FieldMapping } from '../../../lambdas/core/inbound/mapping.ts';
import { mergeStatusMaps } from '../../../lambdas/core/inbound/status-words.ts';

/**
 * A helpdesk's JSON can carry a lone surrogate (a `\ud800` escape), at the top or inside an
 * embedded JSON string. Such text is no ticket id and no trigger field: it could be neither stored
 * as text nor hashed into the audit chain, so it reads as absent, with a problem, never a failure.
 */
const statusMap = mergeStatusMaps({});
const LONE = '\ud800';

describe('inbound text that is not well-formed Unicode', () => {
  it('is no ticket id, at the top or in an embedded document', () => {
    const cases: Array<[Record<string, unknown>, FieldMapping]> = [
      [{ ticket_id: `T-${LONE}`, status: 'closed' }, DEFAULT_MAPPING],
      [{ data: JSON.stringify({ ticket_id: `T-${LONE}` }), status: 'closed' }, { ...DEFAULT_MAPPING, ticketId: ['data.ticket_id'] }],
    ];
    for (const [fields, mapping] of cases) {
      const read = interpret({ ...fields }, mapping, statusMap);
      expect(read.ticketId).toBeNull();
      expect(problemOf(read, 'status')).toMatch(/^The ticket id at .* is not text/);
    }
  });

  it('is no subject name, email, phone, preset or requester of a trigger', () => {
    const read = interpret(
      { ticket_id: 'T-1', subject: { name: `Jane ${LONE}`, email: `${LONE}@example.com`, phone: `+44${LONE}` }, preset: LONE, requester_email: `a${LONE}@example.com` },
      DEFAULT_MAPPING,
      statusMap,
    );
    expect(read.ticketId).toBe('T-1');
    expect(read.trigger).toEqual({ subjectName: null, subjectEmail: null, subjectPhone: null, preset: null, requesterEmail: null });
  });

  it('well-formed text beside it, paired surrogates included, still reads', () => {
    const read = interpret({ ticket_id: 'T-😀', subject: { name: 'Jane 😀' } }, DEFAULT_MAPPING, statusMap);
    expect(read.ticketId).toBe('T-😀');
    expect(read.trigger.subjectName).toBe('Jane 😀');
  });
});

describe('a status word that is not well-formed Unicode', () => {
  it('is an unknown status, echoed with U+FFFD for each lone surrogate', async () => {
    const { normaliseTicketStatus, MAX_STATUS_WORD_LENGTH } = await import('../../../lambdas/core/inbound/status-words.ts');
    expect(normaliseTicketStatus(`Clo${LONE}sed`, statusMap)).toEqual({ status: 'unknown', word: 'clo\ufffdsed' });
    // Cutting a long word must not split a surrogate pair into a lone half.
    const cut = normaliseTicketStatus(`${'x'.repeat(MAX_STATUS_WORD_LENGTH - 1)}😀`, statusMap).word!;
    expect(cut).toBe(`${'x'.repeat(MAX_STATUS_WORD_LENGTH - 1)}\ufffd`);
  });
});

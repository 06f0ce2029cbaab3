import { describe, expect, it } from 'vitest';
import { calendarDay, instantOf } from '../../lambdas/core/calendar.ts';
import { ApiError } from '../../lambdas/core/errors.ts';
import { auditLogView, type AuditLogQuery } from '../../lambdas/core/use-cases/audit-log-view.ts';
import type { MemberCaller } from '../../lambdas/core/member-access.ts';

const iso = (date: Date | null) => date?.toISOString() ?? null;

/** Shaped like YYYY-MM-DD, but not on the calendar: each one once rolled over or broke a filter. */
const IMPOSSIBLE_DAYS = ['2020-13-45', '2020-13-01', '2020-00-10', '2020-01-00', '2020-01-32', '2020-02-30', '2023-02-29', '1900-02-29', '2021-04-31'];

describe('calendarDay', () => {
  it('reads a real day as the instant it starts, in UTC', () => {
    expect(iso(calendarDay('2024-02-29'))).toBe('2024-02-29T00:00:00.000Z');
    expect(iso(calendarDay('2000-02-29'))).toBe('2000-02-29T00:00:00.000Z');
    expect(iso(calendarDay('2021-12-31'))).toBe('2021-12-31T00:00:00.000Z');
    expect(iso(calendarDay('0050-01-01'))).toBe('0050-01-01T00:00:00.000Z');
  });

  it.each(IMPOSSIBLE_DAYS)('refuses %s', (text) => expect(calendarDay(text)).toBeNull());

  it.each(['2020-1-01', '20200101', '2020-01-01T00:00:00Z', ' 2020-01-01', 'yesterday', ''])('refuses %j, not written YYYY-MM-DD', (text) =>
    expect(calendarDay(text)).toBeNull(),
  );
});

describe('instantOf', () => {
  it.each([
    ['2030-12-31', '2030-12-31T00:00:00.000Z'],
    ['2030-12-31T17:00Z', '2030-12-31T17:00:00.000Z'],
    ['2030-12-31T17:00:05.123456789Z', '2030-12-31T17:00:05.123Z'],
    ['2030-12-31T17:00:00+02:00', '2030-12-31T15:00:00.000Z'],
    ['2030-12-31T23:30:00-01:45', '2031-01-01T01:15:00.000Z'],
    ['2028-02-29T12:00:00Z', '2028-02-29T12:00:00.000Z'],
  ])('reads %s as %s', (text, expected) => expect(iso(instantOf(text))).toBe(expected));

  it.each([
    ...IMPOSSIBLE_DAYS,
    ...IMPOSSIBLE_DAYS.map((day) => `${day}T10:00:00Z`),
    '2030-12-31T25:00:00Z',
    '2030-12-31T24:00:00Z',
    '2030-12-31T12:60:00Z',
    '2030-12-31T12:00:60Z',
    '2030-12-31T12:00:00+24:00',
    '2030-12-31T12:00:00+01:60',
    '2030-12-31T12:00:00',
    '2030-12-31 12:00:00Z',
  ])('refuses %s', (text) => expect(instantOf(text)).toBeNull());
});

describe('auditLogView: day filters', () => {
  const caller = { org: { id: 'org' }, member: { role: 'owner' } } as unknown as MemberCaller;
  const view = async (query: Record<string, string>) => {
    const seen: AuditLogQuery[] = [];
    const auditReader = { read: async (q: AuditLogQuery) => (seen.push(q), { entries: [], lastReadSeq: null, exhausted: true }) };
    await auditLogView({ auditReader }, caller, query);
    return seen[0]!;
  };
  const refusal = (query: Record<string, string>) => view(query).then(() => expect.unreachable(), (error: ApiError) => error);

  it('reads `from` as its day\'s start and `to` up to the next day\'s start', async () => {
    expect(await view({ from: '2024-02-28', to: '2024-02-29' })).toMatchObject({ fromIso: '2024-02-28T00:00:00.000Z', toIso: '2024-03-01T00:00:00.000Z' });
    expect(await view({ to: '2023-12-31' })).toMatchObject({ fromIso: undefined, toIso: '2024-01-01T00:00:00.000Z' });
  });

  it.each(IMPOSSIBLE_DAYS)('refuses %s in from and to with 422 by field', async (day) => {
    const error = await refusal({ from: day, to: day });
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 422, code: 'validation_failed' });
    expect(Object.keys(error.errors!).sort()).toEqual(['from', 'to']);
    expect(error.errors!.from).toEqual(['Must be a date, YYYY-MM-DD.']);
  });
});

import { describe, expect, it } from 'vitest';
import { firstPresent, readPath } from '../../../lambdas/core/inbound/dotted-path.ts';

const payload = {
  ticket_id: 'T-1',
  ticket: { id: 42, status: 'closed', tags: ['a', 'b'] },
  items: [{ id: 'first' }, { id: 'second', nested: [[10, 11]] }],
  'subject.name': 'Flat Name',
  subject: { name: 'Nested Name', email: 'ada@example.com' },
  Entity: '{"id":48213,"status":{"name":"Closed"},"closedFlag":true,"list":["x","{\\"deep\\":7}"]}',
  broken: '{"id": 1,',
  plain: 'not json',
  zero: 0,
  no: false,
  nothing: null,
  blank: '',
  spaces: '   ',
};

describe('readPath', () => {
  it('walks into objects by dots', () => {
    expect(readPath(payload, 'ticket_id')).toBe('T-1');
    expect(readPath(payload, 'ticket.id')).toBe(42);
    expect(readPath(payload, 'ticket.status')).toBe('closed');
    expect(readPath(payload, 'ticket')).toEqual({ id: 42, status: 'closed', tags: ['a', 'b'] });
  });

  it('indexes arrays by digit segments and by brackets', () => {
    expect(readPath(payload, 'items.0.id')).toBe('first');
    expect(readPath(payload, 'items.1.id')).toBe('second');
    expect(readPath(payload, 'items[0].id')).toBe('first');
    expect(readPath(payload, 'items[1].nested[0][1]')).toBe(11);
    expect(readPath(payload, 'items.1.nested.0.0')).toBe(10);
    expect(readPath(payload, 'ticket.tags.1')).toBe('b');
    expect(readPath([{ a: 1 }], '[0].a')).toBe(1);
    expect(readPath([{ a: 1 }], '0.a')).toBe(1);
  });

  it('returns undefined past the end of an array or for a non-digit index', () => {
    expect(readPath(payload, 'items.2.id')).toBeUndefined();
    expect(readPath(payload, 'items.length')).toBeUndefined();
    expect(readPath(payload, 'items.-1')).toBeUndefined();
    expect(readPath(payload, 'items[x].id')).toBeUndefined();
    expect(readPath(payload, 'ticket.tags.99999999999999999999')).toBeUndefined();
  });

  it('parses a string holding JSON when the path goes on inside it', () => {
    expect(readPath(payload, 'Entity.id')).toBe(48213);
    expect(readPath(payload, 'Entity.closedFlag')).toBe(true);
    expect(readPath(payload, 'Entity.status.name')).toBe('Closed');
    expect(readPath(payload, 'Entity.list.1.deep')).toBe(7);
    // Where the path ends, the string itself is the value.
    expect(readPath(payload, 'Entity')).toBe(payload.Entity);
    expect(readPath({ wrapped: '[1,2,3]' }, 'wrapped.2')).toBe(3);
    expect(readPath({ wrapped: '  {"a":"b"}  ' }, 'wrapped.a')).toBe('b');
  });

  it('leads nowhere through malformed JSON strings or plain text', () => {
    expect(readPath(payload, 'broken.id')).toBeUndefined();
    expect(readPath(payload, 'plain.id')).toBeUndefined();
    expect(readPath(payload, 'plain.length')).toBeUndefined();
    expect(readPath(payload, 'zero.x')).toBeUndefined();
    expect(readPath(payload, 'nothing.x')).toBeUndefined();
    expect(readPath('{"a":', 'a')).toBeUndefined();
  });

  it('prefers a key that equals the whole remaining path', () => {
    expect(readPath(payload, 'subject.name')).toBe('Flat Name');
    expect(readPath(payload, 'subject.email')).toBe('ada@example.com');
    expect(readPath({ outer: { 'a.b': 1, a: { b: 2 } } }, 'outer.a.b')).toBe(1);
    expect(readPath({ 'items[0]': 'flat' }, 'items[0]')).toBe('flat');
  });

  it('never resolves prototype keys to built-ins', () => {
    for (const key of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
      expect(readPath(payload, key)).toBeUndefined();
      expect(readPath(payload, `ticket.${key}`)).toBeUndefined();
      expect(readPath(payload, `items.${key}`)).toBeUndefined();
      expect(readPath(payload, `Entity.${key}`)).toBeUndefined();
    }
    expect(readPath(payload, 'constructor.name')).toBeUndefined();
    expect(readPath(payload, '__proto__.toString')).toBeUndefined();
  });

  it('reads a __proto__ key the sender sent as plain data', () => {
    const parsed: unknown = JSON.parse('{"__proto__":{"status":"closed"}}');
    expect(readPath(parsed, '__proto__.status')).toBe('closed');
    expect(({} as Record<string, unknown>).status).toBeUndefined();
  });

  it('refuses malformed, over-long and over-deep paths', () => {
    expect(readPath(payload, '')).toBeUndefined();
    expect(readPath(payload, '.ticket')).toBeUndefined();
    expect(readPath(payload, 'ticket.')).toBeUndefined();
    expect(readPath(payload, 'ticket..id')).toBeUndefined();
    expect(readPath(payload, 'items[0')).toBeUndefined();
    expect(readPath(payload, 'items[0]id')).toBeUndefined();
    expect(readPath(payload, 'items[0].')).toBeUndefined();

    const long = { [`${'k'.repeat(201)}`]: 1, [`${'k'.repeat(200)}`]: 2 };
    expect(readPath(long, 'k'.repeat(201))).toBeUndefined();
    expect(readPath(long, 'k'.repeat(200))).toBe(2);

    let deep: unknown = 'bottom';
    for (let level = 0; level < 33; level += 1) deep = { a: deep };
    expect(readPath(deep, Array(32).fill('a').join('.'))).toEqual({ a: 'bottom' });
    expect(readPath(deep, Array(33).fill('a').join('.'))).toBeUndefined();
  });

  it('returns undefined for payloads that are not objects', () => {
    expect(readPath(undefined, 'a')).toBeUndefined();
    expect(readPath(null, 'a')).toBeUndefined();
    expect(readPath(7, 'a')).toBeUndefined();
  });
});

describe('firstPresent', () => {
  it('returns the first path holding a value, with that value', () => {
    expect(firstPresent(payload, ['missing', 'ticket.id', 'ticket_id'])).toEqual({ path: 'ticket.id', value: 42 });
    expect(firstPresent(payload, ['ticket_id', 'ticket.id'])).toEqual({ path: 'ticket_id', value: 'T-1' });
  });

  it('skips undefined, null and blank values but keeps 0 and false', () => {
    expect(firstPresent(payload, ['nothing', 'blank', 'spaces', 'zero'])).toEqual({ path: 'zero', value: 0 });
    expect(firstPresent(payload, ['nothing', 'no'])).toEqual({ path: 'no', value: false });
  });

  it('returns null when no path holds a value', () => {
    expect(firstPresent(payload, ['nothing', 'blank', 'missing.path'])).toBeNull();
    expect(firstPresent(payload, [])).toBeNull();
  });
});

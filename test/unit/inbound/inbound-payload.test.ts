import { describe, expect, it } from 'vitest';
import { readInboundPayload } from '../../../lambdas/core/inbound/inbound-payload.ts';

const read = (body: string, contentType: string | undefined, query: Record<string, string | undefined> = {}) =>
  readInboundPayload({ body, contentType, query });

/** Plain copy, so toEqual compares keys and values only. */
const plain = (fields: Record<string, unknown>) => ({ ...fields });

describe('readInboundPayload', () => {
  it('reads a JSON object body', () => {
    const { fields, problem } = read('{"ticket_id":"T-1","status":"closed","ticket":{"id":7}}', 'application/json');
    expect(problem).toBeNull();
    expect(plain(fields)).toEqual({ ticket_id: 'T-1', status: 'closed', ticket: { id: 7 } });
  });

  it('accepts parameters, +json types and any capitals in the content type', () => {
    expect(plain(read('{"a":1}', 'application/json; charset=utf-8').fields)).toEqual({ a: 1 });
    expect(plain(read('{"a":1}', 'Application/JSON').fields)).toEqual({ a: 1 });
    expect(plain(read('{"a":1}', 'application/vnd.acme.event+json').fields)).toEqual({ a: 1 });
  });

  it('takes a body without a content type as JSON', () => {
    expect(read('{"a":1}', undefined)).toEqual({ fields: expect.anything(), problem: null });
    expect(plain(read('  {"a":1}', undefined).fields)).toEqual({ a: 1 });
    expect(read('[1]', undefined).problem).toBe('The body is not a JSON object.');
    expect(read('a=1', undefined).problem).toBe('The body is not valid JSON.');
  });

  it('strips a byte-order mark before parsing', () => {
    expect(plain(read('\uFEFF{"a":1}', 'application/json').fields)).toEqual({ a: 1 });
  });

  it('names malformed JSON and JSON that is not an object, keeping the query fields', () => {
    const query = { ticket_id: 'Q-1' };
    expect(read('{"a":', 'application/json', query)).toEqual({ fields: expect.anything(), problem: 'The body is not valid JSON.' });
    expect(plain(read('{"a":', 'application/json', query).fields)).toEqual({ ticket_id: 'Q-1' });
    for (const body of ['[{"a":1}]', '"text"', '42', 'null', 'true']) {
      const result = read(body, 'application/json', query);
      expect(result.problem).toBe('The body is not a JSON object.');
      expect(plain(result.fields)).toEqual({ ticket_id: 'Q-1' });
    }
  });

  it('reads form-encoded bodies, the last of repeated keys winning', () => {
    const { fields, problem } = read(
      'ticket_id=1287&status=on+hold&subject.name=Ada%20Lovelace&status=closed',
      'application/x-www-form-urlencoded; charset=UTF-8',
    );
    expect(problem).toBeNull();
    expect(plain(fields)).toEqual({ ticket_id: '1287', status: 'closed', 'subject.name': 'Ada Lovelace' });
  });

  it('always reads the query string, body fields overriding it', () => {
    const query = { ticket_id: 'Q-1', status: 'open', preset: 'vpn', ignored: undefined };
    expect(plain(read('{"status":"closed"}', 'application/json', query).fields)).toEqual({
      ticket_id: 'Q-1',
      status: 'closed',
      preset: 'vpn',
    });
    expect(plain(read('status=pending', 'application/x-www-form-urlencoded', query).fields)).toEqual({
      ticket_id: 'Q-1',
      status: 'pending',
      preset: 'vpn',
    });
  });

  it('never lets a dotted query name override the body at that path', () => {
    const query = { 'issue.key': 'Q-1', 'issue.status': 'closed', ticket_id: 'Q-2' };
    const fields = read('{"issue":{"key":"B-1"}}', 'application/json', query).fields;
    expect(plain(fields)).toEqual({ 'issue.status': 'closed', ticket_id: 'Q-2', issue: { key: 'B-1' } });
    expect(plain(read('issue.key=B-2', 'application/x-www-form-urlencoded', query).fields)).toMatchObject({ 'issue.key': 'B-2' });
  });

  it('accepts an empty body with the query alone, whatever the content type', () => {
    for (const contentType of [undefined, 'application/json', 'text/plain', 'application/x-www-form-urlencoded']) {
      const result = read('', contentType, { ticket_id: '5', status: 'closed' });
      expect(result.problem).toBeNull();
      expect(plain(result.fields)).toEqual({ ticket_id: '5', status: 'closed' });
    }
    expect(read('  \n', 'application/json').problem).toBeNull();
  });

  it('reads JSON sent under another content type, and names the type otherwise', () => {
    expect(read('{"a":1}', 'text/plain')).toEqual({ fields: expect.anything(), problem: null });
    expect(plain(read('{"a":1}', 'text/plain').fields)).toEqual({ a: 1 });
    expect(read('<ticket id="1"/>', 'application/xml; charset=utf-8').problem).toBe('Unsupported content type application/xml.');
    expect(read('[1,2]', 'text/plain').problem).toBe('Unsupported content type text/plain.');
  });

  it('reads a post whose query string carries the fields from it alone, whatever text its body holds', () => {
    expect(read('ticket updated', 'text/plain', { ticket_id: 'X', status: 'closed' })).toEqual({ fields: expect.anything(), problem: null });
    expect(plain(read('ticket updated', 'text/plain', { ticket_id: 'X', status: 'closed' }).fields)).toEqual({ ticket_id: 'X', status: 'closed' });
    expect(read('<x/>', 'application/xml', { q: '1' }).problem).toBeNull();
    expect(plain(read('<x/>', 'application/xml', { q: '1' }).fields)).toEqual({ q: '1' });
  });

  it('keeps a __proto__ key a harmless own property', () => {
    const json = read('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}', 'application/json');
    expect(json.problem).toBeNull();
    expect(Object.getPrototypeOf(json.fields)).toBeNull();
    expect(Object.hasOwn(json.fields, '__proto__')).toBe(true);
    expect(json.fields['__proto__']).toEqual({ polluted: true });
    const query = Object.fromEntries([['__proto__', 'q'], ['constructor', 'c']]) as Record<string, string>;
    const fromQuery = read('', undefined, query);
    expect(Object.getPrototypeOf(fromQuery.fields)).toBeNull();
    expect(fromQuery.fields['__proto__']).toBe('q');
    expect(fromQuery.fields['constructor']).toBe('c');
    const form = read('__proto__=x&toString=y', 'application/x-www-form-urlencoded', query);
    expect(Object.getPrototypeOf(form.fields)).toBeNull();
    expect(form.fields['__proto__']).toBe('x');
    expect(form.fields['toString']).toBe('y');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  it('returns fields with no prototype, so a missing key is never a built-in', () => {
    const { fields } = read('{"a":1}', 'application/json');
    expect(fields['toString']).toBeUndefined();
    expect(fields['constructor']).toBeUndefined();
  });
});

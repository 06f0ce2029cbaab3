/**
 * POST /generate (defaults, character classes, length bounds, passphrases) and GET /ping (the
 * Ping result field by field) over real HTTP. Both accept a key of any scope.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isListedWord } from '../../lambdas/core/generator.ts';
import { SCOPES } from '../../lambdas/core/model.ts';
import { auditEntries, expectDateTime, expectError, expectKeys, expectUlid } from '../support/shapes.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

const ORG_NAME = 'Generator Org';
const LOWER = /[a-z]/;
const UPPER = /[A-Z]/;
const DIGIT = /[0-9]/;
const SYMBOL = /[!@#$%^&*()\-_=+[\]{};:,.?/]/;

let service: TestService;
let org: TestOrganisation;
/** A key with a single scope that has nothing to do with generating: generate and ping take any scope. */
let key: string;

beforeAll(async () => {
  service = await startTestService();
  org = await service.createOrganisation({ name: ORG_NAME });
  key = await service.createKey(org.orgId, { scopes: ['tickets:write'], name: 'Generator key' });
});
afterAll(() => service?.stop());

const generate = (body?: unknown) => service.call('POST', '/generate', { key, body });

/** Checks the Generated credential object field by field and returns it. */
const generated = async (body?: unknown) => {
  const answer = await generate(body);
  expect(answer.status, answer.text).toBe(200);
  expect(answer.headers.get('content-type')).toContain('application/json');
  expectKeys(answer.body, ['object', 'type', 'value', 'length'], 'generated credential');
  const g = answer.body as { object: string; type: string; value: string; length: number };
  expect(g.object).toBe('generated_credential');
  expect(['password', 'passphrase']).toContain(g.type);
  expect(typeof g.value).toBe('string');
  expect(Number.isInteger(g.length)).toBe(true);
  return g;
};

/** Splits a passphrase into EFF words; some listed words hold a dash themselves (t-shirt, yo-yo). */
const passphraseWords = (value: string): string[] | null => {
  const parts = value.split('-');
  const split = (from: number): string[] | null => {
    if (from === parts.length) return [];
    for (let to = from + 1; to <= parts.length; to++) {
      const word = parts.slice(from, to).join('-');
      if (!isListedWord(word)) continue;
      const rest = split(to);
      if (rest) return [word, ...rest];
    }
    return null;
  };
  return split(0);
};

describe('POST /generate: passwords', () => {
  it('defaults to a 20-character password of lower, upper and digits, without symbols', async () => {
    for (const body of [undefined, {}]) {
      const g = await generated(body);
      expect(g.type).toBe('password');
      expect(g.length).toBe(20);
      expect(g.value).toHaveLength(20);
      expect(g.value).toMatch(/^[A-Za-z0-9]{20}$/);
      expect(g.value).toMatch(LOWER);
      expect(g.value).toMatch(UPPER);
      expect(g.value).toMatch(DIGIT);
    }
  });

  it('treats an empty body as no body', async () => {
    const answer = await service.call('POST', '/generate', { key, rawBody: '   ', headers: { 'Content-Type': 'application/json' } });
    expect(answer.status).toBe(200);
    expect(answer.body.length).toBe(20);
  });

  it('puts every selected class into the password, and nothing else', async () => {
    const cases: Array<[Record<string, boolean>, RegExp[], RegExp]> = [
      [{ symbols: true }, [LOWER, UPPER, DIGIT, SYMBOL], /^[A-Za-z0-9!@#$%^&*()\-_=+[\]{};:,.?/]+$/],
      [{ lower: false, upper: false }, [DIGIT], /^[0-9]+$/],
      [{ lower: false, digits: false }, [UPPER], /^[A-Z]+$/],
      [{ upper: false, digits: false }, [LOWER], /^[a-z]+$/],
      [{ lower: false, upper: false, digits: false, symbols: true }, [SYMBOL], /^[!@#$%^&*()\-_=+[\]{};:,.?/]+$/],
      [{ upper: false, symbols: true }, [LOWER, DIGIT, SYMBOL], /^[a-z0-9!@#$%^&*()\-_=+[\]{};:,.?/]+$/],
    ];
    for (const [classes, present, only] of cases) {
      // Short passwords make a missing class likely if the generator did not guarantee one of each.
      for (let i = 0; i < 3; i++) {
        const g = await generated({ ...classes, length: 8 });
        expect(g.value, JSON.stringify(classes)).toHaveLength(8);
        expect(g.value, JSON.stringify(classes)).toMatch(only);
        for (const pattern of present) expect(g.value, `${JSON.stringify(classes)} ${pattern}`).toMatch(pattern);
      }
    }
  });

  it.each([8, 9, 64, 127, 128])('accepts length %i', async (length) => {
    const g = await generated({ length });
    expect(g.length).toBe(length);
    expect(g.value).toHaveLength(length);
  });

  it('makes a new value each time', async () => {
    const values = new Set<string>();
    for (let i = 0; i < 5; i++) values.add((await generated()).value);
    expect(values.size).toBe(5);
  });

  it.each([
    ['length 7', { length: 7 }, ['length']],
    ['length 129', { length: 129 }, ['length']],
    ['length 0', { length: 0 }, ['length']],
    ['a fractional length', { length: 20.5 }, ['length']],
    ['a length given as a string', { length: '20' }, ['length']],
    ['an unknown type', { type: 'pin' }, ['type']],
    ['a class flag that is not a boolean', { symbols: 'yes' }, ['symbols']],
    ['an unknown field', { words: 6 }, ['words']],
    ['every class off', { lower: false, upper: false, digits: false, symbols: false }, ['lower', 'upper', 'digits', 'symbols']],
  ])('answers 422 validation_failed for %s', async (_, body, fields) => {
    const answer = await generate(body);
    const error = expectError(answer, 422, 'validation_failed', fields);
    if ('words' in body) expect(error.errors.words).toEqual(['Unknown field.']);
  });

  it('stores and audits nothing', async () => {
    const before = await auditEntries(service, org.orgId);
    const g = await generated({ symbols: true, length: 40 });
    const after = await auditEntries(service, org.orgId);
    expect(after.length).toBe(before.length);
    expect(JSON.stringify(after)).not.toContain(g.value);
  });
});

describe('POST /generate: passphrases', () => {
  it('joins words of the EFF list with dashes', async () => {
    for (let i = 0; i < 3; i++) {
      const g = await generated({ type: 'passphrase' });
      expect(g.type).toBe('passphrase');
      expect(g.value).toMatch(/^[a-z]+(-[a-z]+)+$/);
      const words = passphraseWords(g.value);
      expect(words, g.value).not.toBeNull();
      expect(words!.length).toBeGreaterThanOrEqual(4);
      for (const word of words!) expect(isListedWord(word), word).toBe(true);
      expect(g.length).toBe(g.value.length);
    }
  });

  it('ignores the character classes for a passphrase', async () => {
    const g = await generated({ type: 'passphrase', lower: false, upper: false, digits: false, symbols: false });
    expect(g.type).toBe('passphrase');
    expect(passphraseWords(g.value)).not.toBeNull();
  });

  it.each([8, 64, 128])('ignores length %i for a passphrase', async (length) => {
    const g = await generated({ type: 'passphrase', length });
    expect(g.type).toBe('passphrase');
    expect(passphraseWords(g.value)).not.toBeNull();
    expect(g.length).toBe(g.value.length);
  });

  // The bounds are the field's, as the OpenAPI document's minimum and maximum say, whatever the type.
  it.each([7, 129])('refuses length %i for a passphrase too', async (length) => {
    const error = expectError(await generate({ type: 'passphrase', length }), 422, 'validation_failed', ['length']);
    expect(error.errors.length).toEqual(['Must be 8 to 128.']);
  });
});

describe('GET /ping', () => {
  it('answers the Ping result field by field for a key without client or expiry', async () => {
    const scopes = ['requests:read', 'events:read'] as const;
    const secret = await service.createKey(org.orgId, { scopes: [...scopes], name: 'Ping key' });
    const answer = await service.call('GET', '/ping', { key: secret });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toContain('application/json');
    const body = answer.body;
    expectKeys(body, ['ok', 'organisation', 'key', 'label'], 'ping');
    expect(body.ok).toBe(true);
    expectKeys(body.organisation, ['id', 'name'], 'ping.organisation');
    expectUlid(body.organisation.id, 'ping.organisation.id');
    expect(body.organisation).toEqual({ id: org.orgId, name: ORG_NAME });
    expectKeys(body.key, ['name', 'prefix', 'scopes', 'client', 'expires_at'], 'ping.key');
    expect(body.key.name).toBe('Ping key');
    expect(body.key.scopes).toEqual([...scopes]);
    expect(body.key.client).toBeNull();
    expect(body.key.expires_at).toBeNull();
    // The prefix identifies the key without giving it away.
    expect(typeof body.key.prefix).toBe('string');
    expect(body.key.prefix.length).toBeGreaterThan('chs_live_'.length);
    expect(body.key.prefix.length).toBeLessThan(secret.length - 20);
    expect(secret.startsWith(body.key.prefix)).toBe(true);
    expect(answer.text).not.toContain(secret);
    expect(typeof body.label).toBe('string');
    expect(body.label).toContain(ORG_NAME);
    expect(body.label).toContain('Ping key');
  });

  it('names the client of a client-scoped key and the expiry of an expiring key', async () => {
    const client = await service.admin.createClient(org.orgId, 'Acme Ltd');
    const expiresAt = new Date(Date.now() + 7 * 86_400_000).toISOString();
    const secret = await service.createKey(org.orgId, {
      scopes: ['tickets:write'],
      clientId: client.id,
      expiresAt,
      name: 'Acme key',
    });
    const answer = await service.call('GET', '/ping', { key: secret });
    expect(answer.status).toBe(200);
    const body = answer.body;
    expectKeys(body.key, ['name', 'prefix', 'scopes', 'client', 'expires_at'], 'ping.key');
    expectKeys(body.key.client, ['id', 'name'], 'ping.key.client');
    expect(body.key.client).toEqual({ id: client.id, name: 'Acme Ltd' });
    expectDateTime(body.key.expires_at, 'ping.key.expires_at');
    expect(Date.parse(body.key.expires_at)).toBe(Date.parse(expiresAt));
    expect(body.key.scopes).toEqual(['tickets:write']);
    expect(body.key.name).toBe('Acme key');
    expect(body.label).toContain('Acme Ltd');
  });

  it('lists every scope of an all-scope key', async () => {
    const answer = await service.call('GET', '/ping', { key: org.key });
    expect(answer.status).toBe(200);
    expect([...answer.body.key.scopes].sort()).toEqual([...SCOPES].sort());
    expect(answer.body.key.name).toBe('All scopes');
  });

  it('answers for any single scope', async () => {
    for (const scope of SCOPES) {
      const secret = await service.createKey(org.orgId, { scopes: [scope] });
      const answer = await service.call('GET', '/ping', { key: secret });
      expect(answer.status, scope).toBe(200);
      expect(answer.body.key.scopes).toEqual([scope]);
      const gen = await service.call('POST', '/generate', { key: secret });
      expect(gen.status, scope).toBe(200);
    }
  });
});

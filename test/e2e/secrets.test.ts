import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIVE_KEY_PREFIX, apiKeyHash } from '../../lambdas/core/api-key-format.ts';
import { sha256Hex } from '../../lambdas/core/hashing.ts';
import type { HandoffRequest } from '../../lambdas/core/model.ts';
import type { AuditEntryInput, Notifier, TriggerGuard } from '../../lambdas/core/ports.ts';
import type { AppDeps } from '../../lambdas/app-deps.ts';
import { createGateway, listen } from '../../lambdas/local/gateway.ts';
import { startTestService, type ApiAnswer, type TestOrganisation, type TestService } from '../support/test-service.ts';

/**
 * "Nothing secret appears in any log line or stored item in plain text (a test scans both)."
 *
 * One run exercises every path that handles a secret: API keys (good, revoked, unknown), link
 * tokens and challenge codes of created requests (with and without Idempotency-Key, replayed),
 * generated passwords and passphrases, link deliveries that fail, and a 500. Every secret it
 * produces is collected; then every item of the table and every line the service wrote to stdout
 * and stderr (where the Powertools logger writes its JSON lines) is scanned for them. The logger
 * runs at DEBUG so that no line is held back, and the run makes sure lines were written at all,
 * so the scan cannot pass by having nothing to look at.
 */
let service: TestService;
let org: TestOrganisation;
let failing: Server;
let failingBase: string;

const secrets = {
  apiKeys: new Set<string>(),
  linkTokens: new Set<string>(),
  links: new Set<string>(),
  challengeCodes: new Set<string>(),
  generated: new Set<string>(),
  idempotencyKeys: new Set<string>(),
};

/** A well-formed key that was never issued. */
const unknownKey = `${LIVE_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;

const logText: string[] = [];
const realWrite = { stdout: process.stdout.write, stderr: process.stderr.write };
const previousLogLevel = process.env.LOG_LEVEL;
const capture = ((chunk: string | Uint8Array) => {
  logText.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
  return true;
}) as typeof process.stdout.write;

/**
 * A notifier whose provider refuses every message and, like some HTTP SMS and mail APIs, echoes
 * the rejected message (link included) in its error: the service must not log that text.
 */
const refusingNotifier: Notifier = {
  sendEmail: async (message) => {
    throw new Error(`provider rejected email to ${message.to}: ${message.text}`);
  },
  sendSms: async (message) => {
    throw new Error(`provider rejected SMS to ${message.to}: ${message.text}`);
  },
};

beforeAll(async () => {
  process.env.LOG_LEVEL = 'DEBUG';
  process.stdout.write = capture;
  process.stderr.write = capture;
  service = await startTestService();
  org = await service.createOrganisation({ name: 'Secret Keepers' });
  secrets.apiKeys.add(org.key);
  // A second gateway over the same table and audit log, whose notifier refuses everything and
  // whose request store fails for one subject name (a 500).
  const store = service.deps.requests;
  const requests = Object.create(store, {
    create: {
      value: (request: HandoffRequest, linkTokenHash: string, audit: AuditEntryInput, guard: TriggerGuard | undefined, policyVersion: number) =>
        request.subject.name === 'Outage Olly'
          ? Promise.reject(new Error('simulated store outage'))
          : store.create(request, linkTokenHash, audit, guard, policyVersion),
    },
  }) as AppDeps['requests'];
  failing = createGateway({ ...service.deps, notifier: refusingNotifier, requests });
  failingBase = `http://127.0.0.1:${await listen(failing, 0)}/v1`;
});

afterAll(async () => {
  failing?.closeAllConnections();
  failing?.close();
  await service?.stop();
  process.stdout.write = realWrite.stdout;
  process.stderr.write = realWrite.stderr;
  if (previousLogLevel === undefined) delete process.env.LOG_LEVEL;
  else process.env.LOG_LEVEL = previousLogLevel;
});

const idempotencyKey = () => {
  const key = `idem-${randomBytes(18).toString('base64url')}`;
  secrets.idempotencyKeys.add(key);
  return key;
};

/** Ids of the requests the run created. */
const createdIds: string[] = [];
/** Answers that may carry no secret at all: replays, revokes (the rest are read in the scan). */
const laterAnswers: ApiAnswer[] = [];

/** Records the secrets of a POST /requests answer (the original; a replay has them null). */
const keepCreated = (answer: ApiAnswer) => {
  expect(answer.status, answer.text).toBe(201);
  createdIds.push(answer.body.request.id);
  const { link, link_without_fragment: bare, challenge_code: code } = answer.body;
  if (link !== null) {
    secrets.links.add(link);
    secrets.links.add(bare);
    const token = /\/r\/([A-Za-z0-9_-]{43})$/.exec(bare)![1];
    secrets.linkTokens.add(token);
  }
  if (code !== null) secrets.challengeCodes.add(code);
  return answer.body;
};

const requestBody = (extra: Record<string, unknown> = {}) => ({
  subject_name: 'Sam Secret',
  subject_email: 'sam.secret@example.com',
  justification: 'Secrets scan needs a request',
  recipients: [org.owner.email, org.member.email],
  ...extra,
});

const viaFailing = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
  const response = await fetch(`${failingBase}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${org.key}`, 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined, text } as ApiAnswer;
};

describe('a run that handles every kind of secret', () => {
  it('creates requests with codes, with and without Idempotency-Key, and replays them', async () => {
    for (const mode of ['challenge', 'either', 'both', 'none']) {
      keepCreated(await service.call('POST', '/requests', { key: org.key, body: requestBody({ verification_mode: mode }) }));
    }
    const headers = { 'Idempotency-Key': idempotencyKey() };
    const first = keepCreated(await service.call('POST', '/requests', { key: org.key, body: requestBody(), headers }));
    const replay = await service.call('POST', '/requests', { key: org.key, body: requestBody(), headers });
    expect(replay.headers.get('Idempotency-Replayed')).toBe('true');
    expect(replay.body.link).toBeNull();
    expect(replay.body.request.id).toBe(first.request.id);
    laterAnswers.push(replay);
    expect(secrets.challengeCodes.size).toBe(4);
    expect(secrets.linkTokens.size).toBe(5);
  });

  it('generates passwords and passphrases, with and without Idempotency-Key', async () => {
    for (const body of [{}, { length: 64, symbols: true }, { type: 'passphrase' }]) {
      const answer = await service.call('POST', '/generate', { key: org.key, body });
      expect(answer.status).toBe(200);
      secrets.generated.add(answer.body.value);
    }
    const headers = { 'Idempotency-Key': idempotencyKey() };
    const first = await service.call('POST', '/generate', { key: org.key, body: { type: 'passphrase' }, headers });
    secrets.generated.add(first.body.value);
    const replay = await service.call('POST', '/generate', { key: org.key, body: { type: 'passphrase' }, headers });
    expect(replay.body.value).toBeNull();
    laterAnswers.push(replay);
    expect(secrets.generated.size).toBe(4);
  });

  it('revokes with an Idempotency-Key, and refuses revoked, unknown and out-of-scope keys', async () => {
    const created = keepCreated(await service.call('POST', '/requests', { key: org.key, body: requestBody() }));
    const headers = { 'Idempotency-Key': idempotencyKey() };
    for (let attempt = 0; attempt < 2; attempt++) {
      const revoked = await service.call('POST', `/requests/${created.request.id}/revoke`, { key: org.key, headers });
      expect(revoked.status).toBe(200);
      laterAnswers.push(revoked);
    }

    const revoked = await service.createKey(org.orgId, { name: 'Revoked key' });
    secrets.apiKeys.add(revoked);
    const { id } = (await service.deps.apiKeys.findByHash(apiKeyHash(revoked)))!;
    await service.admin.revokeApiKey(org.orgId, id);
    expect((await service.call('GET', '/ping', { key: revoked })).status).toBe(401);

    secrets.apiKeys.add(unknownKey);
    expect((await service.call('GET', '/ping', { key: unknownKey })).status).toBe(401);

    const fenced = await service.createKey(org.orgId, { allowlist: ['10.0.0.0/8'], name: 'Fenced key' });
    secrets.apiKeys.add(fenced);
    expect((await service.call('GET', '/ping', { key: fenced })).status).toBe(403);
    const reader = await service.createKey(org.orgId, { scopes: ['requests:read'], name: 'Reader key' });
    secrets.apiKeys.add(reader);
    expect((await service.call('POST', '/requests', { key: reader, body: requestBody(), headers: { 'Idempotency-Key': idempotencyKey() } })).status).toBe(403);
  });

  it('logs failed link deliveries without the link, and a 500 without the request', async () => {
    const emailed = keepCreated(await viaFailing('/requests', requestBody({ delivery: { method: 'email' } }), { 'Idempotency-Key': idempotencyKey() }));
    // The request stands and the caller still has the link to hand over itself.
    expect(emailed.delivery).toEqual({ id: expect.stringMatching(/^[0-9a-z]{26}$/), method: 'email', status: 'failed', reason: 'The email could not be sent; send the link another way.' });
    expect(emailed.link).toMatch(/^http/);
    const texted = keepCreated(await viaFailing('/requests', requestBody({ subject_phone: '07911 123456', delivery: { method: 'sms' } })));

    const outage = await viaFailing('/requests', requestBody({ subject_name: 'Outage Olly' }), { 'Idempotency-Key': idempotencyKey() });
    expect(outage.status).toBe(500);
    expect(outage.body).toEqual({ message: expect.any(String), code: 'error' });

    // The lines this test relies on were written, so the scan below has something to scan.
    const lines = logLines();
    const failures = lines.filter((line) => line.json?.message === 'link delivery failed');
    expect(failures.map((line) => line.json!.requestId).sort()).toEqual([emailed.request.id, texted.request.id].sort());
    expect(failures.every((line) => line.json!.level === 'ERROR' && line.json!.errorName === 'Error')).toBe(true);
    expect(lines.filter((line) => line.json?.message === 'unhandled failure')).toHaveLength(1);
  });
});

type LogLine = { raw: string; json: Record<string, any> | null };
const logLines = (): LogLine[] =>
  logText
    .join('')
    .split('\n')
    .filter((raw) => raw.trim() !== '')
    .map((raw) => {
      try {
        const parsed = JSON.parse(raw);
        return { raw, json: parsed && typeof parsed === 'object' ? parsed : null };
      } catch {
        return { raw, json: null };
      }
    });

const tableItems = async () => {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await service.deps.db.send(
      new ScanCommand({ TableName: service.deps.tableName, ExclusiveStartKey: start, ConsistentRead: true }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
};

/** Every secret of the run that is long and random enough to be looked for as a plain substring. */
const substringSecrets = () => {
  const list: Array<[string, string]> = [];
  for (const key of secrets.apiKeys) {
    list.push(['API key', key]);
    // The stored display prefix is the first 6 random characters; the other 37 must never appear.
    list.push(['API key tail', key.slice(LIVE_KEY_PREFIX.length + 6)]);
  }
  for (const token of secrets.linkTokens) list.push(['link token', token]);
  for (const link of secrets.links) list.push(['link', link]);
  for (const value of secrets.generated) list.push(['generated credential', value]);
  for (const key of secrets.idempotencyKeys) list.push(['Idempotency-Key', key]);
  return list;
};

/**
 * Where a 6-digit challenge code shows up. A plain substring search would be unsound: six
 * digits turn up by chance inside hashes, ids and epoch numbers (hundreds of thousands of
 * positions in a scan like this one). So the code is looked for where it could actually leak:
 * a string value that is the code, or holds it as a word of its own (not inside a longer run of
 * letters and digits, which is how it would appear in a message such as "code 123456"); a number
 * equal to it (only for codes without a leading zero, which a number cannot keep; the numbers a
 * run like this stores are sequence numbers, counts and epochs, none of them 6 digits); and any
 * field whose name mentions "challenge", which may hold nothing but null or a SHA-256 hex digest.
 */
const codeLeaks = (value: unknown, codes: string[], path: string, found: string[]) => {
  if (typeof value === 'string') {
    for (const code of codes) {
      if (new RegExp(`(?<![0-9A-Za-z])${code}(?![0-9A-Za-z])`).test(value)) found.push(`${path} holds code ${code}`);
    }
  } else if (typeof value === 'number') {
    for (const code of codes) if (!code.startsWith('0') && value === Number(code)) found.push(`${path} is code ${code}`);
  } else if (Array.isArray(value)) {
    value.forEach((element, index) => codeLeaks(element, codes, `${path}[${index}]`, found));
  } else if (value && typeof value === 'object') {
    for (const [name, child] of Object.entries(value)) {
      if (/challenge/i.test(name) && child !== null && !(typeof child === 'string' && /^hmac-sha256:[0-9a-f]{64}$/.test(child))) {
        found.push(`${path}.${name} is neither null nor a keyed digest`);
      }
      codeLeaks(child, codes, `${path}.${name}`, found);
    }
  }
  return found;
};

describe('the scan', () => {
  it('finds no secret in any stored item', async () => {
    const items = await tableItems();
    const texts = items.map((item) => JSON.stringify(item));
    const everything = texts.join('\n');
    // The scan is over the real data: the run's requests and keys are there, by id and by hash.
    expect(items.filter((item) => item.kind === 'request').length).toBeGreaterThanOrEqual(8);
    // Each issued key is stored under, and with, its SHA-256 hex digest; the unknown one not at all.
    const storedKeys = items.filter((item) => item.kind === 'api_key');
    expect(storedKeys).toHaveLength(4);
    for (const key of secrets.apiKeys) {
      const stored = items.find((item) => item.pk === `APIKEY#${sha256Hex(key)}`);
      if (key === unknownKey) expect(stored).toBeUndefined();
      else expect(stored?.hash, 'stored hash').toBe(sha256Hex(key));
    }
    expect(storedKeys.every((item) => /^[0-9a-f]{64}$/.test(item.hash as string))).toBe(true);
    for (const token of secrets.linkTokens) expect(everything).toContain(`LINK#${sha256Hex(token)}`);

    const leaks = substringSecrets()
      .filter(([, secret]) => everything.includes(secret))
      .map(([what, secret]) => `${what} ${secret} in ${texts.find((text) => text.includes(secret))}`);
    expect(leaks).toEqual([]);
    const codes = [...secrets.challengeCodes];
    expect(items.flatMap((item, index) => codeLeaks(item, codes, `item ${index} (${item.pk})`, []))).toEqual([]);
  });

  it('finds no secret in any answer but the creation’s first: reads, lists, pings, replays, revokes', async () => {
    const answers = [...laterAnswers];
    for (const id of createdIds) answers.push(await service.call('GET', `/requests/${id}`, { key: org.key }));
    answers.push(await service.call('GET', '/requests?limit=100', { key: org.key }));
    answers.push(await service.call('GET', '/ping', { key: org.key }));
    expect(answers.map((answer) => answer.status)).toEqual([201, 200, 200, 200, ...createdIds.map(() => 200), 200, 200]);
    expect(answers.at(-2)!.body.data).toHaveLength(createdIds.length);

    const everything = answers.map((answer) => answer.text).join('\n');
    const leaks = substringSecrets()
      .filter(([, secret]) => everything.includes(secret))
      .map(([what, secret]) => `${what} ${secret}`);
    expect(leaks).toEqual([]);
    const codes = [...secrets.challengeCodes];
    expect(answers.flatMap((answer, index) => codeLeaks(answer.body, codes, `answer ${index}`, []))).toEqual([]);
  });

  it('finds no secret in any log line', async () => {
    const lines = logLines();
    expect(lines.length).toBeGreaterThanOrEqual(3);
    const everything = logText.join('');
    const leaks = substringSecrets()
      .filter(([, secret]) => everything.includes(secret))
      .map(([what, secret]) => `${what} ${secret} in ${lines.find((line) => line.raw.includes(secret))?.raw}`);
    expect(leaks).toEqual([]);
    const codes = [...secrets.challengeCodes];
    const found: string[] = [];
    for (const [index, line] of lines.entries()) {
      // A line that is not JSON is scanned as one string, with the same word-boundary rule.
      codeLeaks(line.json ?? line.raw, codes, `log line ${index}`, found);
    }
    expect(found).toEqual([]);
  });
});

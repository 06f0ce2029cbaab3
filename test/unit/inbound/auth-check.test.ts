import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkInboundAuth, type InboundAuthInput } from '../../../lambdas/core/inbound/auth-check.ts';

const FIXTURES = new URL('../../fixtures/helpdesks/', import.meta.url);
/**
 * A sample's raw body: the file is one line as sent, and its final newline is the file's line
 * ending, not part of what the helpdesk signed.
 */
const rawBody = (file: string) => readFileSync(new URL(file, FIXTURES), 'utf8').replace(/\n$/, '');

interface SignedSample {
  file: string;
  signature?: { secret: string; headers: Record<string, string> };
}
const MANIFEST = JSON.parse(readFileSync(new URL('manifest.json', FIXTURES), 'utf8')) as SignedSample[];
const signed = (file: string) => {
  const sample = MANIFEST.find((entry) => entry.file === file);
  if (!sample?.signature) throw new Error(`${file} has no signature in the manifest`);
  const headers = Object.fromEntries(Object.entries(sample.signature.headers).map(([name, value]) => [name.toLowerCase(), value]));
  return { body: rawBody(file), secret: sample.signature.secret, headers };
};

/** One byte of the body changed: a signature over the original must not verify. */
const tamper = (body: string) => body.replace('"', "'");

const SECRET = 'whsec_test-signing-secret';
const BODY = '{"ticket_id":"T-1","status":"closed"}';
const NOW = new Date('2026-03-14T12:00:00Z');
const NOW_S = Math.floor(NOW.getTime() / 1000);

const check = (overrides: Partial<InboundAuthInput>) =>
  checkInboundAuth({ mode: 'none', headers: {}, rawBody: BODY, secret: SECRET, headerName: null, now: NOW, ...overrides });

const serviceSignature = (timestamp: number, body = BODY, secret = SECRET) =>
  createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');

describe('checkInboundAuth: none', () => {
  it('lets every post through', () => {
    expect(check({ mode: 'none', secret: null })).toBe('ok');
  });
});

describe('checkInboundAuth: header', () => {
  const header = (headers: Record<string, string | undefined>, extra: Partial<InboundAuthInput> = {}) =>
    check({ mode: 'header', headerName: 'X-Helpdesk-Token', secret: 's3cret-value', headers, ...extra });

  it('accepts the configured header with the configured value, names compared in any capitals', () => {
    expect(header({ 'x-helpdesk-token': 's3cret-value' })).toBe('ok');
    expect(header({ 'X-HELPDESK-TOKEN': 's3cret-value' })).toBe('ok');
  });

  it('refuses a wrong value, including a prefix or a longer one', () => {
    expect(header({ 'x-helpdesk-token': 'wrong' })).toBe('mismatch');
    expect(header({ 'x-helpdesk-token': 's3cret' })).toBe('mismatch');
    expect(header({ 'x-helpdesk-token': 's3cret-value2' })).toBe('mismatch');
    expect(header({ 'x-helpdesk-token': 'S3CRET-VALUE' })).toBe('mismatch');
    expect(header({ 'x-helpdesk-token': '' })).toBe('mismatch');
  });

  it('says missing when the header is absent', () => {
    expect(header({})).toBe('missing');
    expect(header({ 'x-other': 's3cret-value', 'x-helpdesk-token': undefined })).toBe('missing');
  });

  it('refuses everything when the integration lacks a header name or value', () => {
    expect(header({ 'x-helpdesk-token': 's3cret-value' }, { headerName: null })).toBe('mismatch');
    expect(header({ 'x-helpdesk-token': 's3cret-value' }, { secret: null })).toBe('mismatch');
    expect(header({ 'x-helpdesk-token': '' }, { secret: '' })).toBe('mismatch');
  });
});

describe('checkInboundAuth: hmac (X-Service-Signature)', () => {
  const hmac = (value: string | undefined, extra: Partial<InboundAuthInput> = {}) =>
    check({ mode: 'hmac', headers: { 'x-service-signature': value }, ...extra });

  it('accepts a good signature, in either order of its parts', () => {
    expect(hmac(`t=${NOW_S},v1=${serviceSignature(NOW_S)}`)).toBe('ok');
    expect(hmac(`v1=${serviceSignature(NOW_S)},t=${NOW_S}`)).toBe('ok');
    expect(hmac(` t=${NOW_S} , v1=${serviceSignature(NOW_S).toUpperCase()} `)).toBe('ok');
  });

  it('accepts any of several v1 entries', () => {
    const other = serviceSignature(NOW_S, BODY, 'previous-secret');
    expect(hmac(`t=${NOW_S},v1=${other},v1=${serviceSignature(NOW_S)}`)).toBe('ok');
    expect(hmac(`t=${NOW_S},v1=${other},v0=${serviceSignature(NOW_S)}`)).toBe('mismatch');
  });

  it('refuses a wrong signature, another secret, another body or another timestamp', () => {
    expect(hmac(`t=${NOW_S},v1=${'0'.repeat(64)}`)).toBe('mismatch');
    expect(hmac(`t=${NOW_S},v1=${serviceSignature(NOW_S, BODY, 'other-secret')}`)).toBe('mismatch');
    expect(hmac(`t=${NOW_S},v1=${serviceSignature(NOW_S, tamper(BODY))}`)).toBe('mismatch');
    expect(hmac(`t=${NOW_S + 1},v1=${serviceSignature(NOW_S)}`)).toBe('mismatch');
    expect(hmac(`t=${NOW_S},v1=${serviceSignature(NOW_S)}`, { rawBody: `${BODY} ` })).toBe('mismatch');
  });

  it('gives stale outside five minutes either way, and ok at the edge', () => {
    for (const skew of [300, -300]) expect(hmac(`t=${NOW_S + skew},v1=${serviceSignature(NOW_S + skew)}`)).toBe('ok');
    for (const skew of [301, -301, -86_400]) expect(hmac(`t=${NOW_S + skew},v1=${serviceSignature(NOW_S + skew)}`)).toBe('stale');
  });

  it('counts the five minutes in whole seconds, the same either way, late in the current second', () => {
    const late = new Date(NOW.getTime() + 999);
    for (const skew of [300, -300]) expect(hmac(`t=${NOW_S + skew},v1=${serviceSignature(NOW_S + skew)}`, { now: late })).toBe('ok');
    for (const skew of [301, -301]) expect(hmac(`t=${NOW_S + skew},v1=${serviceSignature(NOW_S + skew)}`, { now: late })).toBe('stale');
  });

  it('gives stale when the clock is invalid', () => {
    expect(hmac(`t=${NOW_S},v1=${serviceSignature(NOW_S)}`, { now: new Date('nonsense') })).toBe('stale');
  });

  it('says missing when the header is absent or unparseable', () => {
    expect(hmac(undefined)).toBe('missing');
    for (const value of ['', 'garbage', `t=${NOW_S}`, `v1=${serviceSignature(NOW_S)}`, `t=abc,v1=${serviceSignature(NOW_S)}`, `t=${NOW_S},t=${NOW_S},v1=${serviceSignature(NOW_S)}`, `t=${NOW_S},v1=`]) {
      expect(hmac(value)).toBe('missing');
    }
  });

  it('refuses everything without a signing secret', () => {
    expect(hmac(`t=${NOW_S},v1=${serviceSignature(NOW_S)}`, { secret: null })).toBe('mismatch');
  });
});

describe('checkInboundAuth: zendesk', () => {
  const sample = signed('zendesk-event.json');
  const SIGNED_AT = new Date('2025-01-08T16:45:21Z');
  const zendesk = (extra: Partial<InboundAuthInput> = {}) =>
    check({ mode: 'zendesk', headers: sample.headers, rawBody: sample.body, secret: sample.secret, now: SIGNED_AT, ...extra });

  it('verifies the fixture signature over the exact fixture bytes', () => {
    expect(zendesk()).toBe('ok');
    expect(zendesk({ now: new Date('2025-01-08T16:50:21Z') })).toBe('ok');
  });

  it('refuses the fixture with one byte changed, or another secret', () => {
    expect(zendesk({ rawBody: tamper(sample.body) })).toBe('mismatch');
    expect(zendesk({ rawBody: `${sample.body}\n` })).toBe('mismatch');
    expect(zendesk({ secret: 'another-secret' })).toBe('mismatch');
    const timestamp = sample.headers['x-zendesk-webhook-signature-timestamp'];
    expect(zendesk({ headers: { ...sample.headers, 'x-zendesk-webhook-signature-timestamp': timestamp.replace('21Z', '22Z') } })).toBe('mismatch');
  });

  it('gives stale beyond five minutes', () => {
    expect(zendesk({ now: new Date('2025-01-08T16:50:22Z') })).toBe('stale');
    expect(zendesk({ now: new Date('2025-01-08T16:40:20Z') })).toBe('stale');
    expect(zendesk({ now: NOW })).toBe('stale');
  });

  it('says missing without both headers or with an unreadable timestamp', () => {
    const { ['x-zendesk-webhook-signature']: _signature, ...noSignature } = sample.headers;
    const { ['x-zendesk-webhook-signature-timestamp']: _timestamp, ...noTimestamp } = sample.headers;
    expect(zendesk({ headers: noSignature })).toBe('missing');
    expect(zendesk({ headers: noTimestamp })).toBe('missing');
    expect(zendesk({ headers: { ...sample.headers, 'x-zendesk-webhook-signature-timestamp': 'yesterday' } })).toBe('missing');
  });

  it('verifies a signature made now', () => {
    const timestamp = '2026-03-14T11:58:00.123Z';
    const signature = createHmac('sha256', SECRET).update(`${timestamp}${BODY}`).digest('base64');
    const headers = { 'x-zendesk-webhook-signature': signature, 'x-zendesk-webhook-signature-timestamp': timestamp };
    expect(check({ mode: 'zendesk', headers })).toBe('ok');
    expect(check({ mode: 'zendesk', headers, rawBody: tamper(BODY) })).toBe('mismatch');
  });
});

describe('checkInboundAuth: hub-sha256 (Jira)', () => {
  const sample = signed('jira-issue-updated.json');
  const jira = (extra: Partial<InboundAuthInput> = {}) =>
    check({ mode: 'hub-sha256', headers: sample.headers, rawBody: sample.body, secret: sample.secret, ...extra });

  it('verifies the fixture signature over the exact fixture bytes, at any time', () => {
    expect(jira()).toBe('ok');
    expect(jira({ now: new Date('2031-01-01T00:00:00Z') })).toBe('ok');
  });

  it('accepts the signature under X-Hub-Signature-256 too', () => {
    expect(jira({ headers: { 'x-hub-signature-256': sample.headers['x-hub-signature'] } })).toBe('ok');
  });

  it('refuses the fixture with one byte changed, or another secret', () => {
    expect(jira({ rawBody: tamper(sample.body) })).toBe('mismatch');
    expect(jira({ secret: 'another-secret' })).toBe('mismatch');
    expect(jira({ headers: { 'x-hub-signature': `sha256=${'0'.repeat(64)}` } })).toBe('mismatch');
  });

  it('says missing without a sha256= signature', () => {
    expect(jira({ headers: {} })).toBe('missing');
    expect(jira({ headers: { 'x-hub-signature': 'sha1=18010c6b6eb13dc383fcd6ad670b8f6d7adf2b31' } })).toBe('missing');
  });
});

describe('checkInboundAuth: hub-sha1 (Zammad)', () => {
  const sample = signed('zammad-trigger.json');
  const zammad = (extra: Partial<InboundAuthInput> = {}) =>
    check({ mode: 'hub-sha1', headers: sample.headers, rawBody: sample.body, secret: sample.secret, ...extra });

  it('verifies the fixture signature over the exact fixture bytes', () => {
    expect(zammad()).toBe('ok');
  });

  it('refuses the fixture with one byte changed, or another secret', () => {
    expect(zammad({ rawBody: tamper(sample.body) })).toBe('mismatch');
    expect(zammad({ secret: 'another-secret' })).toBe('mismatch');
  });

  it('says missing without a sha1= signature', () => {
    expect(zammad({ headers: {} })).toBe('missing');
    expect(zammad({ headers: { 'x-hub-signature': 'sha256=abc' } })).toBe('missing');
    // X-Hub-Signature-256 is not where Zammad signs.
    expect(zammad({ headers: { 'x-hub-signature-256': sample.headers['x-hub-signature'] } })).toBe('missing');
  });
});

describe('checkInboundAuth: malformed input', () => {
  it('never throws', () => {
    const odd: Array<Partial<InboundAuthInput>> = [
      { mode: 'hmac', headers: { 'x-service-signature': 't=99999999999999999999,v1=zz' } },
      { mode: 'zendesk', headers: { 'x-zendesk-webhook-signature': '%%%', 'x-zendesk-webhook-signature-timestamp': '9999-99-99T99:99:99Z' } },
      { mode: 'hub-sha256', headers: { 'x-hub-signature': 'sha256=' } },
      { mode: 'bogus' as InboundAuthInput['mode'] },
      { mode: 'header', headerName: 'x-token', headers: null as unknown as Record<string, string> },
    ];
    const outcomes = odd.map((input) => check(input));
    expect(outcomes).toEqual(['missing', 'missing', 'mismatch', 'mismatch', 'mismatch']);
  });
});

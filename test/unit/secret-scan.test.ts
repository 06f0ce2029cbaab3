/**
 * The end-of-run plain-secret scan (test/support/secret-scan.ts): what it records from answers,
 * messages and cookies, and that it finds a planted secret of every kind, in any attribute at any
 * depth, without mistaking hashes, sealed values or ids for one.
 */
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { codeHash } from '../../lambdas/core/codes.ts';
import { newApiKeySecret } from '../../lambdas/core/api-key-format.ts';
import { randomToken } from '../../lambdas/core/hashing.ts';
import { newId } from '../../lambdas/core/ids.ts';
import { newWebhookSecret } from '../../lambdas/core/webhook-signature.ts';
import { KeyFileCodeKey } from '../../lambdas/local/key-file-code-key.ts';
import { KeyFileSealer } from '../../lambdas/local/key-file-sealer.ts';
import { cookieSecrets, plainSecretsIn, secretsInMessage, secretsShownIn, ShownSecrets } from '../support/secret-scan.ts';

const item = (fields: Record<string, unknown>) => ({ pk: `ORG#${newId()}`, sk: 'THING', kind: 'thing', ...fields });
const scan = (items: Record<string, unknown>[], shown: string[] = []) => plainSecretsIn('table-x', items, new ShownSecrets(shown));

describe('what is recorded as shown', () => {
  it('takes the secret fields of an answer at any depth: the link token (not the public commitment fragment), the code, the webhook secret', () => {
    const token = randomToken(32);
    const secret = newWebhookSecret();
    const shown = secretsShownIn({
      link: `https://app.example.test/r/${token}#commitment0123456789ab`,
      challenge_code: '042917',
      request: { id: newId(), links: { self: 'https://api.example.test/v1/requests/x' }, commitment: { value: 'commitment0123456789ab' } },
      nested: [{ secret }],
      code: 'validation_failed',
    });
    expect(shown.sort()).toEqual([token, '042917', secret].sort());
  });

  it('takes the links and codes of a sent message, the sign-in token in a fragment, and session cookies', () => {
    const token = randomToken(32);
    const signIn = randomToken(32);
    expect(secretsInMessage(`Your code is 123456. Open https://app.example.test/r/${token} before 2030.`).sort()).toEqual([token, '123456'].sort());
    expect(secretsInMessage(`Sign in: https://app.example.test/app/sign-in#token=${signIn}`)).toEqual([signIn]);
    // The ids in the service's other links are stored in the clear by design: not recorded.
    expect(secretsInMessage(`Request: https://app.example.test/app/requests/${newId()}`)).toEqual([]);
    // Six digits inside an id are part of it, not a code (an id holds such a run now and then).
    expect(secretsInMessage('Request: https://app.example.test/app/requests/01KB852876XYZ0QWERTYASDFGH')).toEqual([]);
    const session = randomToken(32);
    expect(cookieSecrets([`handoff_session=${session}; Path=/app; HttpOnly; Secure`, 'short=1'])).toEqual([session]);
  });
});

describe('plainSecretsIn', () => {
  it('finds every known format planted anywhere in an item', () => {
    const planted = {
      'API key': newApiKeySecret(),
      'webhook signing secret': newWebhookSecret(),
      'subject link token': `https://app.example.test/r/${randomToken(32)}`,
      'share link token': `see /s/${randomToken(32)}`,
      'inbound URL secret': `https://app.example.test/inbound/ticket-trigger/${randomToken(32)}`,
      'sign-in token': `https://app.example.test/app/sign-in#token=${randomToken(32)}`,
    };
    for (const [what, value] of Object.entries(planted)) {
      const findings = scan([item({ data: { details: { notes: ['fine', { deep: value }] } } })]);
      expect(findings, what).toEqual([expect.objectContaining({ table: 'table-x', kind: 'thing', path: 'data.details.notes[1].deep', what })]);
      expect(findings[0]!.masked).not.toBe(value);
    }
  });

  it('finds a recorded value no format knows: a six-digit code as a word, an integration header value inside a longer string', () => {
    const header = `hv-${randomBytes(12).toString('hex')}`;
    expect(scan([item({ note: 'code 042917 sent' })], ['042917'])).toEqual([expect.objectContaining({ path: 'note', what: 'a secret value a test was shown' })]);
    expect(scan([item({ challengeCode: '042917' })], ['042917'])).toHaveLength(1);
    expect(scan([item({ auth: { secret: `Bearer ${header}` } })], [header])).toEqual([expect.objectContaining({ path: 'auth.secret' })]);
    expect(scan([item({ tags: new Set(['a', header]) })], [header])).toHaveLength(1);
  });

  it('does not mistake what the service stores by design for a secret', async () => {
    const code = '042917';
    const token = randomToken(32);
    const secret = newWebhookSecret();
    const sealed = await KeyFileSealer.inMemory().seal(secret, { purpose: 'webhook_signing' });
    // Hex digests contain the code's digits by chance often enough to matter across a run; only a whole word counts.
    const digestWithCodeInside = `ab${code}cd${'e'.repeat(54)}`;
    const items = [
      item({ challengeCodeHash: await codeHash(KeyFileCodeKey.inMemory(), newId(), 'challenge', code), digestWithCodeInside }),
      item({ pk: `LINK#${createHash('sha256').update(token).digest('hex')}`, secrets: [{ sealed, expiresAt: null }] }),
      item({ occurredAt: '2030-01-02T04:29:17.042Z', seq: 42917, id: newId(), commit: 'commitment0123456789ab' }),
    ];
    expect(scan(items, [code, token, secret])).toEqual([]);
  });

  it('reports the table, the item and the path, never the whole secret', () => {
    const key = newApiKeySecret();
    const [finding] = scan([{ pk: 'APIKEY#x', sk: 'KEY', kind: 'api_key', leaked: key }]);
    expect(finding).toEqual({ table: 'table-x', key: 'APIKEY#x / KEY', kind: 'api_key', path: 'leaked', what: 'API key', masked: expect.stringMatching(/^chs_li…\(52 chars\)$/) });
  });
});

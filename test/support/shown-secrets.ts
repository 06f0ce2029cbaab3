/**
 * Records, while the suite runs, every secret value a test is shown, so that the global teardown
 * can look for each one in every table item (table-secret-scan.ts). Each test process appends to
 * files of its own under the folder the global setup provides (`shownSecretsDir`): one value a line
 * in `<pid>.secrets`, and the outbox folders of its services in `<pid>.outboxes`.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import type { SecretSealer } from '../../lambdas/core/sealing.ts';
import { cookieSecrets, secretsShownIn } from './secret-scan.ts';

const folder = () => {
  try {
    return inject('shownSecretsDir') ?? null;
  } catch {
    // Outside a vitest run (a script importing a helper): nothing to record into.
    return null;
  }
};

const append = (suffix: string, values: readonly string[]) => {
  const dir = folder();
  // A value with a line break would split into lines that are not the secret; its first line still is part of it.
  const lines = values.map((value) => value.split(/\r?\n/)[0]!).filter((value) => value.length > 0);
  if (!dir || lines.length === 0) return;
  appendFileSync(join(dir, `${process.pid}.${suffix}`), `${lines.join('\n')}\n`, { mode: 0o600 });
};

/** Values the test was shown that must never be in a table in plain text. */
export const recordShownSecrets = (values: readonly string[]) => append('secrets', values);

/** The secret fields of an answer (parsed JSON) and the cookies it sets. */
export const recordAnswer = (body: unknown, setCookies: readonly string[] = []) =>
  recordShownSecrets([...secretsShownIn(body), ...cookieSecrets(setCookies)]);

/** A service's outbox: the teardown reads every message in it for link tokens and codes. */
export const recordOutbox = (outboxDir: string) => append('outboxes', [outboxDir]);

/** The sealer a test service seals with, recording every plain text sealed: an integration's header value, a webhook secret. */
export const recordingSealer = (inner: SecretSealer): SecretSealer => ({
  seal: async (plaintext, context) => {
    recordShownSecrets([plaintext]);
    return inner.seal(plaintext, context);
  },
  open: (sealed, context) => inner.open(sealed, context),
});

const isLoopback = (url: string) => {
  try {
    const host = new URL(url).hostname;
    return host === '127.0.0.1' || host === 'localhost' || host === '[::1]';
  } catch {
    return false;
  }
};

/**
 * Wraps the process's fetch so every JSON answer from a service on this machine has its secret
 * fields recorded, whichever helper or test made the call (setup file record-shown-secrets.setup.ts).
 */
export const installFetchRecorder = () => {
  const original = globalThis.fetch;
  if ((original as { recordsSecrets?: boolean }).recordsSecrets) return;
  const recording = async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
    const response = await original(input, init);
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (!isLoopback(url)) return response;
    const setCookies = response.headers.getSetCookie?.() ?? [];
    if (!(response.headers.get('content-type') ?? '').includes('json')) {
      recordAnswer(undefined, setCookies);
      return response;
    }
    try {
      recordAnswer(JSON.parse(await response.clone().text()), setCookies);
    } catch {
      // Not JSON after all, or cut off: nothing to record from it.
    }
    return response;
  };
  globalThis.fetch = Object.assign(recording, { recordsSecrets: true }) as unknown as typeof fetch;
};

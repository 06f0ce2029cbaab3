import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { joinRunningEngine, useEngineAccessKey } from '../../lambdas/local/engine-access.ts';
import { LOCAL_ACCESS_KEY_VARIABLE, localEngineCredentials } from '../../lambdas/store/dynamo.ts';

describe('an on-disk engine\'s access key', () => {
  const before = process.env[LOCAL_ACCESS_KEY_VARIABLE];
  const folders: string[] = [];
  const folder = () => {
    const made = mkdtempSync(join(tmpdir(), 'engine-access-'));
    folders.push(made);
    return join(made, 'dynamodb');
  };
  afterEach(() => {
    if (before === undefined) delete process.env[LOCAL_ACCESS_KEY_VARIABLE];
    else process.env[LOCAL_ACCESS_KEY_VARIABLE] = before;
    for (const made of folders.splice(0)) rmSync(made, { recursive: true, force: true });
  });

  it('is made once, kept in a file only its owner reads, and used by this process\'s clients', () => {
    const dbPath = folder();
    const key = useEngineAccessKey(dbPath);
    expect(key).toMatch(/^LOCAL[0-9A-F]{27}$/);
    expect(useEngineAccessKey(dbPath)).toBe(key);
    expect(statSync(dbPath).mode & 0o777).toBe(0o700);
    expect(statSync(join(dbPath, 'access-key')).mode & 0o777).toBe(0o600);
    expect(localEngineCredentials().accessKeyId).toBe(key);
    expect(useEngineAccessKey(folder())).not.toBe(key);
  });

  it('moves the data a shared engine kept under the key, readable by its owner alone', () => {
    const dbPath = folder();
    useEngineAccessKey(dbPath);
    rmSync(join(dbPath, 'access-key'));
    writeFileSync(join(dbPath, 'shared-local-instance.db'), 'tables', { mode: 0o644 });
    writeFileSync(join(dbPath, 'shared-local-instance.db-journal'), 'journal');
    // Beside an engine at work nothing is made or moved.
    expect(joinRunningEngine(dbPath)).toBeNull();
    expect(readdirSync(dbPath).sort()).toEqual(['shared-local-instance.db', 'shared-local-instance.db-journal']);
    const key = useEngineAccessKey(dbPath);
    expect(readdirSync(dbPath).sort()).toEqual(['access-key', `${key}_eu-west-2.db`, `${key}_eu-west-2.db-journal`].sort());
    expect(joinRunningEngine(dbPath)).toBe(key);
    expect(statSync(join(dbPath, `${key}_eu-west-2.db`)).mode & 0o777).toBe(0o600);
  });
});

/** The local code key (lambdas/local/key-file-code-key.ts): made at first use under `.data/`, the same key on every start. */
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KeyFileCodeKey } from '../../lambdas/local/key-file-code-key.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('KeyFileCodeKey', () => {
  it('creates a 32-byte key file readable by its owner alone, and MACs with it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'code-key-'));
    dirs.push(dir);
    const path = join(dir, '.data', 'code-hash.key');
    const key = await KeyFileCodeKey.fromFile(path);
    const raw = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
    expect(raw).toHaveLength(32);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(await key.mac('challenge:req:042917')).toBe(createHmac('sha256', raw).update('challenge:req:042917').digest('hex'));
  });

  it('reads the same key back on the next start, so stored hashes still match', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'code-key-'));
    dirs.push(dir);
    const path = join(dir, 'code-hash.key');
    const first = await (await KeyFileCodeKey.fromFile(path)).mac('m');
    expect(await (await KeyFileCodeKey.fromFile(path)).mac('m')).toBe(first);
    expect(await KeyFileCodeKey.inMemory().mac('m')).not.toBe(first);
  });
});

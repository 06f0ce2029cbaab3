import { mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What a clone holds that a scratch copy must not share: the repository's history and its own local data. */
const LEFT_OUT = new Set(['.git', '.data']);

/**
 * A folder that works as the repository's root for commands run in it (`npm run admin`,
 * `node tools/...`, `npx` of a devDependency), with `.data` pointing at `dataDir`: every top-level
 * entry of `root` is a symbolic link, so what a command writes at the root (a downloaded file)
 * lands in the scratch folder, never in the repository, and the local data is the test's own.
 */
export const scratchClone = (root: string, dataDir: string) => {
  const dir = mkdtempSync(join(tmpdir(), 'handoff-scratch-clone-'));
  for (const name of readdirSync(root)) {
    if (!LEFT_OUT.has(name)) symlinkSync(join(root, name), join(dir, name));
  }
  symlinkSync(dataDir, join(dir, '.data'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
};

/**
 * A folder holding an `npm` that runs `npm run admin -- ...` (and `npm run -s admin -- ...`) as
 * npm would, with the run's bundle of the CLI (admin-cli-bundle.ts) in place of tsx, and hands
 * every other npm command to the real npm. Put first on PATH, it saves the docs examples' dozens of
 * CLI runs a second of npm and tsx start-up each; the test that uses it also runs the real
 * `npm run admin` once and compares.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const quoted = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;

export const npmAdminShim = (adminBundle: string, packageLabel: string, adminScript: string) => {
  const realNpm = execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim();
  const dir = mkdtempSync(join(tmpdir(), 'handoff-npm-shim-'));
  // npm's own output around a script: a blank line, the package and script, the command, a blank line (none with -s).
  const script = `#!/bin/sh
if [ "$1" = run ]; then
  silent=
  shift
  while [ "$1" = -s ] || [ "$1" = --silent ]; do silent=1; shift; done
  if [ "$1" = admin ]; then
    shift
    [ "$1" = -- ] && shift
    [ -n "$silent" ] || printf '\\n> %s admin\\n> %s %s\\n\\n' ${quoted(packageLabel)} ${quoted(adminScript)} "$*"
    exec node ${quoted(adminBundle)} "$@"
  fi
  exec ${quoted(realNpm)} run \${silent:+-s} "$@"
fi
exec ${quoted(realNpm)} "$@"
`;
  const npm = join(dir, 'npm');
  writeFileSync(npm, script);
  chmodSync(npm, 0o755);
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
};

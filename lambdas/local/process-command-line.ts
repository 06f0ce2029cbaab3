import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

/**
 * The arguments a running process was started with, or null when no such process runs. A process
 * that has exited but is not reaped yet (a zombie) has no command line, so it counts as gone: a
 * process id is only worth signalling while this answers what we expect.
 */
export const commandLineOf = (pid: number): string[] | null => {
  if (!Number.isInteger(pid) || pid <= 0) return null;
  if (existsSync('/proc/self/cmdline')) {
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
      return args.length > 0 ? args : null;
    } catch {
      return null;
    }
  }
  // No /proc (macOS): ps gives the same words, joined by spaces, so a path with spaces splits.
  const probe = spawnSync('ps', ['-o', 'command=', '-p', String(pid)], { encoding: 'utf8' });
  const line = probe.status === 0 ? probe.stdout.trim() : '';
  return line ? line.split(/\s+/) : null;
};

export const sameCommandLine = (a: string[] | null, b: string[] | null) =>
  a !== null && b !== null && a.length === b.length && a.every((word, i) => word === b[i]);

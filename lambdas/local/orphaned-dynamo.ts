import { spawnSync } from 'node:child_process';
import { isAlive, readStaleRuntimeFile, removeRuntimeFile } from './runtime-file.ts';

const STOP_WAIT_MS = 10_000;

/** Whether the process is a DynamoDB Local (so a reused process id is never signalled by mistake). */
const isDynamoLocal = (pid: number) => {
  const probe = spawnSync('ps', ['-o', 'command=', '-p', String(pid)], { encoding: 'utf8' });
  return probe.status === 0 && probe.stdout.includes('DynamoDBLocal');
};

/**
 * A service killed outright (SIGKILL, a crash, a closed terminal) cannot stop the DynamoDB Local
 * it started: that Java process lives on, holding the data folder. The next start over the same
 * folder stops it first (it shuts down cleanly on SIGTERM), so only one engine ever works on the
 * files. Returns the process id it stopped, or null.
 */
export const stopOrphanedDynamo = async (dataDir: string): Promise<number | null> => {
  const stale = readStaleRuntimeFile(dataDir);
  if (!stale) return null;
  removeRuntimeFile(dataDir);
  const pid = stale.dynamoPid;
  // A process that has exited but not been reaped yet no longer shows its command line.
  const running = () => Boolean(pid) && isAlive(pid!) && isDynamoLocal(pid!);
  if (!running()) return null;
  process.kill(pid!, 'SIGTERM');
  const deadline = Date.now() + STOP_WAIT_MS;
  while (running() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (running()) process.kill(pid!, 'SIGKILL');
  return pid!;
};

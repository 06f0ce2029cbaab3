import { join, resolve } from 'node:path';
import { ENGINE_FOLDER, isRecordedEngineRunning } from './engine-record.ts';
import { stopLeftoverEngine, stopRecordedEngine } from './leftover-engine.ts';
import { readStaleRuntimeFile, removeRuntimeFile } from './runtime-file.ts';

/**
 * A service killed outright (SIGKILL, a crash, a closed terminal) cannot stop the DynamoDB Local
 * it started: that engine runs in a process group of its own, so it lives on, holding the data
 * folder. The next start over the same folder stops it first, gracefully (on SIGTERM it writes out
 * what it acknowledged and closes its files), so only one engine ever works on the files. Returns
 * the process id it stopped, or null.
 */
export const stopOrphanedDynamo = async (dataDir: string): Promise<number | null> => {
  const dbPath = resolve(join(dataDir, ENGINE_FOLDER));
  const stale = readStaleRuntimeFile(dataDir);
  if (stale) removeRuntimeFile(dataDir);
  const stopped = await stopLeftoverEngine(dbPath);
  if (stopped !== null || !stale?.dynamoPid) return stopped;
  // An engine started before engines kept a record is known only from the service's runtime file.
  const port = Number(new URL(stale.dynamoEndpoint).port);
  const legacy = { pid: stale.dynamoPid, port, dbPath, owner: stale.pid, ownerCommand: null, startedAt: '' };
  if (!isRecordedEngineRunning(legacy)) return null;
  await stopRecordedEngine(legacy);
  return legacy.pid;
};

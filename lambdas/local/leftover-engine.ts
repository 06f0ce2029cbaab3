import { isOwnerRunning, isRecordedEngineRunning, readEngineRecord, removeEngineRecord, type EngineRecord } from './engine-record.ts';

/**
 * How long a DynamoDB Local gets to shut down on SIGTERM before it is killed. It closes its files in
 * well under a second; SIGKILL can drop writes it has already acknowledged, so it is only the last
 * resort for an engine that hangs.
 */
export const ENGINE_STOP_TIMEOUT_MS = 30_000;

export class EngineInUseError extends Error {
  override readonly name = 'EngineInUseError';
}

const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** SIGTERM, then waits for the engine to exit; SIGKILL only if it has not after the timeout. */
export const stopRecordedEngine = async (record: EngineRecord, timeoutMs = ENGINE_STOP_TIMEOUT_MS) => {
  const signal = (name: NodeJS.Signals) => {
    // Checked just before each signal, so an id reused by another program is never signalled.
    if (!isRecordedEngineRunning(record)) return;
    try {
      process.kill(record.pid, name);
    } catch (error) {
      // It exited between the check and the signal.
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  };
  signal('SIGTERM');
  const deadline = Date.now() + timeoutMs;
  while (isRecordedEngineRunning(record) && Date.now() < deadline) await pause(100);
  if (isRecordedEngineRunning(record)) {
    signal('SIGKILL');
    while (isRecordedEngineRunning(record)) await pause(100);
  }
};

/**
 * An engine left running on `dbPath` by a process that is gone (killed outright, crashed, its
 * terminal closed): stops it gracefully and returns its process id; null when there was none. A
 * stale record is dropped. An engine whose starter still runs is in use, and is left alone.
 *
 * It is stopped, not reused: a graceful stop makes the engine write out everything it acknowledged,
 * and the fresh engine that follows is one this process started, with this install's jar and flags,
 * owned and stopped by it, exactly as after a clean start. Reusing it would tie the new service to
 * an engine of unknown health and version, owned by nobody, for a saving of a few seconds.
 */
export const stopLeftoverEngine = async (dbPath: string): Promise<number | null> => {
  const record = readEngineRecord(dbPath);
  if (!record) return null;
  if (!isRecordedEngineRunning(record)) {
    removeEngineRecord(dbPath, record.pid);
    return null;
  }
  if (isOwnerRunning(record)) {
    throw new EngineInUseError(
      `DynamoDB Local (process ${record.pid}) already works on ${dbPath} for process ${record.owner}, which still runs: stop that (npm start or npm run admin) first.`,
    );
  }
  await stopRecordedEngine(record);
  removeEngineRecord(dbPath, record.pid);
  return record.pid;
};

/** Stops the engine this process started on `dbPath`, if it runs: for a start that failed halfway. */
export const stopOwnEngine = async (dbPath: string) => {
  const record = readEngineRecord(dbPath);
  if (!record || record.owner !== process.pid || !isRecordedEngineRunning(record)) return;
  await stopRecordedEngine(record);
  removeEngineRecord(dbPath, record.pid);
};

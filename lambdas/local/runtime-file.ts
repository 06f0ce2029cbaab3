import { readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

/** Where a running `npm start` says which DynamoDB Local it uses, so the admin CLI can join it. */
export interface LocalRuntime {
  dynamoEndpoint: string;
  tableName: string;
  baseUrl: string;
  pid: number;
  /** The DynamoDB Local it started (in a process group of its own, so it outlives a service killed outright). */
  dynamoPid?: number | null;
}

const fileIn = (dataDir: string) => join(dataDir, 'runtime.json');

export const writeRuntimeFile = (dataDir: string, runtime: LocalRuntime) => {
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(fileIn(dataDir), `${JSON.stringify(runtime, null, 2)}\n`);
};

export const removeRuntimeFile = (dataDir: string) => rmSync(fileIn(dataDir), { force: true });

const readFile = (dataDir: string): LocalRuntime | null => {
  try {
    return JSON.parse(readFileSync(fileIn(dataDir), 'utf8')) as LocalRuntime;
  } catch {
    return null;
  }
};

export const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, it is just not ours to signal.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** The running service's details, or null when none runs (a stale file is ignored). */
export const readRuntimeFile = (dataDir: string): LocalRuntime | null => {
  const runtime = readFile(dataDir);
  return runtime && isAlive(runtime.pid) ? runtime : null;
};

/** The details a service left behind when it died without cleaning up, or null. */
export const readStaleRuntimeFile = (dataDir: string): LocalRuntime | null => {
  const runtime = readFile(dataDir);
  return runtime && !isAlive(runtime.pid) ? runtime : null;
};

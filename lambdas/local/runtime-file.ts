import { readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

/** Where a running `npm start` says which DynamoDB Local it uses, so the admin CLI can join it. */
export interface LocalRuntime {
  dynamoEndpoint: string;
  tableName: string;
  baseUrl: string;
  pid: number;
}

const fileIn = (dataDir: string) => join(dataDir, 'runtime.json');

export const writeRuntimeFile = (dataDir: string, runtime: LocalRuntime) => {
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(fileIn(dataDir), `${JSON.stringify(runtime, null, 2)}\n`);
};

export const removeRuntimeFile = (dataDir: string) => rmSync(fileIn(dataDir), { force: true });

/** The running service's details, or null when none runs (a stale file is ignored). */
export const readRuntimeFile = (dataDir: string): LocalRuntime | null => {
  try {
    const runtime = JSON.parse(readFileSync(fileIn(dataDir), 'utf8')) as LocalRuntime;
    process.kill(runtime.pid, 0);
    return runtime;
  } catch {
    return null;
  }
};

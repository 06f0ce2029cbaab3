import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { commandLineOf, sameCommandLine } from './process-command-line.ts';

/**
 * An on-disk DynamoDB Local runs in a session of its own, so it outlives whatever started it. This
 * record, in the folder the engine serves, says which process it is, so a later start over the same
 * folder can find it and stop it before opening the files itself.
 */
export interface EngineRecord {
  pid: number;
  port: number;
  /** The folder the engine was started on (its -dbPath), resolved. */
  dbPath: string;
  /** The process that started the engine and stops it when it stops, and its command line. */
  owner: number;
  ownerCommand: string[] | null;
  startedAt: string;
}

/** The folder under the local data folder that DynamoDB Local keeps its files in. */
export const ENGINE_FOLDER = 'dynamodb';
export const ENGINE_RECORD_FILE = 'engine.json';
export const ENGINE_LOG_FILE = 'engine.log';

const fileIn = (dbPath: string) => join(dbPath, ENGINE_RECORD_FILE);

export const writeEngineRecord = (record: EngineRecord) => writeFileSync(fileIn(record.dbPath), `${JSON.stringify(record, null, 2)}\n`);

export const readEngineRecord = (dbPath: string): EngineRecord | null => {
  try {
    const record = JSON.parse(readFileSync(fileIn(dbPath), 'utf8')) as EngineRecord;
    return Number.isInteger(record.pid) && Number.isInteger(record.port) ? record : null;
  } catch {
    return null;
  }
};

/** Removes the record, unless it now names another engine (one started after the one stopped). */
export const removeEngineRecord = (dbPath: string, pid: number) => {
  if (readEngineRecord(dbPath)?.pid === pid) rmSync(fileIn(dbPath), { force: true });
};

/**
 * Whether the recorded engine still runs: its process id is a DynamoDB Local serving that folder on
 * that port. A stale record (the engine exited, or its id now belongs to another program) is not.
 */
export const isRecordedEngineRunning = (record: EngineRecord) => {
  const args = commandLineOf(record.pid);
  if (!args) return false;
  const line = ` ${args.join(' ')} `;
  return line.includes('DynamoDBLocal.jar') && line.includes(` -dbPath ${record.dbPath} `) && line.includes(` -port ${record.port} `);
};

/** Whether the process that started the engine still runs (its id not reused by something else). */
export const isOwnerRunning = (record: EngineRecord) => sameCommandLine(commandLineOf(record.owner), record.ownerCommand);

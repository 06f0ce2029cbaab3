/**
 * Who may read an on-disk DynamoDB Local's tables. The engine cannot be told to listen on loopback
 * alone (it has no such option, and it answers any credentials), so anyone who can reach its port
 * from the network could read and write the service's table. It is therefore started without
 * `-sharedDb`: each access key id then has a database of its own, named after it, and the
 * service's is a random key id kept in the data folder (readable by its owner alone). A caller
 * with any other key finds an empty database.
 *
 * In-memory engines (tests, benchmarks) hold nothing worth keeping and stay shared.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LOCAL_ACCESS_KEY_VARIABLE, LOCAL_ENGINE_REGION } from '#store/dynamo.ts';

const KEY_FILE = 'access-key';
/** The file a `-sharedDb` engine kept everything in, before each key had its own. */
const SHARED_DATABASE_FILE = 'shared-local-instance.db';

/**
 * The key the data in `dbPath` is kept under, made on first use (and the data of a shared engine
 * moved under it); set for this process's clients. The folder and its files are the owner's alone.
 */
export const useEngineAccessKey = (dbPath: string): string => {
  mkdirSync(dbPath, { recursive: true, mode: 0o700 });
  chmodSync(dbPath, 0o700);
  let key = keyIn(dbPath);
  if (key === null) {
    // 108 random bits in an access key id's shape: not guessable one call at a time.
    key = `LOCAL${randomBytes(14).toString('hex').toUpperCase().slice(0, 27)}`;
    writeFileSync(join(dbPath, KEY_FILE), `${key}\n`, { mode: 0o600 });
  }
  const own = join(dbPath, `${key}_${LOCAL_ENGINE_REGION}.db`);
  const shared = join(dbPath, SHARED_DATABASE_FILE);
  if (existsSync(shared) && !existsSync(own)) {
    // SQLite's files beside the database (a journal left by a crash) go with it.
    for (const suffix of SQLITE_SIDE_FILES) if (existsSync(shared + suffix)) renameSync(shared + suffix, own + suffix);
    renameSync(shared, own);
  }
  if (existsSync(own)) chmodSync(own, 0o600);
  process.env[LOCAL_ACCESS_KEY_VARIABLE] = key;
  return key;
};

/**
 * The key of an engine already running on `dbPath`, for this process's clients (the operator CLI
 * beside `npm start`); nothing is made or moved under an engine at work. None: the engine is
 * shared (started before keys), and any credentials reach it.
 */
export const joinRunningEngine = (dbPath: string) => {
  const key = keyIn(dbPath);
  if (key !== null) process.env[LOCAL_ACCESS_KEY_VARIABLE] = key;
  return key;
};

const SQLITE_SIDE_FILES = ['-journal', '-wal', '-shm'];

/** The key kept in the folder, when there is one in an access key id's shape (16 to 128 letters and digits). */
const keyIn = (dbPath: string) => {
  const keyFile = join(dbPath, KEY_FILE);
  const key = existsSync(keyFile) ? readFileSync(keyFile, 'utf8').trim() : '';
  return /^[A-Z0-9]{16,128}$/.test(key) ? key : null;
};

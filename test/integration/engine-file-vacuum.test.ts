/**
 * A destroyed credential leaves no readable copy in the local runtime's database file. DynamoDB
 * Local keeps its data in a SQLite file under the data folder, and SQLite leaves a deleted row's
 * bytes in its free pages: after a completion the envelope was gone from the table but most of its
 * ciphertext could still be read from `.data/dynamodb/`, beside the demo members' private keys.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDynamoLocal, type RunningDynamo } from '../../lambdas/local/dynamodb-local.ts';
import { ENGINE_FOLDER } from '../../lambdas/local/engine-record.ts';
import { materialItems, requestItem } from '../support/shapes.ts';
import { submitAsSubject } from '../support/submission.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'handoff-engine-file-'));
const engineFolder = join(dataDir, ENGINE_FOLDER);
const previousKey = process.env.DYNAMODB_LOCAL_ACCESS_KEY;

let engine: RunningDynamo;
let service: TestService;
let org: TestOrganisation;

/** A file's bytes as Latin-1, or nothing when SQLite removed it (a journal) after it was listed. */
const readIfThere = (path: string) => {
  try {
    return readFileSync(path).toString('latin1');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
};

/** How many 32-character pieces of `text` can be read in the engine's files (its databases and their journals). */
const piecesOnDisk = (text: string) => {
  const files = readdirSync(engineFolder).filter((name) => /\.db(-\w+)?$/.test(name));
  const bytes = files.map((name) => readIfThere(join(engineFolder, name))).join('\n');
  let found = 0;
  for (let at = 0; at + 32 <= text.length; at += 32) if (bytes.includes(text.slice(at, at + 32))) found++;
  return found;
};

/** `read()` once `done` holds of it, or as it is after ten seconds. */
const settled = async <T>(read: () => T, done: (value: T) => boolean): Promise<T> => {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
};

beforeAll(async () => {
  engine = await startDynamoLocal({ dataDir: engineFolder });
  service = await startTestService({ dynamo: { endpoint: engine.endpoint } });
  org = await service.createOrganisation({ name: 'Engine File Org' });
});

afterAll(async () => {
  await service?.stop();
  await engine?.stop();
  if (previousKey === undefined) delete process.env.DYNAMODB_LOCAL_ACCESS_KEY;
  else process.env.DYNAMODB_LOCAL_ACCESS_KEY = previousKey;
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the local engine file after a completion', () => {
  it('holds none of the destroyed ciphertext', async () => {
    const created = await service.call('POST', '/requests', {
      key: org.key,
      body: { subject_name: 'Jane Doe', justification: 'Need the VPN admin password', recipients: [org.owner.email] },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.request.id as string;
    const ciphertext = randomBytes(24_000).toString('base64');
    await submitAsSubject(service, id, service.deps.clock, { envelope: { v: 1, ciphertext, recipients: [] }, attachments: [] });
    // The engine writes its file a moment after it answers.
    expect(await settled(() => piecesOnDisk(ciphertext), (found) => found > 0)).toBeGreaterThan(0);

    const completed = await service.call('POST', `/requests/${id}/complete`, { key: org.key });
    expect(completed.status, completed.text).toBe(200);
    expect(completed.body.status).toBe('completed');
    expect(await materialItems(service, id)).toEqual([]);
    expect((await requestItem(service, id))?.status).toBe('completed');
    expect(await settled(() => piecesOnDisk(ciphertext), (found) => found === 0)).toBe(0);
  });
});

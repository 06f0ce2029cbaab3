/**
 * An acknowledged create survives `npm start` killed outright. The whole process group (npm, its
 * shell, tsx, node) is SIGKILLed the moment the creates answer 201, as a closed terminal or an OOM
 * kill of the group would; DynamoDB Local, in a group of its own, is not hit mid-write, and the
 * next start stops it gracefully before opening the files. Over several rounds, every request
 * answered 201 is there after the restart.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ENGINE_FOLDER, isRecordedEngineRunning, readEngineRecord } from '../../lambdas/local/engine-record.ts';
import { ENGINE_STOP_TIMEOUT_MS, stopRecordedEngine } from '../../lambdas/local/leftover-engine.ts';
import { killProcessGroup, portAnswers, startLocalProcess, waitFor, type LocalProcess } from '../support/local-process.ts';

const ROUNDS = 5;
/** Creates sent at once each round, so several are answered in the last milliseconds before the kill. */
const CREATES_PER_ROUND = 3;

const dataDir = mkdtempSync(join(tmpdir(), 'handoff-durability-'));
const engineFolder = join(dataDir, ENGINE_FOLDER);
const running: ChildProcess[] = [];

afterAll(async () => {
  for (const child of running) await killProcessGroup(child, 'SIGKILL');
  // Whatever round failed, the engine it left running is stopped here, so no JVM outlives the run.
  const engine = readEngineRecord(engineFolder);
  if (engine && isRecordedEngineRunning(engine)) await stopRecordedEngine(engine);
  rmSync(dataDir, { recursive: true, force: true });
});

const start = () => startLocalProcess(dataDir, running, { asNpmStart: true });

const create = async (service: LocalProcess, name: string) => {
  const answer = await fetch(`${service.baseUrl}/requests`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${service.key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ subject_name: name, preset: 'standard' }),
  });
  const text = await answer.text();
  expect(answer.status, text).toBe(201);
  return (JSON.parse(text) as { request: { id: string } }).request.id;
};

const read = (service: LocalProcess, id: string) => fetch(`${service.baseUrl}/requests/${id}`, { headers: { Authorization: `Bearer ${service.key}` } });

describe('npm start with its whole process group SIGKILLed right after a 201', () => {
  it(`keeps every acknowledged create, in each of ${ROUNDS} rounds`, async () => {
    let service = await start();
    for (let round = 1; round <= ROUNDS; round++) {
      const ids = await Promise.all(Array.from({ length: CREATES_PER_ROUND }, (_, i) => create(service, `Round ${round} subject ${i}`)));
      await killProcessGroup(service.child, 'SIGKILL');

      // The kill did not reach the engine: it still runs, serving the data folder.
      const engine = readEngineRecord(engineFolder);
      expect.soft(engine && isRecordedEngineRunning(engine), `round ${round}: the engine outlived the group`).toBe(true);

      service = await start();
      if (engine) {
        expect.soft(service.output(), `round ${round}: the restart stopped the old engine first`).toContain(`Stopped the DynamoDB Local (process ${engine.pid})`);
        expect.soft(isRecordedEngineRunning(engine), `round ${round}: the old engine is gone`).toBe(false);
        // Its port is closed, unless the new engine was given the same port by the system.
        if (readEngineRecord(engineFolder)?.port !== engine.port) expect.soft(await portAnswers(engine.port), `round ${round}: the old engine's port is closed`).toBe(false);
      }
      for (const id of ids) {
        const kept = await read(service, id);
        expect.soft(kept.status, `round ${round}: request ${id} after the restart`).toBe(200);
        if (kept.status === 200) expect.soft((await kept.json()).id).toBe(id);
      }
    }

    // Ctrl-C in a terminal signals the whole group; the engine is outside it, so the service stops it.
    const engine = readEngineRecord(engineFolder);
    expect(engine && isRecordedEngineRunning(engine)).toBe(true);
    await killProcessGroup(service.child, 'SIGINT');
    // npm may exit before node has finished stopping the engine: the record goes once it has.
    // A graceful stop may take the engine's whole stop timeout before it is killed, more on a busy machine.
    await waitFor(() => (readEngineRecord(engineFolder) === null ? true : undefined), ENGINE_STOP_TIMEOUT_MS + 30_000, 'the engine to stop');
    expect(service.output()).toContain('Stopping the API and DynamoDB Local...');
    expect(isRecordedEngineRunning(engine!)).toBe(false);
    expect(await portAnswers(engine!.port)).toBe(false);
  }, 600_000);
});

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stopOrphanedDynamo } from '../../lambdas/local/orphaned-dynamo.ts';
import { portAnswers, startLocalProcess, stopProcess } from '../support/local-process.ts';

/**
 * `npm start` as a user runs it: bin/local.ts in its own process, with its own DynamoDB Local and
 * data folder. It must print a base URL and a demo key that work, stop DynamoDB Local on Ctrl-C,
 * and keep the data for the next start.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'handoff-start-'));
const running: ChildProcess[] = [];

const start = () => startLocalProcess(dataDir, running);
const interrupt = (child: ChildProcess) => stopProcess(child, 'SIGINT');

const ping = (baseUrl: string, key: string) => fetch(`${baseUrl}/ping`, { headers: { Authorization: `Bearer ${key}` } });

afterAll(async () => {
  for (const child of running) await stopProcess(child, 'SIGKILL');
  // A run that failed midway killed its service outright: stop the DynamoDB Local it left.
  await stopOrphanedDynamo(dataDir);
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm start', () => {
  it('serves the API with a working demo key, stops DynamoDB Local on Ctrl-C, and keeps the data', async () => {
    const first = await start();
    const answer = await ping(first.baseUrl, first.key);
    expect(answer.status).toBe(200);
    const firstPing = await answer.json();
    expect(firstPing.organisation.name).toBe('Demo MSP');
    expect(firstPing.key.scopes).toEqual(['requests:read', 'requests:write', 'tickets:write', 'events:read', 'webhooks:write']);

    // The demo preset and recipients work as the banner's curl line says.
    const created = await fetch(`${first.baseUrl}/requests`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${first.key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ subject_name: 'Jane Doe', preset: 'standard' }),
    });
    expect(created.status).toBe(201);
    const { request } = await created.json();

    const runtime = JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8'));
    expect(await portAnswers(Number(new URL(runtime.dynamoEndpoint).port))).toBe(true);
    expect(await interrupt(first.child)).toBe(0);
    expect(await portAnswers(Number(new URL(runtime.dynamoEndpoint).port))).toBe(false);

    const second = await start();
    expect(second.key).not.toBe(first.key);
    const secondPing = await (await ping(second.baseUrl, second.key)).json();
    expect(secondPing.organisation.id).toBe(firstPing.organisation.id);
    expect((await ping(second.baseUrl, first.key)).status).toBe(401);
    const kept = await fetch(`${second.baseUrl}/requests/${request.id}`, { headers: { Authorization: `Bearer ${second.key}` } });
    expect(kept.status).toBe(200);
    expect((await kept.json()).id).toBe(request.id);

    // The only place the demo key is printed is the banner: no structured log line carries it.
    const logLines = second.output().split('\n').filter((line) => line.startsWith('{'));
    expect(logLines.some((line) => line.includes(second.key))).toBe(false);
    expect(await interrupt(second.child)).toBe(0);
  }, 240_000);

  it('says in one line what to install when Java is missing', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/local.ts'], {
      env: { ...process.env, DATA_DIR: dataDir, PORT: '0', PATH: '/nonexistent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^DynamoDB Local needs Java 17 or newer: install it/);
  }, 60_000);
});

import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stopOrphanedDynamo } from '../../lambdas/local/orphaned-dynamo.ts';
import { portAnswers, startLocalProcess, stopProcess } from '../support/local-process.ts';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { joinRunningEngine } from '../../lambdas/local/engine-access.ts';
import { LOCAL_ENGINE_REGION, localEngineCredentials } from '../../lambdas/store/dynamo.ts';

/**
 * `npm start` as a user runs it: bin/local.ts in its own process, with its own DynamoDB Local and
 * data folder. It must print a base URL and a demo key that work, stop DynamoDB Local on Ctrl-C,
 * and keep the data for the next start.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'handoff-start-'));
const running: ChildProcess[] = [];

const start = () => startLocalProcess(dataDir, running);
const interrupt = (child: ChildProcess) => stopProcess(child, 'SIGINT');

/** The operator CLI over the stopped service's data folder (it starts a DynamoDB Local of its own). */
const revokeWithCli = (folder: string, orgId: string, keyId: string) =>
  new Promise<void>((resolve, reject) =>
    execFile(process.execPath, ['--import', 'tsx', 'bin/admin.ts', 'revoke-key', '--org', orgId, '--key', keyId], { env: { ...process.env, DATA_DIR: folder }, timeout: 90_000 }, (error, _stdout, stderr) =>
      error ? reject(new Error(`revoke-key failed: ${stderr}`)) : resolve(),
    ),
  );

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
    // The engine answers whoever reaches its port (it cannot listen on loopback alone), but keeps
    // the data under the data folder's own key, in a folder only its owner can read: any other
    // key finds no table.
    const stranger = new DynamoDBClient({ endpoint: runtime.dynamoEndpoint, region: 'eu-west-2', credentials: { accessKeyId: 'stranger', secretAccessKey: 'x' } });
    expect((await stranger.send(new ListTablesCommand({}))).TableNames).toEqual([]);
    stranger.destroy();
    expect(joinRunningEngine(join(dataDir, 'dynamodb'))).toMatch(/^LOCAL/);
    const owner = new DynamoDBClient({ endpoint: runtime.dynamoEndpoint, region: LOCAL_ENGINE_REGION, credentials: localEngineCredentials() });
    expect((await owner.send(new ListTablesCommand({}))).TableNames).toContain(runtime.tableName);
    owner.destroy();
    expect(statSync(join(dataDir, 'dynamodb')).mode & 0o777).toBe(0o700);
    expect(statSync(join(dataDir, 'dynamodb', 'access-key')).mode & 0o777).toBe(0o600);
    expect(await interrupt(first.child)).toBe(0);
    expect(await portAnswers(Number(new URL(runtime.dynamoEndpoint).port))).toBe(false);

    // A script saved after the first start keeps working: the same key, kept only under the data folder.
    const second = await start();
    expect(second.key).toBe(first.key);
    expect(readFileSync(join(dataDir, 'demo-api-key'), 'utf8').trim()).toBe(first.key);
    expect(statSync(join(dataDir, 'demo-api-key')).mode & 0o777).toBe(0o600);
    expect(second.output()).toContain('the same as last time');
    // So are the demo integration's URLs, and the file that sets the shell examples' variables.
    const triggerUrl = (started: typeof first) => /Trigger URL:\s+(\S+)/.exec(started.output())![1];
    // PORT=0: a new port at each start, the same secret in the path.
    expect(new URL(triggerUrl(second)).pathname).toBe(new URL(triggerUrl(first)).pathname);
    for (const file of ['demo-integration-secrets.json', 'demo.env']) expect(statSync(join(dataDir, file)).mode & 0o777, file).toBe(0o600);
    const shellVariables = readFileSync(join(dataDir, 'demo.env'), 'utf8');
    expect(shellVariables).toContain(`export KEY='${second.key}'`);
    expect(shellVariables).toContain(`export TRIGGER_URL='${triggerUrl(second)}'`);
    const triggered = await fetch(triggerUrl(second).replace('localhost', '127.0.0.1'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ ticket_id: 'INC-1', preset: 'vpn', subject: { name: 'Jane Doe', email: 'jane@example.com' }, requester_email: 'technician@example.com' }),
    });
    expect(await triggered.json()).toMatchObject({ accepted: true, preset: 'vpn', problem: null });
    const secondPing = await (await ping(second.baseUrl, second.key)).json();
    expect(secondPing.organisation.id).toBe(firstPing.organisation.id);
    // The banner says where to go and who to be.
    expect(second.output()).toMatch(/Application:\s+http:\/\/localhost:\d+\/app/);
    expect(second.output()).toContain('technician@example.com');
    expect(second.output()).toContain(`Organisation:  Demo MSP, ${firstPing.organisation.id}`);
    expect(second.output()).toMatch(/Sign-in email: http:\/\/localhost:\d+\/local\/outbox/);
    // The site's root leads to the application.
    const root = await fetch(second.baseUrl.replace(/\/v1$/, '/'), { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/app');
    const kept = await fetch(`${second.baseUrl}/requests/${request.id}`, { headers: { Authorization: `Bearer ${second.key}` } });
    expect(kept.status).toBe(200);
    expect((await kept.json()).id).toBe(request.id);

    // The only place the demo key is printed is the banner: no structured log line carries it.
    const logLines = second.output().split('\n').filter((line) => line.startsWith('{'));
    expect(logLines.some((line) => line.includes(second.key))).toBe(false);
    // Revoked, the key is replaced at the next start, and the old one stays refused.
    const keys = await (await fetch(`${second.baseUrl.replace(/\/v1$/, '')}/v1/ping`, { headers: { Authorization: `Bearer ${second.key}` } })).json();
    expect(await interrupt(second.child)).toBe(0);
    await revokeWithCli(dataDir, firstPing.organisation.id, keys.key.prefix);
    const third = await start();
    expect(third.key).not.toBe(first.key);
    expect(third.output()).toContain('issued now');
    expect((await ping(third.baseUrl, first.key)).status).toBe(401);
    expect((await ping(third.baseUrl, third.key)).status).toBe(200);
    expect(await interrupt(third.child)).toBe(0);
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

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import type { Clock } from '../../lambdas/core/clock.ts';
import { normaliseIdentityKey } from '../../lambdas/core/fingerprint.ts';
import { newId } from '../../lambdas/core/ids.ts';
import type { ExpiryScheduler, PurgeScheduler } from '../../lambdas/core/ports.ts';
import type { TicketCheckQueue } from '../../lambdas/core/ticket-check.ts';
import type { SecretSealer } from '../../lambdas/core/sealing.ts';
import type { CodeKey } from '../../lambdas/core/code-key.ts';
import type { SigningKeyCustody } from '../../lambdas/core/signing-keys.ts';
import { SCOPES, type Plan, type Scope } from '../../lambdas/core/model.ts';
import { startLocalService, type LocalService, type LocalServiceOptions } from '../../lambdas/local/local-service.ts';
import { KeyFileSealer } from '../../lambdas/local/key-file-sealer.ts';
import { recordingSealer, recordOutbox } from './shown-secrets.ts';
import { assertNoTableAccessDenials, testTableAccess } from './table-access.ts';
import { FunctionContext } from '../../lambdas/local/function-context.ts';
import type { WorkerName } from '../../lambdas/access/table-access.ts';
import { generateKeyPairSync } from 'node:crypto';

/** A fresh EC P-256 public key as the service stores it (the private half is thrown away). */
export const identityKey = () => {
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return normaliseIdentityKey(publicKey.export({ format: 'pem', type: 'spki' }).toString());
};

export interface TestOrganisation {
  orgId: string;
  defaultClientId: string;
  owner: { id: string; email: string; name: string };
  member: { id: string; email: string; name: string };
  /** An all-scope key's secret. */
  key: string;
}

export interface TestService extends LocalService {
  outboxDir: string;
  /** Calls the API over real HTTP with a bearer key. */
  call(method: string, path: string, options?: { key?: string | null; body?: unknown; rawBody?: string; headers?: Record<string, string> }): Promise<ApiAnswer>;
  /** A new organisation with an owner and a member (both with identity keys) and an all-scope key. */
  createOrganisation(options?: { plan?: Plan; name?: string }): Promise<TestOrganisation>;
  createKey(orgId: string, options?: { scopes?: Scope[]; clientId?: string | null; allowlist?: string[]; expiresAt?: string | null; name?: string }): Promise<string>;
  /** A worker a test runs itself, held to that worker's table access declaration as the service's own are. */
  asWorker<Args extends unknown[], Result>(name: WorkerName, handler: (...args: Args) => Result): (...args: Args) => Result;
}

export interface ApiAnswer {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/**
 * An outbox folder for a service under test. The links and codes sent into it are looked for in
 * the tables at the end of the run, and the folder is removed then (global-setup.ts).
 */
export const newTestOutbox = () => {
  const outboxDir = mkdtempSync(join(tmpdir(), 'handoff-outbox-'));
  recordOutbox(outboxDir);
  return outboxDir;
};

/**
 * Starts the local service (the `npm start` runtime) on a free loopback port against the run's
 * DynamoDB Local, with a table of its own.
 */
export const startTestService = async (
  options: {
    clock?: Clock;
    /** The real local expiry timers and sweep; off by default, so no test is raced by them. */
    timers?: boolean;
    /** The expiry scheduler handlers use; default none (or the timers when `timers` is on). */
    scheduler?: ExpiryScheduler;
    /** The purge scheduler handlers use; default none (or the timers when `timers` is on). */
    purgeScheduler?: PurgeScheduler;
    /** Where ticket checks are queued; default none (or the check timers when `timers` is on). */
    ticketChecks?: TicketCheckQueue;
    /** Seals integration secrets; default a key in memory (pass a key file's sealer to share it with the CLI). */
    sealer?: SecretSealer;
    /** Hashes the six-digit codes; default a key in memory (pass a key file's code key to share it with the CLI). */
    codeKey?: CodeKey;
    /** Keeps the certificate signing keys; default keys in memory (pass a key folder's custody to share it with the CLI). */
    signingCustody?: SigningKeyCustody;
    /** The local webhook pipeline (stream poller, timer queue, delivery worker); off by default. */
    webhooks?: boolean;
    /** The table's stream, for a test that reads it itself; on with `webhooks`, else off (table-bootstrap.ts says why). */
    stream?: boolean;
    /** Lets webhooks go to loopback receivers; off by default. */
    allowLoopbackWebhooks?: boolean;
    /** Another way to the run's DynamoDB Local (a fault-injecting proxy), with the SDK client's timeout and attempts. */
    dynamo?: { endpoint: string } & LocalServiceOptions['dynamoClient'];
    /** Where the outbox's one-line notices go (`npm start` prints them); default nowhere. */
    announce?: (line: string) => void;
    /** The sign-in request's least answer time; default 0, as tests sign in often (the deployed default is SIGN_IN_ANSWER_MS). */
    signInAnswerMs?: number;
  } = {},
): Promise<TestService> => {
  const outboxDir = newTestOutbox();
  const service = await startLocalService({
    dynamoEndpoint: options.dynamo?.endpoint ?? inject('dynamoEndpoint'),
    dynamoClient: options.dynamo && { requestTimeoutMs: options.dynamo.requestTimeoutMs, maxAttempts: options.dynamo.maxAttempts },
    tableName: `test-${newId()}`,
    outboxDir,
    clock: options.clock,
    timers: options.timers ?? false,
    scheduler: options.scheduler,
    purgeScheduler: options.purgeScheduler,
    ticketChecks: options.ticketChecks,
    sealer: recordingSealer(options.sealer ?? KeyFileSealer.inMemory()),
    codeKey: options.codeKey,
    signingCustody: options.signingCustody,
    webhooks: options.webhooks ?? false,
    tableStream: options.stream ?? options.webhooks === true,
    allowLoopbackWebhooks: options.allowLoopbackWebhooks ?? false,
    announce: options.announce ?? (() => undefined),
    tableAccess: testTableAccess(),
    signInAnswerMs: options.signInAnswerMs ?? 0,
  });

  const call: TestService['call'] = async (method, path, { key, body, rawBody, headers = {} } = {}) => {
    const init: RequestInit = { method, headers: { ...headers } };
    if (key) (init.headers as Record<string, string>).Authorization = `Bearer ${key}`;
    if (rawBody !== undefined) init.body = rawBody;
    else if (body !== undefined) {
      init.body = JSON.stringify(body);
      (init.headers as Record<string, string>)['Content-Type'] = 'application/json';
    }
    // `/v1` paths by default; the pages, their endpoints and the inbound ticket URLs sit at the root.
    const root = /^\/(subject|app|r|s|share|assets|inbound|\.well-known)(\/|$)/.test(path) ? service.appUrl : service.baseUrl;
    const response = await fetch(`${root.replace('localhost', '127.0.0.1')}${path}`, init);
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, body: parsed, text };
  };

  const createKey: TestService['createKey'] = async (orgId, keyOptions = {}) => {
    const { secret } = await service.admin.createApiKey({
      orgId,
      name: keyOptions.name ?? `test key ${newId().slice(-6)}`,
      scopes: keyOptions.scopes ?? [...SCOPES],
      clientId: keyOptions.clientId ?? null,
      allowlist: keyOptions.allowlist ?? [],
      expiresAt: keyOptions.expiresAt ?? null,
    });
    return secret;
  };

  const createOrganisation: TestService['createOrganisation'] = async ({ plan = 'team', name = 'Test Org' } = {}) => {
    const org = await service.admin.createOrganisation({ name, plan });
    const suffix = org.id.slice(-8);
    const owner = await service.admin.addMember({
      orgId: org.id,
      name: 'Olivia Owner',
      email: `owner-${suffix}@example.com`,
      role: 'owner',
      identityKey: identityKey(),
    });
    const member = await service.admin.addMember({
      orgId: org.id,
      name: 'Tom Technician',
      email: `tech-${suffix}@example.com`,
      role: 'member',
      identityKey: identityKey(),
    });
    const key = await createKey(org.id, { name: 'All scopes' });
    return {
      orgId: org.id,
      defaultClientId: org.defaultClientId,
      owner: { id: owner.id, email: owner.email, name: owner.name },
      member: { id: member.id, email: member.email, name: member.name },
      key,
    };
  };

  // Stopping fails the file when any function went beyond its table access declaration, even where the code swallowed the refusal.
  const stop = async () => {
    await service.stop();
    assertNoTableAccessDenials(service.tableAccess);
  };
  const functions = new FunctionContext(service.tableAccess);
  const asWorker: TestService['asWorker'] = (name, handler) => functions.worker(name, handler);
  return { ...service, stop, outboxDir, call, createOrganisation, createKey, asWorker };
};

/** Every item of the service's table, following all pages: for scans that look for leaked secrets. */
export const scanTable = async (service: Pick<TestService, 'deps'>) => {
  const { ScanCommand } = await import('@aws-sdk/lib-dynamodb');
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await service.deps.db.send(new ScanCommand({ TableName: service.deps.tableName, ExclusiveStartKey: start }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
};

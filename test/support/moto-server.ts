/**
 * moto_server (https://github.com/getmoto/moto), the AWS APIs emulated in one local process: the
 * AWS adapters are tested against it over HTTP, so that what the real SDK sends is parsed,
 * validated and stored by something that behaves like the service rather than by a mock that
 * accepts any parameters. It is a Python program: without it the tests are skipped with a note
 * saying how to install it, except under CI, where its absence fails them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { freePort } from '../../lambdas/local/free-port.ts';
import { killProcessGroup } from './local-process.ts';

export const MOTO_SERVER = 'moto_server';
export const MOTO_INSTALL = 'pip install "moto[server]"';

/** The only host a client in these tests may reach. */
const LOOPBACK = '127.0.0.1';
/** moto's default account. */
export const MOTO_ACCOUNT = '123456789012';
export const MOTO_REGION = 'eu-west-1';

/** The executable's path when `name` is on PATH, else undefined. */
export const onPath = (name: string, path = process.env.PATH ?? ''): string | undefined => {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
};

/**
 * Whether moto_server is on PATH. Missing, it is a reason to skip (printed, with how to install
 * it), except under CI (`CI=true`), where it throws so that the test file fails rather than
 * passing without having tested anything.
 */
export const motoAvailable = (): boolean => {
  if (onPath(MOTO_SERVER)) return true;
  const reason = `${MOTO_SERVER} is not on PATH: install it with ${MOTO_INSTALL} (moto 5.2.1 or newer) to run the AWS adapter tests against it`;
  if (process.env.CI === 'true') throw new Error(`${reason}. Under CI (CI=true) these tests may not be skipped.`);
  console.warn(`Skipping the moto_server tests: ${reason}.`);
  return false;
};

export interface MotoServer {
  /** `http://127.0.0.1:<port>` */
  endpoint: string;
  /** Stops the server and everything it started (its whole process group). */
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 60_000;

/** Refuses anything that is not http on 127.0.0.1. */
export const assertLoopback = (endpoint: string) => {
  const url = new URL(endpoint);
  if (url.hostname !== LOOPBACK || url.protocol !== 'http:') throw new Error(`not a loopback endpoint: ${endpoint}`);
};

/**
 * Starts moto_server on a free loopback port, in a process group of its own (the shim that finds
 * it may run it as a grandchild), and resolves once it answers HTTP. Another process may take the
 * port between freePort and moto binding it, so a start that fails on an address in use is tried
 * again on another port.
 */
export const startMotoServer = async (): Promise<MotoServer> => {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      return await startOn(port);
    } catch (error) {
      if (attempt >= 3 || !/address already in use/i.test(String((error as Error).message))) throw error;
    }
  }
};

const startOn = async (port: number): Promise<MotoServer> => {
  const endpoint = `http://${LOOPBACK}:${port}`;
  const child = spawn(MOTO_SERVER, ['-H', LOOPBACK, '-p', String(port)], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PYTHONUNBUFFERED: '1' },
  });
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8_000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  // A test process that ends without its afterAll must not leave the server running.
  const killOnExit = () => killGroupNow(child);
  process.once('exit', killOnExit);
  const stop = async () => {
    process.removeListener('exit', killOnExit);
    // Without a pid it never started: there is nothing to stop.
    if (child.pid) await killProcessGroup(child, 'SIGKILL');
  };
  try {
    await whenAnswering(child, endpoint, () => output);
    return { endpoint, stop };
  } catch (error) {
    await stop();
    throw error;
  }
};

const killGroupNow = (child: ChildProcess) => {
  if (child.exitCode !== null || child.signalCode !== null || !child.pid) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
};

const whenAnswering = async (child: ChildProcess, endpoint: string, output: () => string) => {
  const state: { exited?: string; failed?: Error } = {};
  child.once('exit', (code, signal) => (state.exited = `exited with ${code ?? signal}`));
  child.once('error', (error) => (state.failed = error));
  const until = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (state.failed) throw new Error(`${MOTO_SERVER} did not start (${state.failed.message}); install it with ${MOTO_INSTALL}`);
    if (state.exited) throw new Error(`${MOTO_SERVER} ${state.exited} before answering:\n${output()}`);
    try {
      const answer = await fetch(`${endpoint}/moto-api/config`, { signal: AbortSignal.timeout(2_000) });
      await answer.body?.cancel();
      return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > until) throw new Error(`${MOTO_SERVER} did not answer on ${endpoint} within ${READY_TIMEOUT_MS / 1000} s:\n${output()}`);
    await new Promise((done) => setTimeout(done, 200));
  }
};

/**
 * SDK client settings aimed at the server: its endpoint, dummy credentials, one attempt (a retry
 * would only hide what moto answered the first time).
 */
export const motoClientConfig = (endpoint: string) => {
  assertLoopback(endpoint);
  return {
    endpoint,
    region: MOTO_REGION,
    credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
    maxAttempts: 1,
  };
};

interface MiddlewareClient {
  middlewareStack: {
    add(
      middleware: (next: (args: { request: unknown }) => Promise<unknown>) => (args: { request: unknown }) => Promise<unknown>,
      options: { step: 'finalizeRequest'; name: string },
    ): void;
  };
}

/**
 * A client that refuses to send a request anywhere but 127.0.0.1, whatever endpoint a command
 * might resolve to (SQS can route by the queue URL), so a test can never reach AWS.
 */
export const loopbackOnly = <C>(client: C): C => {
  (client as unknown as MiddlewareClient).middlewareStack.add(
    (next) => async (args) => {
      const hostname = (args.request as { hostname?: string }).hostname;
      if (hostname !== LOOPBACK) throw new Error(`refused a request to ${hostname}: these tests only talk to moto_server on ${LOOPBACK}`);
      return next(args);
    },
    { step: 'finalizeRequest', name: 'loopbackOnly' },
  );
  return client;
};

/**
 * The instances moto keeps of one of its models (`GET /moto-api/data.json`, every model's
 * JSON-serialisable attributes), e.g. ('ses', 'Message') for the emails it has accepted,
 * ('sns', 'SMS') for the text messages, ('sqs', 'Message') for queued messages.
 */
export const motoModels = async <T = Record<string, unknown>>(endpoint: string, service: string, model: string): Promise<T[]> => {
  assertLoopback(endpoint);
  const answer = await fetch(`${endpoint}/moto-api/data.json`);
  if (!answer.ok) throw new Error(`moto-api/data.json answered ${answer.status}`);
  const data = (await answer.json()) as Record<string, Record<string, T[]> | undefined>;
  return data[service]?.[model] ?? [];
};

/**
 * A moto_server for the describe block that calls this, started before its tests and stopped after
 * them: `moto.endpoint` is its address, and `client` makes an SDK client aimed at it that refuses
 * to send anywhere else.
 */
export const useMotoServer = () => {
  let server: MotoServer | undefined;
  beforeAll(async () => {
    server = await startMotoServer();
  });
  afterAll(async () => {
    await server?.stop();
  });
  const moto = {
    get endpoint() {
      return server!.endpoint;
    },
  };
  const client = <C>(Client: new (config: ReturnType<typeof motoClientConfig>) => C): C => loopbackOnly(new Client(motoClientConfig(moto.endpoint)));
  return { moto, client };
};

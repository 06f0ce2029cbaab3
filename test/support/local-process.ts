import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';

/** `npm start` (bin/local.ts) running in a process of its own, as a user runs it. */
export interface LocalProcess {
  child: ChildProcess;
  baseUrl: string;
  /** The demo API key the banner printed. */
  key: string;
  output: () => string;
}

/**
 * Starts bin/local.ts over `dataDir` on a free port and resolves once its banner is printed. With
 * `asNpmStart`, runs `npm start` as a terminal would: npm, its shell, tsx and node in one process
 * group of their own (the child's id is the group's), for killProcessGroup.
 */
export const startLocalProcess = (dataDir: string, running: ChildProcess[] = [], options: { asNpmStart?: boolean } = {}) =>
  new Promise<LocalProcess>((resolve, reject) => {
    const env = { ...process.env, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'INFO' };
    const child = options.asNpmStart
      ? spawn('npm', ['start'], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
      : spawn(process.execPath, ['--import', 'tsx', 'bin/local.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    running.push(child);
    let output = '';
    const timer = setTimeout(() => reject(new Error(`no banner within 90 s:\n${output}`)), 90_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const base = /API base URL:\s+(\S+)/.exec(output);
      const key = /Demo API key:\s+(chs_live_\S+)/.exec(output);
      if (base && key && output.includes('Press Ctrl-C to stop.')) {
        clearTimeout(timer);
        resolve({ child, baseUrl: base[1].replace('localhost', '127.0.0.1'), key: key[1], output: () => output });
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => reject(new Error(`exited with ${code} before the banner:\n${output}`)));
  });

/** Sends the signal and resolves with the exit code (null when a signal ended it). */
export const stopProcess = (child: ChildProcess, signal: NodeJS.Signals = 'SIGINT') =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
    child.once('exit', (code) => resolve(code));
    child.kill(signal);
  });

/**
 * Signals every process of the child's process group (see asNpmStart) and resolves once the child
 * has exited. Once the child (the group's leader) has exited and been reaped, its id may be reused
 * by another group, so nothing is signalled.
 */
export const killProcessGroup = (child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL') =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    process.kill(-child.pid!, signal);
  });

/** Whether anything accepts connections on the loopback port. */
export const portAnswers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

/** Polls `find` until it returns something other than undefined. */
export const waitFor = async <T>(find: () => T | undefined | Promise<T | undefined>, timeoutMs = 15_000, what = 'a condition'): Promise<T> => {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const found = await find();
    if (found !== undefined) return found;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 100));
  }
};

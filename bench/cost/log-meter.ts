/**
 * The bytes a counted function writes to its log: whatever it writes on standard output or error
 * while it runs (the service's JSON log lines), and the read record lines. Deployed, a reading
 * function writes each read record as a log line (lambdas/adapters/api-read-lines.ts); locally
 * the record is handed to the recorder in memory, so the meter adds the line it would have been.
 * The service's own lines are kept out of the bench's output (errors still pass to stderr).
 */
import type { ApiReadLog } from '../../lambdas/core/api-reads.ts';
import { apiReadLine } from '../../lambdas/adapters/api-read-lines.ts';
import type { InvocationMeter } from './invocation-meter.ts';

type Write = typeof process.stdout.write;

export class LogMeter {
  bytes = 0;
  /** Log lines written: CloudWatch Logs counts each as an event. */
  lines = 0;
  private readonly restores: Array<() => void> = [];

  constructor(private readonly invocations: InvocationMeter) {}

  /** Counts what counted functions write on stdout (then dropped) and stderr (then passed on). */
  captureOutput() {
    for (const [stream, passOn] of [[process.stdout, false], [process.stderr, true]] as const) {
      const write = stream.write.bind(stream) as Write;
      stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
        if (!this.invocations.current()) return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
        this.add(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
        if (passOn) return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
        const done = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
        done?.();
        return true;
      }) as Write;
      this.restores.push(() => (stream.write = write));
    }
    return this;
  }

  /** Adds each read record's line, as the deployed reading function writes it. */
  countReadLines(reads: ApiReadLog) {
    const record = reads.record.bind(reads);
    reads.record = (read) => {
      if (this.invocations.current()) this.add(`${apiReadLine(read)}\n`);
      return record(read);
    };
    return this;
  }

  /** Each line is one log event; its newline is not part of it. */
  private add(text: string) {
    for (const line of text.split('\n').filter(Boolean)) {
      this.bytes += Buffer.byteLength(line, 'utf8');
      this.lines += 1;
    }
  }

  reset() {
    this.bytes = 0;
    this.lines = 0;
  }

  stop() {
    for (const restore of this.restores.splice(0)) restore();
  }
}

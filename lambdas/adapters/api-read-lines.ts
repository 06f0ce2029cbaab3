import type { ApiRead, ApiReadLog } from '#core/api-reads.ts';

/**
 * Read records as log lines (deployed): the reading function writes each record as one JSON line
 * on its standard output, which Lambda ships to the function's log group; a subscription filter on
 * that group hands the lines to the recorder (workers/api-read-recorder.ts), which stores them in
 * the table. The read path thus costs no table call for its record, and the record cannot be
 * lost once the answer leaves: the line is in the log group whatever happens next, kept for the
 * group's retention even if the recorder failed, and the recorder's failed batches go to a queue.
 * The recorder reads the lines back with api-read-line-parser.ts (kept apart: the reading functions
 * need no validator in their bundles).
 */

/** The field the subscription filter matches (`{ $.kind = "api_read" }`), and the recorder checks. */
export const API_READ_LINE_KIND = 'api_read';

/**
 * One record's line, without the newline. Lambda files a JSON line by its `level` (INFO when it has
 * none) and drops the lines below the function's application log level: the stack keeps the
 * reading functions at INFO (lib/api-read-records.ts), so a record is never filtered out.
 */
export const apiReadLine = (read: ApiRead) => JSON.stringify({ level: 'INFO', kind: API_READ_LINE_KIND, apiRead: read });

/**
 * Writes each record as a line on standard output. Node writes to a pipe (how Lambda collects a
 * function's output) synchronously on Linux, so the line is out of the function before its answer
 * is; a failed write throws, and the read then fails rather than being served without a trace.
 */
export class LogLineApiReadLog implements ApiReadLog {
  constructor(private readonly write: (text: string) => void = (text) => void process.stdout.write(text)) {}

  async record(read: ApiRead): Promise<void> {
    this.write(`${apiReadLine(read)}\n`);
  }
}

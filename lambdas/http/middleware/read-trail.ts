import type { Logger } from '@aws-lambda-powertools/logger';
import { apiReadOf, RECORDED_REFUSALS, type ApiReadLog, type ReadOutcome, type ReadRecords } from '#core/api-reads.ts';
import type { Clock } from '#core/clock.ts';
import { ApiError } from '#core/errors.ts';
import { isId } from '#core/ids.ts';
import type { ApiEvent, ApiMiddleware, ApiRequest } from '../types.ts';

/** A read endpoint's part in the trace its calls leave. */
export interface ReadTrace {
  /** What the call names in its path (`/v1/requests/{id}`): the record of a refused call says what it asked for. */
  named?(event: ApiEvent): ReadRecords;
}

/** The record a path's `{id}` names, for the trace of a refused read; nothing when it cannot be an id. */
export const namedById =
  (list: 'requests' | 'shares') =>
  (event: ApiEvent): ReadRecords => {
    const id = event.pathParameters?.id;
    return isId(id) ? { [list]: [id] } : {};
  };

export interface ReadTrailDeps {
  apiReads: ApiReadLog;
  clock: Clock;
  logger: Pick<Logger, 'warn'>;
}

/**
 * Leaves a read record (core/api-reads.ts) for each call of a read endpoint that an accepted key
 * made and the rate limiter admitted; none for an endpoint without a ReadTrace.
 *
 * The endpoint names what it read with `noteRead`. The record is handed to the read log, which
 * deployed writes it as a log line the recorder stores (adapters/api-read-lines.ts), and locally
 * stores it after the answer (local/pending-api-reads.ts): no table call on the read path. The
 * answer leaves only once the record is handed over; when it cannot be, the read fails (500,
 * respond.ts), so no read is served without a trace. A call that fails after naming what it read
 * keeps that record (the records were read). A success that named nothing still leaves a record of
 * its route. A refusal (403, 404) is recorded on its way out with what the path named, and stands
 * whether or not that record could be handed over. A 401 (no key to name), a 429 (the limiter
 * protects the service; a flood of refusals must not become a flood of records) and a 422 (a
 * malformed query names nothing) leave none.
 */
export const readTrail = (deps: ReadTrailDeps, trace: ReadTrace | undefined): ApiMiddleware[] => {
  if (!trace) return [];
  const write = (request: ApiRequest, status: ReadOutcome, records: ReadRecords) =>
    deps.apiReads.record(apiReadOf(request.internal.caller!, { route: request.event.routeKey, status, records }, deps.clock.now()));
  return [
    {
      before: (request) => {
        request.internal.noteRead = (records) => {
          request.internal.readWritten ??= write(request, 200, records);
          return request.internal.readWritten;
        };
      },
      after: async (request) => {
        await (request.internal.readWritten ?? write(request, 200, {}));
      },
      onError: async (request) => {
        const { error, internal } = request;
        if (internal.readWritten) {
          await internal.readWritten.catch(() => undefined);
          return;
        }
        if (!internal.caller || !(error instanceof ApiError) || !RECORDED_REFUSALS.has(error.status)) return;
        await write(request, error.status as ReadOutcome, trace.named?.(request.event) ?? {}).catch((failure: unknown) =>
          deps.logger.warn('the read record of a refused call was not written', { errorName: (failure as Error)?.name }),
        );
      },
    },
  ];
};

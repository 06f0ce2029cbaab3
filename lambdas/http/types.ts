import type { MiddlewareObj, MiddyfiedHandler, Request } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { ReadRecords } from '#core/api-reads.ts';
import type { Caller } from '#core/caller.ts';
import type { Claim } from '#store/idempotent-commit.ts';
import type { RateCount } from '#store/rate-limiter.ts';

export type ApiEvent = APIGatewayProxyEventV2;
export type ApiResult = APIGatewayProxyStructuredResultV2 & { statusCode: number; headers?: Record<string, string> };

/** Per-call state the middlewares share: who called, the rate-limit headers, the parsed body. */
export type ApiState = {
  caller?: Caller;
  /** Started by authentication, judged by the rate-limit middleware. */
  rateCount?: RateCount;
  rateHeaders?: Record<string, string>;
  body?: unknown;
  /** The query as the endpoint parsed it. */
  query?: unknown;
  /** Set once this call has claimed its Idempotency-Key: the key's record, and the token that says it is still this call's. */
  idempotencyClaim?: Claim;
  /** Hands the answer to the idempotency layer before the change commits, to be stored with it. */
  prepareReplay?: (response: ApiResult) => void;
  /** A read endpoint names what it read; its read record is handed to the read log then (middleware/read-trail.ts). */
  noteRead?: (records: ReadRecords) => Promise<void>;
  /** That hand-over, awaited before the answer leaves. */
  readWritten?: Promise<void>;
  [other: string]: unknown;
};

export type ApiRequest = Request<ApiEvent, ApiResult, Error, Context, ApiState>;
export type ApiLambda = MiddyfiedHandler<ApiEvent, ApiResult, Error, Context, ApiState>;

export type ApiMiddleware = MiddlewareObj<ApiEvent, ApiResult, Error, Context, ApiState>;

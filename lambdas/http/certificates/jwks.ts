import type { Context } from 'aws-lambda';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { signerOf } from '../../certificate-signing.ts';
import { queryRefusal } from '../query-rule.ts';
import { errorResponse, TRANSPORT_HEADERS } from '../responses.ts';
import type { ApiEvent, ApiResult } from '../types.ts';

/**
 * GET /.well-known/jwks.json: every certificate signing key ever used (RFC 7517), the current one
 * first, retired ones marked `retired_at` and kept, so a certificate verifies for years. Public and
 * cacheable for a few minutes: a rotation shows within that time. It defines no query parameter,
 * so any answers 422 as on every operation (query-rule.ts).
 */
export const createHandler = (deps: Pick<AppDeps, 'signingCustody' | 'db' | 'tableName' | 'clock' | 'logger'>) => async (event: ApiEvent, _context?: Context): Promise<ApiResult> => {
  const refused = queryRefusal(event);
  if (refused) return refused;
  try {
    const jwks = await signerOf(deps).jwks();
    return {
      statusCode: 200,
      headers: { ...TRANSPORT_HEADERS, 'Content-Type': 'application/jwk-set+json', 'Cache-Control': 'public, max-age=300', 'Access-Control-Allow-Origin': '*' },
      body: JSON.stringify(jwks),
    };
  } catch (error) {
    deps.logger.error('signing keys could not be read', { errorName: (error as Error)?.name });
    return errorResponse(error);
  }
};

let built: ReturnType<typeof createHandler> | undefined;
export const handler = (event: ApiEvent, context: Context) => (built ??= createHandler(wiring()))(event, context);

import { canSeeClient, type Caller } from '../caller.ts';
import { notFound } from '../errors.ts';
import type { HandoffRequest } from '../model.ts';
import type { RequestRepository } from '../ports.ts';

/** The request if it exists within the caller's organisation and client scope; 404 otherwise. */
export const findVisibleRequest = async (
  requests: Pick<RequestRepository, 'get'>,
  caller: Caller,
  requestId: string,
): Promise<HandoffRequest> => visibleOrNotFound(await requests.get(requestId), caller);

/** The same check over a request already read. */
export const visibleOrNotFound = (request: HandoffRequest | null, caller: Caller): HandoffRequest => {
  if (!request || request.orgId !== caller.org.id || !canSeeClient(caller, request.client.id)) {
    throw notFound('No request with this id.');
  }
  return request;
};

import type { ApiKey, Organisation } from './model.ts';

/** The authenticated caller of an API operation: the key and the organisation it belongs to. */
export interface Caller {
  org: Organisation;
  apiKey: ApiKey;
  /** The caller's network address as the gateway saw it. */
  sourceIp: string;
}

export const apiActor = (caller: Caller) => ({ type: 'api' as const, label: caller.apiKey.name, id: caller.apiKey.id });

/** A record of another client is invisible to a client-scoped key. */
export const canSeeClient = (caller: Caller, clientId: string) =>
  caller.apiKey.clientId === null || caller.apiKey.clientId === clientId;

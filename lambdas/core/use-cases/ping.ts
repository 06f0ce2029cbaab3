import type { Caller } from '../caller.ts';
import type { Directory } from '../ports.ts';

/** GET /ping: who the key belongs to and what it may do. */
export const ping = async (directory: Directory, caller: Caller) => {
  const { org, apiKey } = caller;
  const client = apiKey.clientId ? await directory.getClient(org.id, apiKey.clientId) : null;
  return {
    ok: true as const,
    organisation: { id: org.id, name: org.name },
    key: {
      name: apiKey.name,
      prefix: apiKey.prefix,
      scopes: apiKey.scopes,
      client: client ? { id: client.id, name: client.name } : null,
      expires_at: apiKey.expiresAt,
    },
    label: `${org.name} · ${apiKey.name}${client ? ` (${client.name})` : ''}`,
  };
};

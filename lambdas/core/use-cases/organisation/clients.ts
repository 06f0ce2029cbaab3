import { notFound } from '../../errors.ts';
import { isId, newId } from '../../ids.ts';
import type { Client } from '../../model.ts';
import { parseOrThrow } from '../../validation.ts';
import { changeAudit, nameInput, requireOrganisation, type Acting, type OrganisationDeps } from './acting.ts';

/**
 * Clients: the customers an organisation hands credentials over for (a request, an API key or a
 * preset may belong to one). Created and renamed, never deleted: requests and audit entries keep
 * naming them.
 */
/** `prepared` is given the client just before it is stored (a caller's Idempotency-Key keeps its answer in that transaction). */
export const createClient = async (deps: OrganisationDeps, acting: Acting, orgId: string, rawInput: unknown, prepared?: (client: Client) => void) => {
  await requireOrganisation(deps, orgId);
  const { name } = parseOrThrow(nameInput, rawInput ?? {});
  const client: Client = { id: newId(), orgId, name, createdAt: deps.clock.now().toISOString() };
  prepared?.(client);
  await deps.changes.putClient(client, changeAudit(orgId, acting, 'client.created', { details: { client_id: client.id, name } }));
  return client;
};

/** {name}; the same name again changes nothing. */
export const renameClient = async (deps: OrganisationDeps, acting: Acting, orgId: string, clientId: string, rawInput: unknown) => {
  await requireOrganisation(deps, orgId);
  const { name } = parseOrThrow(nameInput, rawInput ?? {});
  const client = isId(clientId) ? await deps.directory.getClient(orgId, clientId) : null;
  if (!client) throw notFound('No client with this id.');
  if (client.name === name) return client;
  const audit = changeAudit(orgId, acting, 'client.renamed', { details: { client_id: client.id, name, previous_name: client.name } });
  await deps.changes.renameClient(client, name, audit);
  return { ...client, name };
};

import * as z from 'zod/mini';
import { HELPDESK_NAMES, HELPDESKS } from '../../helpdesk-connection.ts';
import { managerActor, requireManager, type MemberCaller } from '../../member-access.ts';
import { parseOrThrow } from '../../validation.ts';
import { checkHelpdeskTicket, connectHelpdesk, type HelpdeskCheckDeps, type HelpdeskConnectDeps } from './connect-helpdesk.ts';

/**
 * The integration page's helpdesk connection (owners and admins, as every integration setting):
 * connect with the helpdesk's credentials (sealed, never shown again), read one ticket to test it,
 * disconnect. The same use cases as the operator's set-integration --adapter and check-integration.
 */
const ACTION = 'manage integrations';

const text = (max: number) => z.string('Must be a string.').check(z.maxLength(max, `At most ${max} characters.`));

const statusIds = z.optional(z.array(z.number('Must be a number.'), 'Must be a list of status ids.').check(z.maxLength(20, 'At most 20 ids.')));

const connectBody = z.strictObject({
  adapter: text(40),
  helpdesk_url: z.optional(text(2000)),
  client_id: z.optional(text(2000)),
  client_secret: z.optional(text(2000)),
  email: z.optional(text(2000)),
  api_token: z.optional(text(2000)),
  username: z.optional(text(2000)),
  password: z.optional(text(2000)),
  company_id: z.optional(text(2000)),
  public_key: z.optional(text(2000)),
  private_key: z.optional(text(2000)),
  integration_code: z.optional(text(2000)),
  closed_status_names: z.optional(z.array(text(100), 'Must be a list of status names.').check(z.maxLength(20, 'At most 20 names.'))),
  resolved_status_ids: statusIds,
  closed_status_ids: statusIds,
  tenant: z.nullish(text(100)),
});

/**
 * POST /app/api/integrations/{id}/helpdesk: connects (or, with adapter `none`, disconnects) its helpdesk; answers the integration.
 * `prepared` is given that answer just before the change is stored (a caller's Idempotency-Key keeps it in that transaction).
 */
export const memberConnectHelpdesk = async (
  deps: HelpdeskConnectDeps,
  caller: MemberCaller,
  integrationId: string,
  rawBody: unknown,
  prepared?: Parameters<typeof connectHelpdesk>[5],
) => {
  const actor = managerActor(caller, ACTION);
  const body = parseOrThrow(connectBody, rawBody ?? {});
  return connectHelpdesk(deps, actor, caller.org.id, integrationId, {
    adapter: body.adapter,
    url: body.helpdesk_url,
    credentials: {
      client_id: body.client_id,
      client_secret: body.client_secret,
      email: body.email,
      api_token: body.api_token,
      username: body.username,
      password: body.password,
      company_id: body.company_id,
      public_key: body.public_key,
      private_key: body.private_key,
      integration_code: body.integration_code,
    },
    closedStatusNames: body.closed_status_names,
    resolvedStatusIds: body.resolved_status_ids,
    closedStatusIds: body.closed_status_ids,
    tenant: body.tenant ?? null,
  }, prepared);
};

const checkBody = z.strictObject({ ticket: text(120) });

/** POST /app/api/integrations/{id}/helpdesk/check: reads one ticket (changes nothing) and says what it maps to, or why the read failed. */
export const memberCheckHelpdesk = async (deps: HelpdeskCheckDeps, caller: MemberCaller, integrationId: string, rawBody: unknown) => {
  requireManager(caller, ACTION);
  const body = parseOrThrow(checkBody, rawBody ?? {});
  return checkHelpdeskTicket(deps, caller.org.id, integrationId, body.ticket);
};

/** What the connection form offers: each helpdesk with the credential fields and settings it takes. */
export const helpdeskChoices = () =>
  HELPDESK_NAMES.map((name) => ({ name, label: HELPDESKS[name].label, example: HELPDESKS[name].example, credentials: HELPDESKS[name].credentials, settings: HELPDESKS[name].settings }));

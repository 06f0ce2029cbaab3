import { notFound } from '#core/errors.ts';
import { OPERATOR_ACTOR } from '#core/model.ts';
import { endRequest, revocation } from '#core/use-cases/end-request.ts';
import { refreshRecipientHealth } from '#core/use-cases/recipient-health.ts';
import { relinkRequest } from '#core/use-cases/relink-request.ts';
import type { AdminStore } from '#store/admin-store.ts';
import { DynamoRequests } from '#store/requests.ts';
import { text, UsageError, type Command, type Flags } from './commands.ts';
import { optionalText } from './flags.ts';
import { codeKeyFor } from './secret-keys.ts';
import { EXAMPLE } from './example-values.ts';
import type { CommandContext } from './target.ts';


/**
 * The requests as the operator changes them: every organisation's, audited as the operator. The
 * request views in the audit entries carry the web application's address, so a deployed table
 * needs --app-url. Expiry schedules are not armed from here: the sweep expires a relinked
 * request whose new link runs out, as it does any request whose schedule is missing.
 */
const requestDepsFor = (admin: AdminStore, flags: Flags, context: CommandContext) => {
  const appUrl = (optionalText(flags, 'app-url') ?? context.appUrl)?.replace(/\/+$/, '');
  if (!appUrl) throw new UsageError('--app-url URL (the web application address the stack was deployed with) is required for a deployed table');
  return {
    requests: new DynamoRequests(context.db, context.tableName, context.audit),
    directory: admin.directory,
    clock: context.clock,
    urls: { appUrl, baseUrl: `${appUrl}/v1` },
  };
};

const operatorParty = async (admin: AdminStore, deps: ReturnType<typeof requestDepsFor>, requestId: string) => {
  const request = await deps.requests.get(requestId);
  if (!request) throw notFound('No request with this id.');
  const org = await admin.directory.getOrganisation(request.orgId);
  if (!org) throw notFound('No request with this id.');
  return {
    orgId: request.orgId,
    actor: OPERATOR_ACTOR,
    policy: org.policy,
    rotationSignal: org.policy.rotationSignal,
    load: async (id: string) => (await deps.requests.get(id)) ?? Promise.reject(notFound('No request with this id.')),
  };
};

/**
 * After the operator replaces a member's key or disables them: the live requests they receive
 * are marked as the member application marks them (needs_relink, unrecoverable).
 */
export const recipientRefresher = (admin: AdminStore, flags: Flags, context: CommandContext) => {
  // Built before the member changes, so a missing --app-url is refused before anything is written.
  const deps = requestDepsFor(admin, flags, context);
  return (orgId: string, memberId: string) => refreshRecipientHealth(deps, orgId, memberId, OPERATOR_ACTOR);
};

export const REQUEST_COMMANDS: Record<string, Command> = {
  'revoke-request': {
    summary: "revoke a pending or opened request: its link stops working at once",
    usage: '--request REQUEST_ID [--app-url URL]',
    examples: [`--request ${EXAMPLE.request}`, `--request ${EXAMPLE.request} --app-url ${EXAMPLE.appUrl} --table ${EXAMPLE.table} --region ${EXAMPLE.region}`],
    run: async (admin, f, context) => {
      const deps = requestDepsFor(admin, f, context);
      const requestId = text(f, 'request');
      return endRequest(deps, await operatorParty(admin, deps, requestId), requestId, revocation('revoked_by_operator'));
    },
  },
  'relink-request': {
    summary: 'give a pending, opened, locked, revoked or unused expired request a new link and code (printed once; the old ones stop working)',
    usage: '--request REQUEST_ID [--app-url URL] [--code-key KEY_ARN]',
    examples: [
      `--request ${EXAMPLE.request}`,
      `--request ${EXAMPLE.request} --app-url ${EXAMPLE.appUrl} --code-key ${EXAMPLE.codeKeyArn} --table ${EXAMPLE.table} --region ${EXAMPLE.region}`,
    ],
    run: async (admin, f, context) => {
      const deps = { ...requestDepsFor(admin, f, context), codeKey: await codeKeyFor(f, context) };
      const requestId = text(f, 'request');
      const result = await relinkRequest(deps, await operatorParty(admin, deps, requestId), requestId);
      return { ...result, note: 'Shown once: send the link to the subject, and the code another way.' };
    },
  },
};

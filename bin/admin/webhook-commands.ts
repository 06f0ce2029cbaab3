import { toWebhookView } from '#core/webhooks.ts';
import { WebhookHttp } from '#adapters/webhook-http.ts';
import { DeliveryStore } from '#store/deliveries.ts';
import { DynamoWebhooks } from '#store/webhooks.ts';
import { REFAN_MAX_ENTRIES, refanDeps, refanEvents } from '#workers/refan.ts';
import { sweepDrivenQueue } from '#workers/delivery-sweep.ts';
import { OPERATOR_ACTOR } from '#core/model.ts';
import { deliverOne } from '#workers/deliver.ts';
import {
  DEFAULT_OVERLAP_HOURS,
  MAX_OVERLAP_HOURS,
  pingWebhook,
  redeliverEvent,
  rotateWebhookSecret,
  type AttemptResult,
  type WebhookActionDeps,
} from '#workers/webhook-actions.ts';
import { text as required, UsageError, type Command, type Flags } from './commands.ts';
import { sealerFor } from './secret-keys.ts';
import type { CommandContext } from './target.ts';
import { EXAMPLE } from './example-values.ts';

const overlapHours = (flags: Flags) => {
  const value = flags['overlap-hours'];
  if (value === undefined) return DEFAULT_OVERLAP_HOURS;
  if (typeof value !== 'string' || !/^[0-9]{1,4}$/.test(value) || Number(value) > MAX_OVERLAP_HOURS) {
    throw new UsageError(`--overlap-hours must be a whole number of hours from 0 to ${MAX_OVERLAP_HOURS}`);
  }
  return Number(value);
};

/** deliverOne's log lines: the printed result already says what happened, so only trouble goes to stderr. */
const logger = {
  info: () => undefined,
  warn: (message: unknown, ..._extra: unknown[]) => void process.stderr.write(`${String(message)}\n`),
  error: (message: unknown, ..._extra: unknown[]) => void process.stderr.write(`${String(message)}\n`),
};

/** The fan-out's log lines: a record that failed goes to stderr (with its refan-evt_<seq> id); the rest is in the printed result. */
const fanOutLogger = {
  info: () => undefined,
  debug: () => undefined,
  error: (message: unknown, ...extra: unknown[]) => void process.stderr.write(`${String(message)}${extra.length ? ` ${JSON.stringify(extra[0])}` : ''}\n`),
};

/**
 * The actions' dependencies, with the delivery worker's own for the first attempt the CLI makes
 * itself; the sealer opens (and, rotating, seals) signing secrets.
 */
const actionDeps = async (flags: Flags, context: CommandContext): Promise<WebhookActionDeps> => {
  const sealer = await sealerFor(flags, context);
  const deliveries = new DeliveryStore(context.db, context.tableName, context.audit);
  const deliverDeps = {
    clock: context.clock,
    logger,
    deliveries,
    // After a failed first attempt the delivery stays pending with its next attempt time: the
    // delivery sweep re-drives it once that is past due.
    queue: sweepDrivenQueue,
    // Loopback receivers only on the local table, as under `npm start`; never for a deployed one.
    http: new WebhookHttp({ allowLoopback: context.local }),
    sealer,
  };
  return {
    clock: context.clock,
    deliveries,
    webhooks: new DynamoWebhooks(context.db, context.tableName, context.audit),
    sealer,
    attemptNow: (deliveryId) => deliverOne(deliverDeps, deliveryId),
  };
};

/** Deployed, the signing secrets are sealed with the stack's sealing key. */
const KMS_KEY_USAGE = '[--kms-key KEY_ARN (deployed: the stack output SealingKeyArn)]';

const withRetryNote = (result: AttemptResult) =>
  result.outcome === 'retry'
    ? { ...result, note: `The first attempt failed; the delivery sweep retries it from ${result.next_attempt_at} (deployed, or while npm start runs).` }
    : result;

export const WEBHOOK_COMMANDS: Record<string, Command> = {
  'webhook-ping': {
    summary: 'send a test ping event to one webhook now (an event in GET /events)',
    usage: `--org ORG_ID --webhook WEBHOOK_ID ${KMS_KEY_USAGE}`,
    examples: [`--org ${EXAMPLE.org} --webhook ${EXAMPLE.webhook}`],
    run: async (_admin, f, context) => withRetryNote(await pingWebhook(await actionDeps(f, context), OPERATOR_ACTOR, required(f, 'org'), required(f, 'webhook'))),
  },
  'redeliver-event': {
    summary: 'deliver an event to one webhook again (new webhook-id, same event id)',
    usage: `--org ORG_ID --event EVENT_ID --webhook WEBHOOK_ID ${KMS_KEY_USAGE}`,
    examples: [`--org ${EXAMPLE.org} --event evt_42 --webhook ${EXAMPLE.webhook}`],
    run: async (_admin, f, context) =>
      withRetryNote(await redeliverEvent(await actionDeps(f, context), OPERATOR_ACTOR, required(f, 'org'), required(f, 'event'), required(f, 'webhook'))),
  },
  'refan-events': {
    summary: `create the missing webhook deliveries of a range of events again (after the fan-out DLQ alarm); at most ${REFAN_MAX_ENTRIES} entries a run`,
    usage: '--org ORG_ID --from EVENT_ID [--to EVENT_ID (default: the latest)]',
    examples: [`--org ${EXAMPLE.org} --from evt_1200 --to evt_1450`],
    run: async (_admin, f, context) =>
      refanEvents(refanDeps(context, fanOutLogger), {
        orgId: required(f, 'org'),
        from: required(f, 'from'),
        to: f.to === undefined ? undefined : required(f, 'to'),
      }),
  },
  'rotate-webhook-secret': {
    summary: "replace a webhook's signing secret (printed once); the old one is still sent for the overlap",
    usage: `--org ORG_ID --webhook WEBHOOK_ID [--overlap-hours N (default ${DEFAULT_OVERLAP_HOURS}; 0 drops the old secret at once)] ${KMS_KEY_USAGE}`,
    examples: [`--org ${EXAMPLE.org} --webhook ${EXAMPLE.webhook} --overlap-hours 24`],
    run: async (_admin, f, context) => {
      const hours = overlapHours(f);
      const rotated = await rotateWebhookSecret(await actionDeps(f, context), OPERATOR_ACTOR, required(f, 'org'), required(f, 'webhook'), hours);
      return {
        secret: rotated.secret,
        note: 'Shown once: store it now.',
        old_secret_expires_at: rotated.oldSecretExpiresAt,
        ...toWebhookView(rotated.subscription),
      };
    },
  },
};

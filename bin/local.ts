/**
 * `npm start`: the whole service on this machine. DynamoDB Local keeps its data under .data/, the
 * demo organisation is seeded on the first run, and the banner says where everything is: the
 * application, who to sign in as, where their sign-in email lands, the demo API key and the demo
 * integration's URLs, and the file that sets the docs' shell examples' variables.
 */
import { join } from 'node:path';
import { JavaMissingError } from '#local/dynamodb-local.ts';
import { DEMO_KEY_FILE } from '#local/demo-seed.ts';
import { DEMO_INTEGRATION_FILE, DEMO_INTEGRATION_NAME } from '#local/demo-integration.ts';
import { writeDemoShellVariables } from '#local/demo-shell-variables.ts';
import { startDemoService } from '#local/demo-service.ts';
import { OUTBOX_PAGE_PATH } from '#local/outbox-page.ts';
import { ENGINE_FOLDER } from '#local/engine-record.ts';
import { EngineInUseError, stopOwnEngine } from '#local/leftover-engine.ts';
import type { LocalService } from '#local/local-service.ts';
import { stopOrphanedDynamo } from '#local/orphaned-dynamo.ts';
import { removeRuntimeFile, writeRuntimeFile } from '#local/runtime-file.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const dataDir = process.env.DATA_DIR ?? join(process.cwd(), '.data');
const port = Number(process.env.PORT ?? 3000);
process.env.LOG_LEVEL ??= 'WARN';

/**
 * Webhooks to receivers on this machine, for trying them out: allowed while the service listens on
 * loopback only (the default). Listening on a network address, anyone with a key could make this
 * machine POST to its own services, so then only ALLOW_LOOPBACK_WEBHOOKS=1 allows them.
 */
const listensOnLoopback = () => ['127.0.0.1', '::1', 'localhost'].includes(process.env.HOST ?? '127.0.0.1');
const loopbackWebhooksAllowed = () => {
  if (process.env.ALLOW_LOOPBACK_WEBHOOKS !== undefined) return process.env.ALLOW_LOOPBACK_WEBHOOKS === '1';
  return listensOnLoopback();
};

const engineFolder = join(dataDir, ENGINE_FOLDER);

const main = async () => {
  let service: LocalService | undefined;
  let stopping = false;
  // In place before anything starts: DynamoDB Local runs in a process group of its own, so Ctrl-C
  // in the terminal (or closing it) reaches only this process, which has to stop the engine.
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    // A closed terminal (SIGHUP) has nowhere left to print to.
    if (signal !== 'SIGHUP') process.stdout.write('\nStopping the API and DynamoDB Local...\n');
    if (service) {
      removeRuntimeFile(dataDir);
      await service.stop();
    } else {
      await stopOwnEngine(engineFolder);
    }
    process.exit(0);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, stop);

  const orphan = await stopOrphanedDynamo(dataDir);
  if (orphan) process.stdout.write(`Stopped the DynamoDB Local (process ${orphan}) left running by a service that was killed.\n`);
  const started = await startDemoService({
    dataDir,
    port,
    host: process.env.HOST,
    allowLoopbackWebhooks: loopbackWebhooksAllowed(),
    // The mailbox page shows sign-in links: only to this machine.
    outboxPage: listensOnLoopback(),
    // Each function may do with the table only what its deployed IAM policy allows (lambdas/access/table-access.ts).
    tableAccess: { enforce: true },
  });
  service = started.service;
  const { demo, key, integration } = started;
  // Lets `npm run admin` reach this DynamoDB Local while the service runs (no secret in it), and
  // the next start stop that DynamoDB Local should this process be killed outright.
  writeRuntimeFile(dataDir, { dynamoEndpoint: service.dynamoEndpoint, tableName: service.deps.tableName, baseUrl: service.baseUrl, pid: process.pid, dynamoPid: service.dynamoPid });
  const { secret, issued } = key;
  const outbox = join(dataDir, 'outbox');
  const appUrl = `${service.appUrl}/app`;
  const shellFile = writeDemoShellVariables(dataDir, {
    APP: service.appUrl,
    BASE: service.baseUrl,
    KEY: secret,
    ORG: demo.orgId,
    CLIENT: demo.clientId,
    INTEGRATION: integration.id,
    ...(integration.state === 'rotated_elsewhere' ? {} : { WEBHOOK_URL: integration.webhookUrl, TRIGGER_URL: integration.triggerUrl }),
  });

  process.stdout.write(
    [
      '',
      'Credential Handoff Service is running locally.',
      `  Application:   ${appUrl}  (open it in a browser; the README's "Your first handoff" starts here)`,
      `  Sign in as:    ${demo.memberEmail} (Tom Technician, a member) or ${demo.ownerEmail} (Olivia Owner, the owner)`,
      listensOnLoopback()
        ? `  Sign-in email: ${service.appUrl}${OUTBOX_PAGE_PATH}  (the local mailbox; the files are in ${outbox})`
        : `  Sign-in email: written to ${outbox} (one JSON file per message)`,
      `  Organisation:  Demo MSP, ${demo.orgId}`,
      `  API base URL:  ${service.baseUrl}`,
      `  Demo API key:  ${secret}`,
      `                 (all scopes; ${issued ? 'issued now' : 'the same as last time'}, kept in ${join(dataDir, DEMO_KEY_FILE)} until revoked)`,
      ...(integration.state === 'rotated_elsewhere'
        ? [
            `  Trigger and webhook URLs: rotated in the application or with the CLI since the last start; the ones shown then`,
            `                 work (the service keeps only their hashes). Delete ${join(dataDir, DEMO_INTEGRATION_FILE)} to have the next start make new ones.`,
          ]
        : [
            `  Trigger URL:   ${integration.triggerUrl}`,
            `  Webhook URL:   ${integration.webhookUrl}`,
            `                 (the integration "${DEMO_INTEGRATION_NAME}"; ${integration.state === 'made' ? 'made now' : 'the same as last time'}, kept in ${join(dataDir, DEMO_INTEGRATION_FILE)} until rotated)`,
          ]),
      `  Shell:         . ${shellFile}  (sets APP, BASE, KEY, ORG, CLIENT, INTEGRATION${integration.state === 'rotated_elsewhere' ? '' : ', WEBHOOK_URL and TRIGGER_URL'} for the docs' shell examples)`,
      '',
      'Try the API:',
      `  curl -s -H "Authorization: Bearer ${secret}" ${service.baseUrl}/ping`,
      `  curl -s -H "Authorization: Bearer ${secret}" -H "Content-Type: application/json" \\`,
      `    -d '{"subject_name":"Jane Doe","preset":"${demo.presetSlug}"}' ${service.baseUrl}/requests`,
      '',
      'Press Ctrl-C to stop.',
      '',
    ].join('\n'),
  );
};

main().catch(async (error) => {
  if (error instanceof JavaMissingError || error instanceof EngineInUseError) {
    process.stderr.write(`${error.message}\n`);
  } else if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
    process.stderr.write(`Port ${port} is in use: stop what uses it or start with PORT=<another port> npm start.\n`);
  } else {
    process.stderr.write(`The local service could not start: ${(error as Error).stack ?? error}\n`);
  }
  // An engine started before the failure (the API port taken, say) would outlive this process.
  await stopOwnEngine(engineFolder).catch(() => undefined);
  process.exit(1);
});

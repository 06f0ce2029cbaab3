/**
 * `npm start`: the whole service on this machine. DynamoDB Local keeps its data under .data/,
 * the demo organisation is seeded on the first run, and a fresh demo API key is printed.
 */
import { join } from 'node:path';
import { JavaMissingError } from '#local/dynamodb-local.ts';
import { ensureDemoOrganisation, issueDemoKey } from '#local/demo-seed.ts';
import { startLocalService } from '#local/local-service.ts';
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
const loopbackWebhooksAllowed = () => {
  if (process.env.ALLOW_LOOPBACK_WEBHOOKS !== undefined) return process.env.ALLOW_LOOPBACK_WEBHOOKS === '1';
  const host = process.env.HOST ?? '127.0.0.1';
  return host === '127.0.0.1' || host === '::1' || host === 'localhost';
};

const main = async () => {
  const orphan = await stopOrphanedDynamo(dataDir);
  if (orphan) process.stdout.write(`Stopped the DynamoDB Local (process ${orphan}) left running by a service that was killed.\n`);
  const service = await startLocalService({ dataDir, port, host: process.env.HOST, allowLoopbackWebhooks: loopbackWebhooksAllowed() });
  // Lets `npm run admin` reach this DynamoDB Local while the service runs (no secret in it), and
  // the next start stop that DynamoDB Local should this process be killed outright.
  writeRuntimeFile(dataDir, { dynamoEndpoint: service.dynamoEndpoint, tableName: service.deps.tableName, baseUrl: service.baseUrl, pid: process.pid, dynamoPid: service.dynamoPid });
  const demo = await ensureDemoOrganisation(service.deps.db, service.deps.tableName, service.admin, join(dataDir, 'keys'));
  const { secret } = await issueDemoKey(service.admin, demo.orgId);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    process.stdout.write('\nStopping the API and DynamoDB Local...\n');
    removeRuntimeFile(dataDir);
    await service.stop();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);

  process.stdout.write(
    [
      '',
      'Credential Handoff Service is running locally.',
      `  API base URL:  ${service.baseUrl}`,
      `  Demo API key:  ${secret}`,
      '                 (all scopes, organisation "Demo MSP"; a new key is issued at every start)',
      `  Recipients:    ${demo.ownerEmail}, ${demo.memberEmail} (private keys in ${join(dataDir, 'keys')})`,
      `  Outbox:        ${join(dataDir, 'outbox')} (email and SMS the service sends)`,
      '',
      'Try it:',
      `  curl -s -H "Authorization: Bearer ${secret}" ${service.baseUrl}/ping`,
      `  curl -s -H "Authorization: Bearer ${secret}" -H "Content-Type: application/json" \\`,
      `    -d '{"subject_name":"Jane Doe","preset":"${demo.presetSlug}"}' ${service.baseUrl}/requests`,
      '',
      'Press Ctrl-C to stop.',
      '',
    ].join('\n'),
  );
};

main().catch((error) => {
  if (error instanceof JavaMissingError) {
    process.stderr.write(`${error.message}\n`);
  } else if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
    process.stderr.write(`Port ${port} is in use: stop what uses it or start with PORT=<another port> npm start.\n`);
  } else {
    process.stderr.write(`The local service could not start: ${(error as Error).stack ?? error}\n`);
  }
  process.exit(1);
});

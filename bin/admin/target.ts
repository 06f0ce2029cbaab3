import { join } from 'node:path';
import { systemClock, type Clock } from '#core/clock.ts';
import { AdminStore } from '#store/admin-store.ts';
import { AuditLog } from '#store/audit-log.ts';
import { createDocumentClient, type Documents } from '#store/dynamo.ts';
import { startDynamoLocal } from '#local/dynamodb-local.ts';
import { joinRunningEngine } from '#local/engine-access.ts';
import { ENGINE_FOLDER } from '#local/engine-record.ts';
import { LOCAL_TABLE_NAME } from '#local/local-service.ts';
import { ensureTable } from '#local/table-bootstrap.ts';
import { stopOrphanedDynamo } from '#local/orphaned-dynamo.ts';
import { readRuntimeFile } from '#local/runtime-file.ts';

export interface TargetOptions {
  table?: string;
  region?: string;
  endpoint?: string;
  dataDir: string;
}

/** What a command may need beyond the AdminStore (the webhook commands build their stores from it). */
export interface CommandContext {
  db: Documents;
  tableName: string;
  audit: AuditLog;
  clock: Clock;
  /** No --table: the local table, where webhooks may go to loopback receivers (as under npm start). */
  local: boolean;
  /** The table is in a DynamoDB Local (no --table, or --endpoint): secrets are sealed with the local key file. */
  localEngine: boolean;
  /** The local data folder (the local sealing key lives there). */
  dataDir: string;
  /** The web application's address the inbound URLs are built on: the running npm start's, else the default local one; null for a deployed table. */
  appUrl: string | null;
}

/**
 * The table the CLI works on: a deployed one (--table and --region, with the usual AWS
 * credentials, whose role or user must carry the tag `handoff-table-write` (or
 * `handoff-table-read` for the commands that only read) with the stack's name: the table's key
 * policy allows no one else, lambdas/access/key-policies.ts), the DynamoDB Local of a running
 * `npm start`, or, when none runs, a DynamoDB Local of its own over the same .data folder for the
 * length of the command.
 */
export const openTarget = async (options: TargetOptions) => {
  const clock = systemClock;
  let stop = async () => undefined as void;
  let endpoint = options.endpoint;
  let tableName = options.table;
  let appUrl: string | null = options.table ? null : `http://localhost:${process.env.PORT ?? 3000}`;
  if (!tableName || options.endpoint) {
    tableName ??= LOCAL_TABLE_NAME;
    if (!endpoint) {
      const running = readRuntimeFile(options.dataDir);
      if (running) {
        // The running engine keeps the data under the data folder's own access key.
        joinRunningEngine(join(options.dataDir, ENGINE_FOLDER));
        endpoint = running.dynamoEndpoint;
        tableName = running.tableName;
        appUrl = running.baseUrl.replace(/\/v1$/, '');
      } else {
        // A killed `npm start` may have left its DynamoDB Local on these files: stop it first.
        await stopOrphanedDynamo(options.dataDir);
        const dynamo = await startDynamoLocal({ dataDir: join(options.dataDir, 'dynamodb') });
        endpoint = dynamo.endpoint;
        stop = dynamo.stop;
      }
    }
  }
  const db = createDocumentClient({ endpoint, region: options.region });
  if (endpoint) await ensureTable(db, tableName);
  const audit = new AuditLog(db, tableName, clock);
  const admin = new AdminStore(db, tableName, audit, clock);
  const context: CommandContext = { db, tableName, audit, clock, local: !options.table, localEngine: !options.table || Boolean(options.endpoint), dataDir: options.dataDir, appUrl };
  return {
    admin,
    context,
    close: async () => {
      db.destroy();
      await stop();
    },
  };
};

import { join } from 'node:path';
import type { Server } from 'node:http';
import { systemClock, type Clock } from '#core/clock.ts';
import type { AppDeps } from '../app-deps.ts';
import { AdminStore } from '#store/admin-store.ts';
import { createDocumentClient } from '#store/dynamo.ts';
import { createAppDeps } from '../wiring.ts';
import { startDynamoLocal, type RunningDynamo } from './dynamodb-local.ts';
import { ensureTable } from './table-bootstrap.ts';
import { createGateway, listen } from './gateway.ts';
import { OutboxNotifier } from './outbox-notifier.ts';

export const LOCAL_TABLE_NAME = 'credential-handoff';

export interface LocalServiceOptions {
  /** Where DynamoDB Local keeps its data, the outbox and demo private keys; omit for in-memory. */
  dataDir?: string;
  port?: number;
  host?: string;
  /** Reuse a running DynamoDB Local instead of starting one. */
  dynamoEndpoint?: string;
  tableName?: string;
  /** Where email and SMS are written; defaults to `<dataDir>/outbox`. */
  outboxDir?: string;
  clock?: Clock;
  announce?: (line: string) => void;
}

export interface LocalService {
  baseUrl: string;
  appUrl: string;
  port: number;
  deps: AppDeps;
  admin: AdminStore;
  dynamoEndpoint: string;
  server: Server;
  stop(): Promise<void>;
}

/**
 * The whole service on one machine: DynamoDB Local, the table, and the API served through the
 * same handlers via the route table. Email and SMS land in the outbox folder.
 */
export const startLocalService = async (options: LocalServiceOptions = {}): Promise<LocalService> => {
  const tableName = options.tableName ?? LOCAL_TABLE_NAME;
  let dynamo: RunningDynamo | null = null;
  let endpoint = options.dynamoEndpoint;
  if (!endpoint) {
    dynamo = await startDynamoLocal({ dataDir: options.dataDir ? join(options.dataDir, 'dynamodb') : undefined });
    endpoint = dynamo.endpoint;
  }
  const db = createDocumentClient({ endpoint });
  await ensureTable(db, tableName);

  const clock = options.clock ?? systemClock;
  const outbox = options.outboxDir ?? join(options.dataDir ?? join(process.cwd(), '.data'), 'outbox');
  const host = options.host ?? '127.0.0.1';
  // The URLs depend on the port, which is known only once listening; they are filled in below.
  const urls = { baseUrl: '', appUrl: '' };
  const deps = createAppDeps({ tableName, urls, notifier: new OutboxNotifier(outbox, options.announce), db, clock });
  const server = createGateway(deps);
  const port = await listen(server, options.port ?? 0, host);
  const shownHost = host === '127.0.0.1' || host === '::1' ? 'localhost' : host;
  urls.appUrl = `http://${shownHost}:${port}`;
  urls.baseUrl = `${urls.appUrl}/v1`;

  const admin = new AdminStore(db, tableName, deps.audit, clock);
  return {
    baseUrl: urls.baseUrl,
    appUrl: urls.appUrl,
    port,
    deps,
    admin,
    dynamoEndpoint: endpoint,
    server,
    stop: async () => {
      server.closeAllConnections();
      await new Promise((done) => server.close(() => done(undefined)));
      db.destroy();
      await dynamo?.stop();
    },
  };
};

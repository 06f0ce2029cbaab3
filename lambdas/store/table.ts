import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

/**
 * The single table's key schema and indexes, defined once and imported by the CDK stack
 * (lib/) and the local bootstrap, so the two worlds can never disagree. See DESIGN-KEYS.md
 * beside this file for what lives under which key.
 */
export const TABLE_KEYS = { partitionKey: 'pk', sortKey: 'sk' } as const;

/** Epoch seconds; DynamoDB TTL deletes the item some time after it passes. */
export const TTL_ATTRIBUTE = 'ttlEpoch';

export interface IndexDefinition {
  indexName: string;
  partitionKey: string;
  sortKey: string;
}

/** Sparse GSIs: an item appears in an index only when it carries that index's attributes. */
export const INDEXES = {
  /** Requests of an organisation, newest first; API keys of an organisation. */
  byOrg: { indexName: 'byOrg', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
  /** Requests of an organisation in one status. */
  byStatus: { indexName: 'byStatus', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
  /** Requests of one client. */
  byClient: { indexName: 'byClient', partitionKey: 'gsi3pk', sortKey: 'gsi3sk' },
  /** Requests that quote one ticket reference. */
  byTicket: { indexName: 'byTicket', partitionKey: 'gsi4pk', sortKey: 'gsi4sk' },
  /** Live requests by the time they expire or their scheduled purge falls due, for the sweep. */
  byDue: { indexName: 'byDue', partitionKey: 'gsi5pk', sortKey: 'gsi5sk' },
  /** Pending webhook deliveries by their next attempt time, for the delivery sweep. */
  byDelivery: { indexName: 'byDelivery', partitionKey: 'gsi6pk', sortKey: 'gsi6sk' },
  /** Requests linked to one ticket by its external id (a ticketing integration's own id). */
  byExternalTicket: { indexName: 'byExternalTicket', partitionKey: 'gsi7pk', sortKey: 'gsi7sk' },
} as const satisfies Record<string, IndexDefinition>;

export const indexList = (): IndexDefinition[] => Object.values(INDEXES);

/**
 * The stream carries the keys of what changed, never an item's content. It feeds the webhook
 * fan-out, which reads the new audit entries it names (workers/fan-out.ts). With the items' images
 * in it, a credential's sealed envelope stayed readable in the stream for its 24 hours after the
 * destruction deleted it from the table, to any reader of the stream; now a destruction leaves
 * nothing of it there. (The point-in-time backups still hold it, as certificates state.)
 */
export const STREAM_VIEW_TYPE = 'KEYS_ONLY' as const;

/** CreateTable input for DynamoDB Local and tests; the CDK stack builds the same shape. */
export const createTableInput = (tableName: string): CreateTableCommandInput => {
  const attributes = new Set<string>([TABLE_KEYS.partitionKey, TABLE_KEYS.sortKey]);
  for (const index of indexList()) {
    attributes.add(index.partitionKey);
    attributes.add(index.sortKey);
  }
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [...attributes].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
    KeySchema: [
      { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' },
      { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: indexList().map((index) => ({
      IndexName: index.indexName,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' },
        { AttributeName: index.sortKey, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    })),
    StreamSpecification: { StreamEnabled: true, StreamViewType: STREAM_VIEW_TYPE },
  };
};

/**
 * Rate windows (lambdas/store/rate-limiter.ts) live in a table of their own, with the same key
 * schema and TTL but no stream and no index. Every API call writes its count; in the main table
 * each of those writes would be a stream record the webhook fan-out has to read past (deployed,
 * its event filter; locally, the stream poller), and DynamoDB Local holds a call's reads behind
 * the stream write (measured: a count on a table with a stream cost 1.4 to 3 times one without,
 * and held up the reads beside it). Counters that expire within two minutes need no stream, index
 * or point-in-time recovery.
 */
export const RATE_PARTITION_PREFIX = 'RATE#';

/** The rate table's name locally: beside the main table, derived from its name. Deployed, the stack names it (RATE_TABLE_NAME). */
export const rateTableNameOf = (tableName: string) => `${tableName}-rates`;

export const createRateTableInput = (tableName: string): CreateTableCommandInput => ({
  TableName: tableName,
  BillingMode: 'PAY_PER_REQUEST',
  AttributeDefinitions: [
    { AttributeName: TABLE_KEYS.partitionKey, AttributeType: 'S' },
    { AttributeName: TABLE_KEYS.sortKey, AttributeType: 'S' },
  ],
  KeySchema: [
    { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' },
    { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' },
  ],
});

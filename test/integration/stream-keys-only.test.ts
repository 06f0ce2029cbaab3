/**
 * A destroyed credential leaves nothing of itself in the table's stream. The stream feeds the
 * webhook fan-out, and while it carried the items' images, a submission's sealed envelope stayed
 * readable there for the stream's 24 hours after a completion deleted it from the table: anyone who
 * could read the stream, and held one recipient's key, could open it after its "destruction".
 */
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand, type _Record } from '@aws-sdk/client-dynamodb-streams';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { submitAsSubject } from '../support/submission.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

let service: TestService;
let org: TestOrganisation;

beforeAll(async () => {
  service = await startTestService({ stream: true });
  org = await service.createOrganisation({ name: 'Stream Org' });
});
afterAll(() => service?.stop());

/** Every record the table's stream holds, from its start. */
const streamRecords = async (): Promise<_Record[]> => {
  const { Table } = await service.deps.db.send(new DescribeTableCommand({ TableName: service.deps.tableName }));
  const streams = new DynamoDBStreamsClient({ endpoint: service.dynamoEndpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  try {
    const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: Table!.LatestStreamArn! }));
    const records: _Record[] = [];
    for (const shard of StreamDescription?.Shards ?? []) {
      let iterator = (await streams.send(new GetShardIteratorCommand({ StreamArn: Table!.LatestStreamArn!, ShardId: shard.ShardId!, ShardIteratorType: 'TRIM_HORIZON' }))).ShardIterator;
      while (iterator) {
        const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
        records.push(...(page.Records ?? []));
        // An open shard always answers a next iterator: an empty page is its end for now.
        iterator = page.Records?.length ? page.NextShardIterator : undefined;
      }
    }
    return records;
  } finally {
    streams.destroy();
  }
};

describe('the table stream after a completion', () => {
  it('names the envelope stored and deleted by its keys alone: its ciphertext is nowhere in the stream', async () => {
    const created = await service.call('POST', '/requests', { key: org.key, body: { subject_name: 'Sam Subject', justification: 'Router password', recipients: [org.member.email] } });
    expect(created.status, created.text).toBe(201);
    const id = created.body.request.id as string;
    const ciphertext = `sealed${'9f3a'.repeat(16)}`;
    await submitAsSubject(service, id, service.deps.clock, { envelope: { v: 1, ciphertext, recipients: [] }, attachments: [] });
    const completed = await service.call('POST', `/requests/${id}/complete`, { key: org.key });
    expect(completed.status, completed.text).toBe(200);

    const records = await streamRecords();
    const ofEnvelope = records.filter((record) => record.dynamodb?.Keys?.pk?.S === `REQ#${id}` && record.dynamodb?.Keys?.sk?.S?.startsWith('MATERIAL#'));
    // Stored, then deleted by the completion: both changes are in the stream, as keys.
    expect(ofEnvelope.map((record) => record.eventName)).toEqual(['INSERT', 'REMOVE']);
    for (const record of records) {
      expect(record.dynamodb?.NewImage).toBeUndefined();
      expect(record.dynamodb?.OldImage).toBeUndefined();
    }
    expect(JSON.stringify(records)).not.toContain(ciphertext);
  });
});

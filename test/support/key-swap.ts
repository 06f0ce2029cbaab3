import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { exportPublicKey, fingerprintOf, generateIdentityPair } from '../../web/crypto/identity.ts';
import type { TestService } from './test-service.ts';

/** What a compromised server could do after a request was made: put another public key on a member, straight in the table. */
export const swapIdentityKeyInTable = async (service: TestService, orgId: string, memberId: string) => {
  const attackerKey = await exportPublicKey((await generateIdentityPair()).publicKey);
  await service.deps.db.send(
    new UpdateCommand({
      TableName: service.deps.tableName,
      Key: { pk: `ORG#${orgId}`, sk: `MEMBER#${memberId}` },
      UpdateExpression: 'SET identityKey.publicKey = :key, identityKey.fingerprint = :fingerprint',
      ExpressionAttributeValues: { ':key': attackerKey, ':fingerprint': await fingerprintOf(attackerKey) },
    }),
  );
};

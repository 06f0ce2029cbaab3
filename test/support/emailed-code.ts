import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../lambdas/store/keys.ts';
import type { TestService } from './test-service.ts';

/** The outbox's file names now, to find what is sent after. */
export const outboxNow = (service: Pick<TestService, 'outboxDir'>) => new Set(readdirSync(service.outboxDir));

/** The code of the one emailed-code message written to the outbox since `before`, or null while none is. */
export const emailedCodeSince = (service: Pick<TestService, 'outboxDir'>, before: Set<string>): string | null => {
  const file = readdirSync(service.outboxDir).find((name) => !before.has(name) && name.endsWith('.json'));
  if (!file) return null;
  const message = JSON.parse(readFileSync(join(service.outboxDir, file), 'utf8')) as { purpose: string; text: string };
  return message.purpose === 'email_code' ? (/(\d{6})/.exec(message.text)?.[1] ?? null) : null;
};

/** Ends the request's emailed code's ten minutes now, as if the subject had waited them out. */
export const expireEmailedCode = (service: Pick<TestService, 'deps'>, requestId: string) =>
  service.deps.db.send(
    new UpdateCommand({
      TableName: service.deps.tableName,
      Key: keys.request(requestId),
      UpdateExpression: 'SET verification.emailCodeExpiresAt = :past',
      ExpressionAttributeValues: { ':past': new Date(Date.now() - 1000).toISOString() },
    }),
  );

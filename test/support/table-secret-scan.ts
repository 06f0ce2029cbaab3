/**
 * The end-of-run check (global-setup.ts): every item of every table in the run's DynamoDB Local,
 * searched for secrets in plain text, by format and for every value a test was shown.
 */
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../lambdas/store/dynamo.ts';
import { plainSecretsIn, secretsInMessage, ShownSecrets, type PlainSecretFinding } from './secret-scan.ts';

const linesOf = (dir: string, suffix: string) =>
  readdirSync(dir)
    .filter((name) => name.endsWith(suffix))
    .flatMap((name) => readFileSync(join(dir, name), 'utf8').split('\n'))
    .filter((line) => line.length > 0);

/** What the outboxes' emails and SMS carried: links with their tokens, codes. */
const outboxSecrets = (outboxes: readonly string[]) => {
  const found: string[] = [];
  for (const outbox of new Set(outboxes)) {
    if (!existsSync(outbox)) continue;
    for (const name of readdirSync(outbox).filter((file) => file.endsWith('.json'))) {
      try {
        const message = JSON.parse(readFileSync(join(outbox, name), 'utf8')) as { text?: unknown; subject?: unknown };
        found.push(...secretsInMessage(`${String(message.subject ?? '')}\n${String(message.text ?? '')}`));
      } catch {
        // A message cut off or not JSON: it names no secret we can read.
      }
    }
  }
  return found;
};

/** Every value recorded under `dir` (shown-secrets.ts), the outboxes' included. */
export const recordedSecrets = (dir: string) => new ShownSecrets([...linesOf(dir, '.secrets'), ...outboxSecrets(linesOf(dir, '.outboxes'))]);

/**
 * Removes the outboxes recorded under `dir`, and the folders their messages are written in first
 * (outbox-notifier.ts): they hold the run's links and codes, and once read they serve nothing.
 */
export const removeRecordedOutboxes = (dir: string) => {
  for (const outbox of new Set(linesOf(dir, '.outboxes'))) {
    rmSync(outbox, { recursive: true, force: true });
    rmSync(`${outbox}.partial`, { recursive: true, force: true });
  }
};

/**
 * Scans every table of the engine at `endpoint`; the plain secrets found, and how much was
 * searched. `alsoVisit` sees every page of items too (the run's other end-of-run checks).
 */
export const scanTablesForPlainSecrets = async (endpoint: string, shown: ShownSecrets, alsoVisit: (items: Array<Record<string, unknown>>) => void = () => undefined) => {
  const db = createDocumentClient({ endpoint });
  const findings: PlainSecretFinding[] = [];
  let tables = 0;
  let items = 0;
  try {
    let startTable: string | undefined;
    do {
      const listed = await db.send(new ListTablesCommand({ ExclusiveStartTableName: startTable }));
      for (const table of listed.TableNames ?? []) {
        tables += 1;
        let start: Record<string, unknown> | undefined;
        do {
          const page = await db.send(new ScanCommand({ TableName: table, ExclusiveStartKey: start }));
          items += page.Items?.length ?? 0;
          findings.push(...plainSecretsIn(table, page.Items ?? [], shown));
          alsoVisit(page.Items ?? []);
          start = page.LastEvaluatedKey;
        } while (start);
      }
      startTable = listed.LastEvaluatedTableName;
    } while (startTable);
  } finally {
    db.destroy();
  }
  return { findings, tables, items };
};

/**
 * From counted usage to money: pure arithmetic, so the unit test can hold every line to it. A
 * usage holds, per line of the price list, the quantity one unit of work uses (one handoff, one
 * API read) in that price's unit; the table prices a batch of each.
 */
import { PRICES, type PriceList, type UnitPrice } from './prices.ts';

export type PriceKey = keyof PriceList;
export type Usage = Readonly<Record<PriceKey, number>>;

export const HANDOFF_BATCH = 1_000;
export const READ_BATCH = 1_000_000;

/** What each line is called in the table, in the order it is printed. */
export const LINE_LABELS: Readonly<Record<PriceKey, string>> = {
  httpApiRequests: 'API Gateway HTTP API requests',
  lambdaRequests: 'Lambda requests',
  lambdaArmGbSeconds: 'Lambda duration (arm64)',
  dynamoReadRequestUnits: 'DynamoDB read request units',
  dynamoWriteRequestUnits: 'DynamoDB write request units',
  kmsSymmetricRequests: 'KMS requests (HMAC, symmetric)',
  kmsAsymmetricRequests: 'KMS requests (Ed25519 signing key)',
  sqsRequests: 'SQS requests (delivery queue)',
  schedulerApiCalls: 'Scheduler schedule calls',
  schedulerInvocations: 'Scheduler invocations',
  sesEmails: 'SES emails',
  logIngestionBytes: 'CloudWatch Logs ingestion',
  transferOutBytes: 'Data transfer out',
};

export interface CostLine {
  key: PriceKey;
  label: string;
  price: UnitPrice;
  perHandoff: number;
  perRead: number;
  /** US dollars for HANDOFF_BATCH handoffs. */
  handoffsUsd: number;
  /** US dollars for READ_BATCH reads. */
  readsUsd: number;
}

const cost = (quantity: number, batch: number, price: UnitPrice) => (quantity * batch * price.usd) / price.per;

/** One line per price, in LINE_LABELS order: a usage missing a line is a type error, never a silent zero. */
export const costLines = (perHandoff: Usage, perRead: Usage, prices: PriceList = PRICES): CostLine[] =>
  (Object.keys(LINE_LABELS) as PriceKey[]).map((key) => ({
    key,
    label: LINE_LABELS[key],
    price: prices[key],
    perHandoff: perHandoff[key],
    perRead: perRead[key],
    handoffsUsd: cost(perHandoff[key], HANDOFF_BATCH, prices[key]),
    readsUsd: cost(perRead[key], READ_BATCH, prices[key]),
  }));

export const totalsOf = (lines: readonly CostLine[]) => ({
  handoffsUsd: lines.reduce((sum, line) => sum + line.handoffsUsd, 0),
  readsUsd: lines.reduce((sum, line) => sum + line.readsUsd, 0),
});

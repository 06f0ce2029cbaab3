/**
 * AWS list prices the cost table uses: one region, on-demand, no free tier, no savings plan, no
 * volume tier past the first. Each price names its pricing page and since when it has been the
 * price. They were not re-read from the live pages when written (no network here): check them
 * against the pages before quoting the table, and change them only here.
 */

export const PRICE_REGION = 'us-east-1';
/** The date the prices below are stated as of (the latest change among them is older). */
export const PRICES_AS_OF = '2025-08-01';

/** A price in US dollars for `per` units of `unit`. */
export interface UnitPrice {
  usd: number;
  per: number;
  unit: string;
}

export const PRICES = {
  // https://aws.amazon.com/dynamodb/pricing/on-demand/ — since 2024-11-01 (the on-demand price cut by half).
  dynamoWriteRequestUnits: { usd: 0.625, per: 1_000_000, unit: 'WRU' },
  // https://aws.amazon.com/dynamodb/pricing/on-demand/ — since 2024-11-01.
  dynamoReadRequestUnits: { usd: 0.125, per: 1_000_000, unit: 'RRU' },
  // https://aws.amazon.com/kms/pricing/ — symmetric and HMAC requests (GenerateMac, GenerateDataKey, Decrypt).
  kmsSymmetricRequests: { usd: 0.03, per: 10_000, unit: 'request' },
  // https://aws.amazon.com/kms/pricing/ — asymmetric requests except RSA 2048 (Sign and GetPublicKey on the Ed25519 key).
  kmsAsymmetricRequests: { usd: 0.15, per: 10_000, unit: 'request' },
  // https://aws.amazon.com/sqs/pricing/ — standard queue, first 100 billion requests a month (each 64 KB chunk is a request).
  sqsRequests: { usd: 0.4, per: 1_000_000, unit: 'request' },
  // https://aws.amazon.com/eventbridge/pricing/ — Scheduler: invocations only; creating, updating and deleting schedules is not billed.
  schedulerInvocations: { usd: 1.0, per: 1_000_000, unit: 'invocation' },
  schedulerApiCalls: { usd: 0, per: 1_000_000, unit: 'call' },
  // https://aws.amazon.com/ses/pricing/ — outbound email, no attachments.
  sesEmails: { usd: 0.1, per: 1_000, unit: 'email' },
  // https://aws.amazon.com/lambda/pricing/ — requests, any architecture.
  lambdaRequests: { usd: 0.2, per: 1_000_000, unit: 'request' },
  // https://aws.amazon.com/lambda/pricing/ — Arm (arm64) duration, first 7.5 billion GB-s a month (x86 is $0.0000166667).
  lambdaArmGbSeconds: { usd: 0.0000133334, per: 1, unit: 'GB-s' },
  // https://aws.amazon.com/api-gateway/pricing/ — HTTP API, first 300 million requests a month (each 512 KB is a request).
  httpApiRequests: { usd: 1.0, per: 1_000_000, unit: 'request' },
  // https://aws.amazon.com/cloudwatch/pricing/ — Logs ingestion, standard class; Lambda's logs (vended, tiered since 2025-05-01) start at the same $0.50.
  logIngestionBytes: { usd: 0.5, per: 1024 ** 3, unit: 'byte' },
  // https://aws.amazon.com/ec2/pricing/on-demand/#Data_Transfer — out to the internet, first 10 TB a month.
  transferOutBytes: { usd: 0.09, per: 1024 ** 3, unit: 'byte' },
} as const satisfies Record<string, UnitPrice>;

export type PriceList = { readonly [K in keyof typeof PRICES]: UnitPrice };

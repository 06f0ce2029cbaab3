import { describe, expect, it } from 'vitest';
import { PRICES, type PriceList } from '../../bench/cost/prices.ts';
import { costLines, LINE_LABELS, totalsOf, type Usage } from '../../bench/cost/pricing.ts';

/**
 * The cost table's arithmetic (bench/cost/pricing.ts): each line is its quantity per unit of work,
 * times the batch (1,000 handoffs, 1,000,000 reads), times its price per `per` units. The expected
 * dollars are worked out by hand below, line by line, with prices of the test's own (so a price
 * update does not move them): a line dropped, priced with another's price or multiplied by the
 * wrong batch changes a figure or the total.
 */
const prices: PriceList = {
  httpApiRequests: { usd: 1, per: 1_000_000, unit: 'request' },
  lambdaRequests: { usd: 0.2, per: 1_000_000, unit: 'request' },
  lambdaArmGbSeconds: { usd: 0.00002, per: 1, unit: 'GB-s' },
  dynamoReadRequestUnits: { usd: 0.25, per: 1_000_000, unit: 'RRU' },
  dynamoWriteRequestUnits: { usd: 1.25, per: 1_000_000, unit: 'WRU' },
  kmsSymmetricRequests: { usd: 0.03, per: 10_000, unit: 'request' },
  kmsAsymmetricRequests: { usd: 0.15, per: 10_000, unit: 'request' },
  sqsRequests: { usd: 0.4, per: 1_000_000, unit: 'request' },
  schedulerApiCalls: { usd: 0, per: 1_000_000, unit: 'call' },
  schedulerInvocations: { usd: 1, per: 1_000_000, unit: 'invocation' },
  sesEmails: { usd: 0.1, per: 1_000, unit: 'email' },
  logIngestionBytes: { usd: 0.5, per: 1_000_000_000, unit: 'byte' },
  transferOutBytes: { usd: 0.09, per: 1_000_000_000, unit: 'byte' },
};

const perHandoff: Usage = {
  httpApiRequests: 12,
  lambdaRequests: 20,
  lambdaArmGbSeconds: 0.5,
  dynamoReadRequestUnits: 40,
  dynamoWriteRequestUnits: 200,
  kmsSymmetricRequests: 5,
  kmsAsymmetricRequests: 2,
  sqsRequests: 6,
  schedulerApiCalls: 4,
  schedulerInvocations: 3,
  sesEmails: 1,
  logIngestionBytes: 10_000,
  transferOutBytes: 50_000,
};

const perRead: Usage = {
  httpApiRequests: 1,
  lambdaRequests: 1.5,
  lambdaArmGbSeconds: 0.01,
  dynamoReadRequestUnits: 3,
  dynamoWriteRequestUnits: 2,
  kmsSymmetricRequests: 0,
  kmsAsymmetricRequests: 0,
  sqsRequests: 0,
  schedulerApiCalls: 0,
  schedulerInvocations: 0,
  sesEmails: 0,
  logIngestionBytes: 1_000,
  transferOutBytes: 1_500,
};

/** Dollars for 1,000 handoffs and for 1,000,000 reads, by hand. */
const expected: Record<keyof PriceList, [number, number]> = {
  httpApiRequests: [0.012, 1], // 12 × 1,000 × $1/1M; 1 × 1M × $1/1M
  lambdaRequests: [0.004, 0.3], // 20,000 × $0.2/1M; 1.5M × $0.2/1M
  lambdaArmGbSeconds: [0.01, 0.2], // 500 GB-s × $0.00002; 10,000 GB-s × $0.00002
  dynamoReadRequestUnits: [0.01, 0.75], // 40,000 × $0.25/1M; 3M × $0.25/1M
  dynamoWriteRequestUnits: [0.25, 2.5], // 200,000 × $1.25/1M; 2M × $1.25/1M
  kmsSymmetricRequests: [0.015, 0], // 5,000 × $0.03/10k
  kmsAsymmetricRequests: [0.03, 0], // 2,000 × $0.15/10k
  sqsRequests: [0.0024, 0], // 6,000 × $0.4/1M
  schedulerApiCalls: [0, 0], // not billed
  schedulerInvocations: [0.003, 0], // 3,000 × $1/1M
  sesEmails: [0.1, 0], // 1,000 × $0.1/1k
  logIngestionBytes: [0.005, 0.5], // 10 MB × $0.5/GB; 1 GB × $0.5/GB
  transferOutBytes: [0.0045, 0.135], // 50 MB × $0.09/GB; 1.5 GB × $0.09/GB
};

describe('the cost table arithmetic', () => {
  const lines = costLines(perHandoff, perRead, prices);

  it('has one line per price, each labelled', () => {
    expect(lines.map((line) => line.key).sort()).toEqual(Object.keys(prices).sort());
    expect(Object.keys(LINE_LABELS).sort()).toEqual(Object.keys(PRICES).sort());
    for (const line of lines) expect(line.label).toBe(LINE_LABELS[line.key]);
  });

  it('prices each line for 1,000 handoffs and for 1,000,000 reads', () => {
    for (const line of lines) {
      const [handoffs, reads] = expected[line.key];
      expect(line.handoffsUsd, `${line.key}, 1,000 handoffs`).toBeCloseTo(handoffs, 10);
      expect(line.readsUsd, `${line.key}, 1,000,000 reads`).toBeCloseTo(reads, 10);
      expect(line.price).toBe(prices[line.key]);
      expect([line.perHandoff, line.perRead]).toEqual([perHandoff[line.key], perRead[line.key]]);
    }
  });

  it('totals every line', () => {
    const totals = totalsOf(lines);
    expect(totals.handoffsUsd).toBeCloseTo(0.4459, 10);
    expect(totals.readsUsd).toBeCloseTo(5.385, 10);
  });

  it('costs nothing for no usage, and scales in proportion', () => {
    const none = Object.fromEntries(Object.keys(prices).map((key) => [key, 0])) as Usage;
    expect(totalsOf(costLines(none, none, prices))).toEqual({ handoffsUsd: 0, readsUsd: 0 });
    const doubled = Object.fromEntries(Object.entries(perHandoff).map(([key, value]) => [key, value * 2])) as Usage;
    expect(totalsOf(costLines(doubled, perRead, prices)).handoffsUsd).toBeCloseTo(2 * 0.4459, 10);
  });
});

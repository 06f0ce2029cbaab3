/**
 * The cost table as the bench prints it: each line's quantity per handoff and per read, its price,
 * and its cost for HANDOFF_BATCH handoffs and READ_BATCH reads; then the totals, and what each
 * function did per handoff (so a line can be traced to the calls behind it).
 */
import type { FunctionConfig } from './deployed-functions.ts';
import { PRICE_REGION, PRICES_AS_OF, type UnitPrice } from './prices.ts';
import { costLines, HANDOFF_BATCH, READ_BATCH, totalsOf, type Usage } from './pricing.ts';
import { logBytesOf, type WindowCounts } from './usage.ts';

const KB = 1024;
const GB = 1024 ** 3;

const quantity = (value: number, unit: string) => {
  if (unit === 'byte') return value >= KB ? `${(value / KB).toFixed(1)} KB` : `${value.toFixed(0)} B`;
  if (value === 0) return '0';
  return value >= 100 ? value.toFixed(0) : value >= 1 ? value.toFixed(2) : value.toPrecision(3);
};

const priceText = ({ usd, per, unit }: UnitPrice) => {
  if (usd === 0) return 'not billed';
  if (unit === 'byte') return `$${usd} / ${per / GB === 1 ? 'GB' : `${per} B`}`;
  const batch = per >= 1_000_000 ? `${per / 1_000_000}M ` : per >= 1_000 ? `${per / 1_000}k ` : '';
  return `$${usd} / ${batch}${unit}`;
};

const money = (usd: number) => (usd === 0 ? '$0' : usd < 0.0001 ? `$${usd.toExponential(1)}` : `$${usd.toFixed(4)}`);

const row = (cells: string[], widths: number[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');

export const costReport = (perHandoff: Usage, perRead: Usage): string[] => {
  const lines = costLines(perHandoff, perRead);
  const totals = totalsOf(lines);
  const widths = [36, 11, 10, 22, 15, 19];
  return [
    `\nAWS cost at list prices, ${PRICE_REGION}, on demand, prices as of ${PRICES_AS_OF}, no free tier (bench/cost/prices.ts).`,
    `A handoff: create (API key, link emailed), the subject's page and assets, open, verify, submit, the recipient's reveal and`,
    `complete in the member app, the JSON certificate, two webhook deliveries. A read: GET /v1/requests/{id} through an API key.\n`,
    row(['line item', 'per handoff', 'per read', 'price', `${HANDOFF_BATCH.toLocaleString('en')} handoffs`, `${READ_BATCH.toLocaleString('en')} reads`], widths),
    ...lines.map((line) =>
      row([line.label, quantity(line.perHandoff, line.price.unit), quantity(line.perRead, line.price.unit), priceText(line.price), money(line.handoffsUsd), money(line.readsUsd)], widths),
    ),
    row(['total', '', '', '', money(totals.handoffsUsd), money(totals.readsUsd)], widths),
  ];
};

/** Per function: invocations and billed milliseconds per unit of work, and the memory it is billed at. */
export const functionBreakdown = (counts: WindowCounts, configOf: (name: string) => FunctionConfig) =>
  [...counts.functions]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, usage]) => `${name} ${(usage.invocations / counts.units).toFixed(2)}× ${(usage.billedMs / usage.invocations).toFixed(1)} ms at ${configOf(name).memoryMb} MB`)
    .join(', ');

/** Per unit of work, whose log lines the ingested bytes are. */
export const logBreakdown = (counts: WindowCounts, configOf: (name: string) => FunctionConfig) => {
  const { service, platform, access, eventOverhead } = logBytesOf(counts, configOf);
  const bytes = (value: number) => `${(value / counts.units).toFixed(0)} B`;
  return `the service's ${bytes(service)}, Lambda's platform lines ${bytes(platform)}, API access log ${bytes(access)}, event overhead (26 B each) ${bytes(eventOverhead)}`;
};

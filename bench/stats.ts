/** Latency percentiles and a fixed-width table for the benchmark's printout. */
export const percentile = (sortedMs: number[], p: number) =>
  sortedMs.length === 0 ? NaN : sortedMs[Math.min(sortedMs.length - 1, Math.ceil((p / 100) * sortedMs.length) - 1)];

export interface Measurement {
  name: string;
  p50: number;
  p99: number;
  /** Calls per second at the given concurrency. */
  throughput: number;
}

/** Runs `call` `iterations` times one after another, timing each. */
export const latency = async (call: () => Promise<unknown>, iterations: number) => {
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const started = process.hrtime.bigint();
    await call();
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), p99: percentile(samples, 99) };
};

/** Completed calls per second with `concurrency` callers for `total` calls. */
export const throughput = async (call: () => Promise<unknown>, total: number, concurrency: number) => {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < total) await call();
    }),
  );
  return total / (Number(process.hrtime.bigint() - started) / 1e9);
};

export const measure = async (name: string, call: () => Promise<unknown>, options: { iterations: number; total: number; concurrency: number }) => {
  // Warm-up: DynamoDB Local is a JVM whose code paths run slowly until compiled; a few hundred
  // calls of the path under test first, so that both sides of a ratio are measured warm.
  for (let i = 0; i < Math.min(300, options.iterations); i++) await call();
  const { p50, p99 } = await latency(call, options.iterations);
  return { name, p50, p99, throughput: await throughput(call, options.total, options.concurrency) } satisfies Measurement;
};

/**
 * A path and its raw DynamoDB baseline, timed in turns (one call of each, then the next pair), so
 * that both see the same moments of a shared machine: measured one after the other, a busy
 * stretch during either moves their ratio by half again. Throughput is measured for each alone.
 */
export const measurePair = async (
  path: { name: string; call: () => Promise<unknown> },
  raw: { name: string; call: () => Promise<unknown> },
  options: { iterations: number; total: number; concurrency: number },
): Promise<[Measurement, Measurement]> => {
  for (let i = 0; i < Math.min(300, options.iterations); i++) {
    await path.call();
    await raw.call();
  }
  const samples: [number[], number[]] = [[], []];
  for (let i = 0; i < options.iterations; i++) {
    for (const [index, { call }] of [path, raw].entries()) {
      const started = process.hrtime.bigint();
      await call();
      samples[index]!.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  }
  const result = async ({ name, call }: typeof path, sampled: number[]): Promise<Measurement> => {
    sampled.sort((a, b) => a - b);
    return { name, p50: percentile(sampled, 50), p99: percentile(sampled, 99), throughput: await throughput(call, options.total, options.concurrency) };
  };
  return [await result(path, samples[0]), await result(raw, samples[1])];
};

export const formatMs = (ms: number) => `${ms.toFixed(2)} ms`;

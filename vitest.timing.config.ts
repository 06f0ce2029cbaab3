import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

/**
 * The tests that hold the service to a latency bound (test/timing/), one file at a time after the
 * main run, so that no other test file competes with them for the machine's two cores.
 */
export default defineConfig({
  test: { ...base.test, include: ['test/timing/**/*.test.ts'], exclude: ['**/node_modules/**'], fileParallelism: false },
});

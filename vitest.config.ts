import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { TEST_ENGINE_JVM_OPTIONS } from './test/support/engine-jvm.ts';
import { BundledStackSequencer } from './test/support/bundled-stack-sequencer.ts';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Bounds on latency are judged alone, after the rest (vitest.timing.config.ts): beside other
    // test files on two cores they would measure the machine, not the service.
    exclude: ['test/timing/**', '**/node_modules/**'],
    globalSetup: ['test/support/global-setup.ts'],
    // Records the secrets every answer shows, for the plain-secret scan at the end of the run.
    setupFiles: ['test/support/record-shown-secrets.setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', LOG_LEVEL: 'WARN', JDK_JAVA_OPTIONS: TEST_ENGINE_JVM_OPTIONS },
    pool: 'forks',
    // Vitest's default (one worker fewer than the cores) is a single worker on two cores, which
    // leaves a core idle whenever a test waits on the engine, a browser or a child service.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    sequence: { sequencer: BundledStackSequencer },
  },
});

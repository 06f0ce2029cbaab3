import { defineConfig } from 'vitest/config';

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
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', LOG_LEVEL: 'WARN' },
    pool: 'forks',
  },
});

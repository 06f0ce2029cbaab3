import type { BuildOptions } from 'esbuild';
import { BUNDLING } from './api-functions.ts';

/**
 * The stack's bundling options (BUNDLING, written as the CDK's NodejsFunction props) as esbuild's
 * own options, for whatever bundles a function outside the CDK the way the stack would: the
 * bench's bundle sizes and the tests that import a bundle.
 */
export const esbuildOptionsOfStack = (): BuildOptions => ({
  bundle: true,
  platform: 'node',
  format: BUNDLING.format === 'esm' ? 'esm' : 'cjs',
  target: BUNDLING.target,
  minify: BUNDLING.minify,
  mainFields: BUNDLING.mainFields,
  external: BUNDLING.externalModules,
  banner: BUNDLING.banner ? { js: BUNDLING.banner } : undefined,
  logLevel: 'error',
});

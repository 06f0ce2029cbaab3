#!/usr/bin/env node
// The `verify-custody-certificate` command (package.json "bin"). Node cannot load TypeScript
// itself, so this registers tsx and runs the tool, bin/verify-custody-certificate.ts. Programs
// should use the library entry, lambdas/core/custody/verify.ts, instead.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('./verify-custody-certificate.ts');
process.exitCode = await main(process.argv.slice(2));

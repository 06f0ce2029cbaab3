#!/usr/bin/env node
// The `verify-custody-certificate` command (package.json "bin") for people working in a clone. It
// runs tools/verify-custody-certificate.mjs, the single-file verifier auditors run with plain
// `node`, so the command and the file the README publishes are one program and cannot drift apart.
// Plain JavaScript with only Node's built-in modules: no TypeScript loader needed.
import { main } from '../tools/verify-custody-certificate.mjs';

process.exitCode = await main(process.argv.slice(2));

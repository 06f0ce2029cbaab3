import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { shellExports } from './shell-exports.ts';

/** The file in the data folder a shell loads (`. .data/demo.env`) to run the docs' shell examples; mode 600, as it holds the demo's secrets. */
export const DEMO_ENV_FILE = 'demo.env';

/** The variables the shell examples in README.md and docs/ use, as README.md's "Shell examples" lists them. */
export interface DemoShellVariables {
  /** The service's address: the application, the JWKS, the inbound URLs. */
  APP: string;
  /** The `/v1` API's base URL. */
  BASE: string;
  /** The demo API key (all scopes). */
  KEY: string;
  ORG: string;
  /** The demo's client (Acme Ltd). */
  CLIENT: string;
  /** The demo's ticketing integration, and its two URLs (left out when they were rotated elsewhere: only whoever rotated them has them). */
  INTEGRATION: string;
  WEBHOOK_URL?: string;
  TRIGGER_URL?: string;
}

/** Written at every start, as the address may change with PORT; docs/examples/typed-client.ts reads KEY from that shell. */
export const writeDemoShellVariables = (dataDir: string, variables: DemoShellVariables) => {
  const lines = [
    '# The docs\' shell examples\' variables for the running `npm start`, written at every start.',
    '# Load them in a shell at the repository\'s root:  . .data/demo.env',
    ...shellExports(Object.fromEntries(Object.entries(variables).filter((entry): entry is [string, string] => entry[1] !== undefined))),
  ];
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, DEMO_ENV_FILE);
  writeFileSync(file, `${lines.join('\n')}\n`, { mode: 0o600 });
  // A file left by an older start keeps its mode on a rewrite: make sure of it.
  chmodSync(file, 0o600);
  return file;
};

import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FALLBACK_ENTRY } from '../../../lambdas/http/routes.ts';
import { CODE_HASH_ROUTES, REPO_ROOT, WEB_ASSETS_DIR } from '../../../lib/api-functions.ts';
import { KEYED_CODE_PREFIX } from '../../../lambdas/core/codes.ts';
import { KEYED_FINGERPRINT_PREFIX } from '../../../lambdas/http/middleware/idempotency.ts';
import { API_READ_RECORDER_ENTRY } from '../../../lib/api-read-records.ts';
import { EXPIRE_ENTRY, PURGE_ENTRY, SWEEP_ENTRY } from '../../../lib/expiry.ts';
import { sdkClientsOfEntry } from '../../../lib/function-clients.ts';
import { RECONCILE_ENTRY, TICKET_CHECK_ENTRY } from '../../../lib/helpdesk-checks.ts';
import { DELIVER_ENTRY, DELIVERY_SWEEP_ENTRY, FAN_OUT_ENTRY } from '../../../lib/webhooks.ts';
import { WEB_ASSET_NAMES } from '../../../web/build.ts';
import { CERTIFICATE_BUNDLE_BUDGET_BYTES } from '../../../bench/bundle-budget.ts';
import {
  outdir,
  resources,
  useBundledStack,
  type Statement,
  actionsOf,
  deliverFunctionId,
  deliverySweepFunctionId,
  entries,
  expiryFunctionId,
  fallbackFunctionId,
  fanOutFunctionId,
  purgeFunctionId,
  functionIdOf,
  functionIdOfEntry,
  reconcileFunctionId,
  recorderFunctionId,
  resourcesOf,
  roleIdOfFunction,
  rowsOf,
  signingRoutes,
  statementsOfRole,
  staticEntries,
  sweepFunctionId,
  ticketCheckFunctionId,
} from '../../support/stack-template.ts';

/**
 * The functions' bundles, as esbuild built them for the bundled test stack
 * (test/support/stack-template.ts): read from its cloud assembly.
 */

useBundledStack();

/** Lambda has no hard limit this low; ours is a cold-start budget (see lib/api-functions.ts). */
const BUNDLE_LIMIT_BYTES = 1_000_000;

describe('bundles', () => {
  const bundleOf = (functionId: string) => {
    const code = resources[functionId]!.Properties.Code;
    const hash = String(code.S3Key).replace(/\.zip$/, '');
    return path.join(outdir, `asset.${hash}`, 'index.mjs');
  };
  /** Every file of a function's code in its asset: index.mjs and the chunks beside it (the certificate function's). */
  const codeFilesOf = (functionId: string) => {
    const folder = path.dirname(bundleOf(functionId));
    return readdirSync(folder).filter((file) => file.endsWith('.mjs')).map((file) => path.join(folder, file));
  };
  /** The AWS SDK packages a function's code imports, statically or not, in any of its files. */
  const sdkImportsOf = (functionId: string) => {
    const names = new Set<string>();
    for (const file of codeFilesOf(functionId)) {
      for (const match of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*["'](@aws-sdk\/[^"']+)["']/g)) names.add(match[1]!);
    }
    return [...names].sort();
  };
  /** Where the Lambda service itself sends a function's failed events (an asynchronous invocation's or an event source mapping's on-failure destination). */
  const failureDestinationsOf = (functionId: string) =>
    Object.values(resources)
      .filter((r) => ['AWS::Lambda::EventInvokeConfig', 'AWS::Lambda::EventSourceMapping'].includes(r.Type) && r.Properties.FunctionName?.Ref === functionId)
      .map((r) => JSON.stringify(r.Properties.DestinationConfig?.OnFailure?.Destination ?? null));
  /**
   * The SDK packages a role's Allow statement lets the function's own code call. Not the code's:
   * what the Lambda service does with the role (logs, the event source mappings' stream and queue
   * reads, failed events sent to their destination, DynamoDB's use of the table key) and
   * iam:PassRole, which comes with scheduling.
   */
  const clientsOfStatement = (functionId: string) => (statement: Statement): string[] => {
    if (statement.Effect !== 'Allow') return [];
    const viaService = JSON.stringify(statement.Condition ?? {}).includes('kms:ViaService');
    const toFailureDestination = resourcesOf(statement).every((resource) => failureDestinationsOf(functionId).includes(JSON.stringify(resource)));
    return actionsOf(statement).flatMap((action) => {
      const [service, name] = action.split(':') as [string, string];
      if (service === 'dynamodb') return ['DescribeStream', 'GetRecords', 'GetShardIterator', 'ListStreams'].includes(name) ? [] : ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb'];
      if (service === 'kms') return viaService ? [] : ['@aws-sdk/client-kms'];
      if (service === 'sqs') return name === 'SendMessage' && !toFailureDestination ? ['@aws-sdk/client-sqs'] : [];
      const client = { lambda: 'client-lambda', scheduler: 'client-scheduler', ses: 'client-sesv2', sns: 'client-sns' }[service];
      return client ? [`@aws-sdk/${client}`] : [];
    });
  };
  const clientsOfRole = (functionId: string) => [...new Set(statementsOfRole(roleIdOfFunction(functionId)).flatMap(clientsOfStatement(functionId)))].sort();

  const bundles = () => [
    ...entries().map((entry) => ({ name: rowsOf(entry).map((route) => route.name).join('+'), entry, functionId: functionIdOfEntry(entry) })),
    { name: 'fallback', entry: FALLBACK_ENTRY, functionId: fallbackFunctionId() },
    { name: 'expire', entry: EXPIRE_ENTRY, functionId: expiryFunctionId() },
    { name: 'purge', entry: PURGE_ENTRY, functionId: purgeFunctionId() },
    { name: 'sweep', entry: SWEEP_ENTRY, functionId: sweepFunctionId() },
    { name: 'fan-out', entry: FAN_OUT_ENTRY, functionId: fanOutFunctionId() },
    { name: 'deliver', entry: DELIVER_ENTRY, functionId: deliverFunctionId() },
    { name: 'delivery-sweep', entry: DELIVERY_SWEEP_ENTRY, functionId: deliverySweepFunctionId() },
    { name: 'ticket-check', entry: TICKET_CHECK_ENTRY, functionId: ticketCheckFunctionId() },
    { name: 'reconcile', entry: RECONCILE_ENTRY, functionId: reconcileFunctionId() },
    { name: 'api-read-recorder', entry: API_READ_RECORDER_ENTRY, functionId: recorderFunctionId() },
  ];

  it('every route, the fallback and the workers point at an existing handler file', () => {
    for (const { entry } of bundles()) expect(existsSync(path.join(REPO_ROOT, entry)), entry).toBe(true);
  });

  it('ship the built pages beside the static handler', () => {
    for (const entry of staticEntries()) {
      const folder = path.join(path.dirname(bundleOf(functionIdOfEntry(entry))), WEB_ASSETS_DIR);
      for (const name of WEB_ASSET_NAMES) expect(existsSync(path.join(folder, name)), `${folder}/${name}`).toBe(true);
      expect(readFileSync(path.join(folder, 'subject.html'), 'utf8')).toMatch(/<html/i);
    }
  });

  it(`are each under ${BUNDLE_LIMIT_BYTES} bytes, the certificate function's files together within ${CERTIFICATE_BUNDLE_BUDGET_BYTES}`, () => {
    const sizes: Record<string, number> = {};
    for (const { name, functionId } of bundles()) {
      const file = bundleOf(functionId);
      expect(existsSync(file), file).toBe(true);
      sizes[name] = statSync(file).size;
      expect(sizes[name], name).toBeLessThan(BUNDLE_LIMIT_BYTES);
    }
    console.info('bundle sizes (bytes):', sizes);
    const certificateFiles = codeFilesOf(functionIdOf(signingRoutes()[0]!));
    expect(certificateFiles.reduce((sum, file) => sum + statSync(file).size, 0)).toBeLessThanOrEqual(CERTIFICATE_BUNDLE_BUDGET_BYTES);
  });

  it('carry the PDF renderer in the certificate function only, in a file of its asset that index.mjs imports only when a PDF is asked for', () => {
    const certificateFunction = functionIdOf(signingRoutes()[0]!);
    for (const { name, functionId } of bundles()) {
      expect(readFileSync(bundleOf(functionId), 'utf8').includes('PDFKit'), name).toBe(false);
      const carriers = codeFilesOf(functionId).filter((file) => readFileSync(file, 'utf8').includes('PDFKit'));
      expect(carriers.length > 0, name).toBe(functionId === certificateFunction);
    }
    const index = readFileSync(bundleOf(certificateFunction), 'utf8');
    const renderer = [...index.matchAll(/\bimport\("\.\/([^"]+\.mjs)"\)/g)].map((match) => match[1]);
    expect(renderer).toHaveLength(1);
    expect(readFileSync(path.join(path.dirname(bundleOf(certificateFunction)), renderer[0]!), 'utf8')).toContain('PDFKit');
  });

  it("import exactly the AWS SDK clients their role lets them call, as lib/function-clients.ts declares them", () => {
    for (const { name, entry, functionId } of bundles()) {
      const granted = clientsOfRole(functionId);
      expect({ bundle: sdkImportsOf(functionId), declared: sdkClientsOfEntry(entry) }, name).toEqual({ bundle: granted, declared: granted });
    }
  });

  it('MAC with the code key (six-digit codes, a secret body\'s Idempotency-Key fingerprint) exactly in the functions given it: the code for it, its wiring and CODE_HASH_ROUTES agree', () => {
    const seen = entries().map((entry) => {
      const code = readFileSync(bundleOf(functionIdOfEntry(entry)), 'utf8');
      return {
        routes: rowsOf(entry).map((route) => route.name).join('+'),
        // The prefix of every keyed code hash (lambdas/core/codes.ts): the code can hash or check a code;
        // or of a keyed fingerprint (middleware/idempotency.ts): it fingerprints a body holding a secret.
        hashesCodes: code.includes(KEYED_CODE_PREFIX) || code.includes(KEYED_FINGERPRINT_PREFIX.trim()),
        // What the deployed code key reads (lambdas/deployed/kms-code-key.ts): the handler wires the key.
        wiresTheKey: code.includes("'CODE_HASH_KEY_ID'") || code.includes('"CODE_HASH_KEY_ID"'),
        listed: rowsOf(entry).some((route) => CODE_HASH_ROUTES.includes(route.name)),
      };
    });
    expect(seen.filter((bundle) => bundle.hashesCodes).map((bundle) => bundle.routes)).toEqual(expect.arrayContaining(['createRequest', 'appConnectHelpdesk', 'appConfigureIntegration']));
    for (const bundle of seen) expect(bundle, bundle.routes).toEqual({ ...bundle, wiresTheKey: bundle.hashesCodes, listed: bundle.hashesCodes });
  });

  it('start with the createRequire banner and leave the AWS SDK to the runtime', () => {
    for (const { name, functionId } of bundles()) {
      const code = readFileSync(bundleOf(functionId), 'utf8');
      expect(code.split('\n')[0], name).toMatch(/^import \{ createRequire as \w+ \} from 'module'; const require = \w+\(import\.meta\.url\);$/);
      expect(code, name).not.toMatch(/node_modules\/@aws-sdk\//);
    }
  });

  it('load as ES modules exporting a handler', () => {
    // The SDK is external, as in Lambda, where the runtime provides it: resolve it from the repo.
    const modules = path.join(outdir, 'node_modules');
    if (!existsSync(modules)) {
      // The assembly is the run's (synthesised-stack.ts): a test file in another process may have made the link first.
      try {
        symlinkSync(path.join(REPO_ROOT, 'node_modules'), modules, 'dir');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
    // One Node process imports them all, one after another: each bundle is self-contained but for
    // the SDK, so a process of its own would prove nothing more, and 92 of them take 20 seconds.
    const files = Object.fromEntries(bundles().map(({ name, functionId }) => [name, bundleOf(functionId)]));
    const script = `const kinds = {}; for (const [name, file] of Object.entries(${JSON.stringify(files)})) kinds[name] = typeof (await import(file)).handler; process.stdout.write(JSON.stringify(kinds));`;
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      env: { PATH: process.env.PATH, AWS_REGION: 'eu-west-2' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(JSON.parse(output)).toEqual(Object.fromEntries(Object.keys(files).map((name) => [name, 'function'])));
  }, 120_000);
});

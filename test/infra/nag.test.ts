import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App, CfnResource, Stack, Validations } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks, NagPack, ServerlessChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HandoffStack } from '../../lib/handoff-stack.ts';

/**
 * cdk-nag's AwsSolutions and Serverless packs over the whole stack, with every optional part on
 * (custom domain, alarm email). What the stack keeps on purpose is acknowledged in
 * lib/nag-suppressions.ts; anything else fails here, listed by rule, resource and reason. One
 * synth (bundling skipped: the rules read the template, not the code) shared by every test.
 */

const SYNTH_TIMEOUT = 180_000;

interface Finding {
  severity: string;
  rule: string;
  path: string;
  reason: string;
}

interface Acknowledgment {
  /** Path of the construct it is recorded on. */
  path: string;
  id: string;
  reason: string;
}

let outdir: string;
let app: App;
let stack: HandoffStack;
let findings: Finding[];
/** Which acknowledgments a finding was actually waived by: `resource path|finding id`. */
const waived = new Set<string>();

const runPacks = (scope: IConstruct): Finding[] =>
  [new AwsSolutionsChecks(), new ServerlessChecks()].flatMap((pack) =>
    pack.validateScope(scope).violations.flatMap((violation) =>
      violation.violatingResources.map((resource) => ({
        severity: violation.severity ?? 'error',
        rule: violation.ruleName,
        path: resource.constructPath ?? '?',
        reason: violation.description,
      })),
    ),
  );

/**
 * Records each waiver as cdk-nag decides it, so an acknowledgment that no longer waives anything
 * shows up. NagPack keeps the check private; it is wrapped, not replaced.
 */
const recordWaivers = () => {
  const prototype = NagPack.prototype as unknown as { isAcknowledged?: (resource: CfnResource, ruleId: string) => boolean };
  const original = prototype.isAcknowledged;
  if (typeof original !== 'function') throw new Error('cdk-nag no longer has NagPack.isAcknowledged: update recordWaivers');
  prototype.isAcknowledged = function (this: NagPack, resource: CfnResource, ruleId: string) {
    const result = original.call(this, resource, ruleId);
    if (result) waived.add(`${resource.node.path}|${ruleId}`);
    return result;
  };
  return () => {
    prototype.isAcknowledged = original;
  };
};

const acknowledgmentsIn = (scope: IConstruct): Acknowledgment[] =>
  scope.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) =>
        Object.entries(entry.data as Record<string, string>).map(([id, reason]) => ({ path: construct.node.path, id: id.replace(/^annotation::/i, ''), reason })),
      ),
  );

const listing = (lines: string[]) => lines.map((line) => `  - ${line}`).join('\n');

beforeAll(() => {
  outdir = mkdtempSync(path.join(tmpdir(), 'handoff-nag-'));
  app = new App({
    outdir,
    context: {
      'aws:cdk:bundling-stacks': [],
      emailFrom: 'handoff@test.example',
      alarmEmail: 'oncall@test.example',
      domainName: 'api.handoff.example',
      certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/12345678-1234-1234-1234-123456789012',
    },
  });
  stack = new HandoffStack(app, 'NagCheck', { env: { account: '123456789012', region: 'eu-west-1' } });
  app.synth();
  const restore = recordWaivers();
  try {
    findings = runPacks(app);
  } finally {
    restore();
  }
}, SYNTH_TIMEOUT);

afterAll(() => {
  if (outdir) rmSync(outdir, { recursive: true, force: true });
});

describe('cdk-nag (AwsSolutions, Serverless)', () => {
  it('leaves no unsuppressed finding, error or warning', () => {
    const lines = findings.map((f) => `${f.severity} ${f.rule} at ${f.path}: ${f.reason}`);
    expect(lines, `${lines.length} unsuppressed cdk-nag findings (fix them, or acknowledge them in lib/nag-suppressions.ts):\n${listing(lines)}`).toEqual([]);
  });

  it('has a reason a reviewer can read for every acknowledgment, on the resource it concerns, never on the stack or app', () => {
    const acknowledgments = acknowledgmentsIn(app);
    expect(acknowledgments.length).toBeGreaterThan(100);
    const vague = acknowledgments.filter((a) => a.reason.trim().length < 40).map((a) => `${a.id} at ${a.path}: "${a.reason}"`);
    expect(vague, `acknowledgments without a real reason:\n${listing(vague)}`).toEqual([]);
    const broad = acknowledgments.filter((a) => a.path === stack.node.path || a.path === '').map((a) => `${a.id} at ${a.path || 'the app'}`);
    expect(broad, `acknowledgments on the whole stack:\n${listing(broad)}`).toEqual([]);
    // A wildcard finding is waived for one pattern at a time, never for the whole rule.
    const wholeRule = acknowledgments.filter((a) => /^AwsSolutions-IAM5$/.test(a.id)).map((a) => a.path);
    expect(wholeRule).toEqual([]);
  });

  it('has no stale acknowledgment: each one still waives a finding on a resource under it', () => {
    const stale = acknowledgmentsIn(app)
      .filter((a) => ![...waived].some((entry) => {
        const [resourcePath, id] = [entry.slice(0, entry.lastIndexOf('|')), entry.slice(entry.lastIndexOf('|') + 1)];
        return id === a.id && (resourcePath === a.path || resourcePath.startsWith(`${a.path}/`));
      }))
      .map((a) => `${a.id} at ${a.path}`);
    expect(stale, `acknowledgments that match no finding any more (remove them from lib/nag-suppressions.ts):\n${listing(stale)}`).toEqual([]);
  });

  it('acknowledges nothing on the queues that carry work (the delivery lanes, the ticket-check queue): they pass as configured, TLS only, encrypted, with a DLQ', () => {
    const queues = [stack.webhooks.deliveryQueue, stack.webhooks.slowDeliveryQueue, stack.helpdeskChecks.queue].map((queue) => queue.node.path);
    const onQueues = acknowledgmentsIn(app)
      .filter((a) => queues.some((queue) => a.path === queue || a.path.startsWith(`${queue}/`)))
      .map((a) => `${a.id} at ${a.path}`);
    expect(onQueues).toEqual([]);
  });

  it('would fail on a new finding: the same check reports an SQS queue that accepts plain HTTP', () => {
    const probeApp = new App();
    const probe = new Stack(probeApp, 'Probe');
    new sqs.Queue(probe, 'Plain', { enforceSSL: false });
    const rules = runPacks(probeApp).map((f) => `${f.rule} ${f.path}`);
    expect(rules).toContain('AwsSolutions-SQS4 Probe/Plain/Resource');
  });
});

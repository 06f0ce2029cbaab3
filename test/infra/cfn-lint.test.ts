import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../lib/api-functions.ts';

/**
 * cfn-lint (AWS CloudFormation Linter) over every template the CDK app writes, the nested stacks'
 * included: the app as `npx cdk synth -c emailFrom=handoff@example.com` runs it, and once more with
 * every optional part on (custom domain, alarm email, web application address, reserved
 * concurrency). No error may remain; a warning passes only if ALLOWED_WARNINGS lists it, by rule,
 * resource type and path, with the reason it is kept. One cfn-lint run for all templates (it takes
 * tens of seconds). Needs `cfn-lint` on PATH (`pip install cfn-lint`): without it the file is
 * skipped, except under CI=true, where it fails.
 */

const CFN_LINT = 'cfn-lint';
/** Regions the templates are checked against (resource types and properties differ by region); docs/deploying.md deploys to eu-west-2. */
const REGIONS = ['us-east-1', 'eu-west-2'];
const TIMEOUT = 600_000;

type Json = Record<string, any>;

interface Finding {
  Level: 'Error' | 'Warning' | 'Informational' | string;
  Rule: { Id: string; ShortDescription?: string };
  Message: string;
  Filename: string;
  Location: { Path?: (string | number)[]; Start: { LineNumber: number } };
}

interface AllowedWarning {
  rule: string;
  /** The type of the resource the finding's path is in. */
  resourceType: string;
  /** The finding's path, joined with '/' (Resources/<logical id>/...). */
  path: RegExp;
  message: RegExp;
  reason: string;
}

const ALLOWED_WARNINGS: readonly AllowedWarning[] = [
  {
    rule: 'W3005',
    resourceType: 'AWS::Lambda::Function',
    path: /^Resources\/[A-Za-z0-9]+\/DependsOn\/\d+$/,
    message: /^'[A-Za-z0-9]+' dependency already enforced by a 'GetAtt' at 'Resources\/[A-Za-z0-9]+\/Properties\/Role'$/,
    reason:
      "aws-cdk-lib's lambda.Function makes every function DependsOn its role and the role's policy, so that the policy exists before the function can run; the role half duplicates the function's GetAtt of the role's ARN. A redundant edge in the deploy order, written by the CDK, not by lib/.",
  },
];

const cfnLintVersion = (): string | undefined => {
  const result = spawnSync(CFN_LINT, ['--version'], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : undefined;
};

const version = cfnLintVersion();
const required = process.env.CI === 'true';
if (!version && !required) console.warn(`${CFN_LINT} is not on PATH: test/infra/cfn-lint.test.ts is skipped (pip install cfn-lint)`);

/** What `cdk synth` gives the app: cdk.json's context, the CLI's defaults, and what the command line adds. */
const synthAsCli = (outdir: string, context: Record<string, unknown>) => {
  const cdkJson = JSON.parse(readFileSync(path.join(REPO_ROOT, 'cdk.json'), 'utf8')) as { context?: Record<string, unknown> };
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CDK_OUTDIR: outdir,
    CDK_CONTEXT_JSON: JSON.stringify({
      ...cdkJson.context,
      'aws:cdk:enable-path-metadata': true,
      'aws:cdk:enable-asset-metadata': true,
      'aws:cdk:version-reporting': true,
      // The templates are linted, not the code: bundling changes nothing in them but asset hashes.
      'aws:cdk:bundling-stacks': [],
      ...context,
    }),
  };
  // No credentials: the environment-agnostic template a synth without an AWS profile writes.
  delete env.CDK_DEFAULT_ACCOUNT;
  delete env.CDK_DEFAULT_REGION;
  execFileSync(path.join(REPO_ROOT, 'node_modules', '.bin', 'tsx'), [path.join(REPO_ROOT, 'bin', 'handoff.ts')], { cwd: REPO_ROOT, env, stdio: 'pipe', timeout: 300_000 });
  return readdirSync(outdir)
    .filter((name) => name.endsWith('.template.json'))
    .map((name) => path.join(outdir, name));
};

const outdirs: string[] = [];
const templates: string[] = [];
let findings: Finding[] = [];

const parsed = new Map<string, Json>();
const templateOf = (file: string) => {
  const resolved = path.resolve(file);
  if (!parsed.has(resolved)) parsed.set(resolved, JSON.parse(readFileSync(resolved, 'utf8')) as Json);
  return parsed.get(resolved)!;
};

/** The resource a finding's path points into, and that resource's type. */
const resourceOf = (finding: Finding) => {
  const [section, logicalId] = finding.Location.Path ?? [];
  if (section !== 'Resources' || typeof logicalId !== 'string') return undefined;
  return { logicalId, type: templateOf(finding.Filename).Resources?.[logicalId]?.Type as string | undefined };
};

const allowanceFor = (finding: Finding) =>
  ALLOWED_WARNINGS.find(
    (allowed) =>
      allowed.rule === finding.Rule.Id &&
      allowed.path.test((finding.Location.Path ?? []).join('/')) &&
      allowed.message.test(finding.Message) &&
      resourceOf(finding)?.type === allowed.resourceType,
  );

const describeFinding = (finding: Finding) =>
  `${finding.Level} ${finding.Rule.Id} ${path.basename(finding.Filename)}:${finding.Location.Start.LineNumber} ${(finding.Location.Path ?? []).join('/')}: ${finding.Message}`;

describe.skipIf(!version && !required)('cfn-lint', () => {
  beforeAll(() => {
    if (!version) throw new Error(`${CFN_LINT} is not on PATH, and CI=true requires it: pip install cfn-lint`);
    const variants: Record<string, Record<string, unknown>> = {
      default: { emailFrom: 'handoff@example.com' },
      everything: {
        emailFrom: 'handoff@example.com',
        appUrl: 'https://handoff.example.com',
        domainName: 'api.handoff.example.com',
        certificateArn: 'arn:aws:acm:eu-west-2:123456789012:certificate/12345678-1234-1234-1234-123456789012',
        alarmEmail: 'oncall@example.com',
        reservedConcurrency: 'on',
      },
    };
    for (const [name, context] of Object.entries(variants)) {
      const outdir = mkdtempSync(path.join(tmpdir(), `handoff-cfn-lint-${name}-`));
      outdirs.push(outdir);
      templates.push(...synthAsCli(outdir, context));
    }
    const run = spawnSync(CFN_LINT, ['--format', 'json', '--regions', ...REGIONS, '--', ...templates], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: TIMEOUT });
    if (run.error) throw run.error;
    // Its exit status is a bit mask of the levels found; the findings themselves are on stdout.
    try {
      findings = JSON.parse(run.stdout) as Finding[];
    } catch {
      throw new Error(`${CFN_LINT} exited ${run.status} without a JSON report:\n${run.stderr}\n${run.stdout.slice(0, 2000)}`);
    }
  }, TIMEOUT);

  afterAll(() => {
    for (const outdir of outdirs) rmSync(outdir, { recursive: true, force: true });
  });

  it('lints the main template and each nested one of both synths', () => {
    const names = templates.map((file) => path.basename(file));
    expect(names.filter((name) => name.endsWith('.nested.template.json'))).toHaveLength(4);
    expect(names.filter((name) => !name.endsWith('.nested.template.json'))).toHaveLength(2);
    console.info(`${version}: ${templates.length} templates, ${findings.length} findings`);
  });

  it('finds no error', () => {
    expect(findings.filter((finding) => finding.Level === 'Error').map(describeFinding)).toEqual([]);
  });

  it('finds no warning that is not listed, with its reason, in ALLOWED_WARNINGS', () => {
    expect(findings.filter((finding) => finding.Level === 'Warning' && !allowanceFor(finding)).map(describeFinding)).toEqual([]);
  });

  it('lists no allowance that no warning needs any more', () => {
    const used = new Set(findings.map(allowanceFor).filter((allowed) => allowed !== undefined));
    expect(ALLOWED_WARNINGS.filter((allowed) => !used.has(allowed)).map(({ rule, path: p }) => `${rule} ${p}`)).toEqual([]);
  });
});

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ContextError } from '../../lib/context-error.ts';
import { HandoffStack } from '../../lib/handoff-stack.ts';
import { flatTemplate } from '../support/flat-template.ts';
import { SYNTH_TIMEOUT } from '../support/synthesised-stack.ts';
import { type Json, dataEntries } from '../support/stack-template.ts';

/** The repository's root, where the CDK app runs. */
const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

/** The context settings: each test synthesises stacks of its own, unbundled, with other contexts. */

describe('context', () => {
  /** Bundling skipped: only the template matters here. */
  const synth = (context: Record<string, unknown>) => {
    const app = new App({ outdir: mkdtempSync(path.join(tmpdir(), 'handoff-infra-ctx-')), context: { 'aws:cdk:bundling-stacks': [], emailFrom: 'links@mail.example.org', ...context } });
    try {
      return flatTemplate(new HandoffStack(app, 'HandoffContext'));
    } finally {
      rmSync(app.outdir, { recursive: true, force: true });
    }
  };

  it('sets APP_URL and the sender from context', () => {
    const t = synth({ appUrl: 'https://handoff.example.org/', emailFrom: 'links@mail.example.org' });
    const json = t.toJSON().Resources as Record<string, Json>;
    const functions = Object.values(json).filter((r) => r.Type === 'AWS::Lambda::Function');
    // The API read recorder has the table name and nothing of the application (api-read-records.test.ts).
    const apiFunctions = functions.filter((fn) => fn.Properties.Environment.Variables.APP_URL);
    expect(apiFunctions).toHaveLength(dataEntries().length + 8); // and the expiry and purge workers, the sweep, the three webhook workers, the ticket check worker and the reconciliation
    for (const fn of apiFunctions) {
      expect(fn.Properties.Environment.Variables).toMatchObject({
        APP_URL: 'https://handoff.example.org',
        EMAIL_FROM_ADDRESS: 'links@mail.example.org',
      });
    }
    t.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Condition: { StringEquals: { 'ses:FromAddress': 'links@mail.example.org' } } }),
        ]),
      },
    });
  }, SYNTH_TIMEOUT);

  it('reserves 20 executions for each of the expiry and purge workers and one for each sweep and the ticket reconciliation with -c reservedConcurrency=on: 43 in all', () => {
    const reservedOf = (t: Template) =>
      Object.fromEntries(
        Object.values(t.toJSON().Resources as Record<string, Json>)
          .filter((r) => r.Type === 'AWS::Lambda::Function' && r.Properties.ReservedConcurrentExecutions !== undefined)
          .map((fn) => [(fn.Properties.Description as string).split(':')[0], fn.Properties.ReservedConcurrentExecutions as number]),
      );
    const on = reservedOf(synth({ reservedConcurrency: 'on' }));
    // One reconciliation at a time.
    expect(on).toEqual({ 'expiry worker': 20, 'purge worker': 20, 'expiry sweep': 1, 'webhook delivery sweep': 1, 'ticket reconciliation': 1 });
    // Lambda keeps 100 of an account's executions unreserved: this needs a concurrency quota of at least 143 (docs/deploying.md).
    expect(Object.values(on).reduce((sum, n) => sum + n, 0)).toBe(43);
    expect(reservedOf(synth({ reservedConcurrency: true }))).toEqual(on);
    expect(reservedOf(synth({ reservedConcurrency: 'off' }))).toEqual({});
  }, SYNTH_TIMEOUT);

  it('keeps point-in-time recovery for -c pointInTimeRecoveryDays days, and tells the certificate function', () => {
    const periodOf = (t: Template) => {
      const json = t.toJSON().Resources as Record<string, Json>;
      const [table] = Object.values(json).filter((r) => r.Type === 'AWS::DynamoDB::Table' && r.Properties.StreamSpecification);
      const stated = Object.values(json)
        .filter((r) => r.Type === 'AWS::Lambda::Function' && r.Properties.Environment.Variables.POINT_IN_TIME_RECOVERY_DAYS !== undefined)
        .map((fn) => fn.Properties.Environment.Variables.POINT_IN_TIME_RECOVERY_DAYS);
      return { table: table!.Properties.PointInTimeRecoverySpecification, stated };
    };
    // One function issues every certificate (both kinds, API and app).
    expect(periodOf(synth({}))).toEqual({ table: { PointInTimeRecoveryEnabled: true, RecoveryPeriodInDays: 7 }, stated: ['7'] });
    expect(periodOf(synth({ pointInTimeRecoveryDays: '14' }))).toEqual({ table: { PointInTimeRecoveryEnabled: true, RecoveryPeriodInDays: 14 }, stated: ['14'] });
    // cdk.json may hold a number.
    expect(periodOf(synth({ pointInTimeRecoveryDays: 35 })).table.RecoveryPeriodInDays).toBe(35);
    expect(periodOf(synth({ pointInTimeRecoveryDays: '1' })).stated).toEqual(['1']);
  }, SYNTH_TIMEOUT);

  it('refuses a pointInTimeRecoveryDays setting that is not a whole number of days from 1 to 35', () => {
    for (const value of ['0', '36', 'seven', '7.5', '-1', 0, 36, 2.5, true]) {
      expect(() => synth({ pointInTimeRecoveryDays: value }), String(value)).toThrow(/pointInTimeRecoveryDays must be a whole number of days from 1 to 35 /);
    }
  }, SYNTH_TIMEOUT);

  it('refuses a reservedConcurrency setting other than on or off', () => {
    expect(() => synth({ reservedConcurrency: '42' })).toThrow(/reservedConcurrency must be on or off/);
  }, SYNTH_TIMEOUT);

  it('refuses a sender that is not an email address, and an appUrl that is not https', () => {
    expect(() => synth({ emailFrom: 'not-an-address' })).toThrow(/emailFrom/);
    // No sender at all fails the synth with what to do, rather than deploying a service that sends nothing.
    expect(() => synth({ emailFrom: undefined })).toThrow(/emailFrom is required: .* -c emailFrom=/);
    expect(() => synth({ appUrl: 'http://handoff.example.org' })).toThrow(/appUrl/);
  }, SYNTH_TIMEOUT);

  it('the CDK app says what context is missing in one line, with no stack trace', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'bin/handoff.ts'], { cwd: REPO_ROOT, encoding: 'utf8', env: { ...process.env, CDK_CONTEXT_JSON: '{}' } });
    expect(run.status).toBe(1);
    expect(run.stderr.trim()).toMatch(/^Error: emailFrom is required: .* -c emailFrom=\S+$/);
    expect(run.stderr).not.toMatch(/^\s+at /m);
  }, SYNTH_TIMEOUT);

  it('names the malformed setting, each a one-line context error: alarmEmail and pointInTimeRecoveryDays as emailFrom and appUrl', () => {
    expect(() => synth({ alarmEmail: 'oncall' })).toThrow(ContextError);
    expect(() => synth({ alarmEmail: 'oncall' })).toThrow(/^alarmEmail is not an email address: oncall$/);
    expect(() => synth({ pointInTimeRecoveryDays: 'a week' })).toThrow(ContextError);
  }, SYNTH_TIMEOUT);
});

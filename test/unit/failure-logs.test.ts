import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '@aws-lambda-powertools/logger';
import { describe, expect, it, vi } from 'vitest';
import { FAILURE_LOG_MESSAGES, LINK_DELIVERY_FAILED, scheduleFailedMessage, SIGN_IN_EMAIL_FAILED } from '../../lambdas/failure-logs.ts';
import { memberDeps } from '../../lambdas/http/app/member-deps.ts';
import { ticketDeps } from '../../lambdas/http/ticket-deps.ts';
import { createAppDeps } from '../../lambdas/wiring.ts';

/**
 * The failures the stack alarms on by log message (lib/operations.ts) are logged with exactly the
 * constants of lambdas/failure-logs.ts, which the metric filters are built from: a reworded
 * message cannot silently stop its alarm.
 */

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const capturingLogger = () => {
  const logger = { error: vi.fn(), warn: vi.fn(), info: vi.fn(), debug: vi.fn() };
  return logger as typeof logger & Logger;
};

const failing = async () => {
  throw Object.assign(new Error('denied'), { name: 'AccessDeniedException' });
};

const depsWith = (logger: Logger) =>
  createAppDeps({
    tableName: 'failure-logs',
    urls: { baseUrl: 'https://handoff.test/v1', appUrl: 'https://handoff.test' },
    notifier: { sendEmail: failing, sendSms: failing } as never,
    scheduler: { schedule: failing, cancel: failing },
    purgeScheduler: { schedule: failing, cancel: failing },
    logger,
  });

describe('the logged failures', () => {
  it('a failed expiry or purge schedule, armed or cancelled, is logged with its kind\'s constant and passed on', async () => {
    const logger = capturingLogger();
    const deps = depsWith(logger);
    await expect(deps.scheduler.schedule('req_1', '2030-01-01T00:00:00.000Z')).rejects.toThrow('denied');
    await expect(deps.purgeScheduler.cancel('req_2')).rejects.toThrow('denied');
    expect(logger.warn.mock.calls.map(([message]) => message)).toEqual([scheduleFailedMessage('expire'), scheduleFailedMessage('purge')]);
    for (const [message] of logger.warn.mock.calls) expect(FAILURE_LOG_MESSAGES.schedule).toContain(message);
  });

  it('a link not delivered (the ticket routes) and a sign-in email not sent (the member app) log their constants', () => {
    const logger = capturingLogger();
    const deps = depsWith(logger);
    ticketDeps(deps).onDeliveryFailure(new Error('ses'), 'req_1');
    memberDeps(deps).onDeliveryFailure(new Error('ses'));
    expect(logger.error.mock.calls.map(([message]) => message)).toEqual([LINK_DELIVERY_FAILED, SIGN_IN_EMAIL_FAILED]);
  });

  it('no module of lambdas/ spells one of the messages out: each call site logs the constant', () => {
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const full = join(dir, name);
        return statSync(full).isDirectory() ? files(full) : full.endsWith('.ts') ? [full] : [];
      });
    const messages = Object.values(FAILURE_LOG_MESSAGES).flat();
    const spelt = files(join(REPO_ROOT, 'lambdas'))
      .filter((file) => !file.endsWith('failure-logs.ts'))
      .flatMap((file) => {
        const text = readFileSync(file, 'utf8');
        return [...messages, 'schedule failed; the sweep'].filter((message) => text.includes(message)).map((message) => `${relative(REPO_ROOT, file)}: ${message}`);
      });
    expect(spelt).toEqual([]);
    // The two create-request handlers log a failed link delivery through the constant.
    for (const file of ['lambdas/http/handlers/create-request.ts', 'lambdas/http/app/create-request.ts']) {
      expect(readFileSync(join(REPO_ROOT, file), 'utf8'), file).toMatch(/logger\.error\(LINK_DELIVERY_FAILED,/);
    }
  });
});

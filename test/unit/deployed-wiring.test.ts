/**
 * The deployed wiring (lambdas/wiring.ts `wiring`): a handler names the AWS services it calls
 * besides DynamoDB, each from a module of lambdas/deployed/ (bundle-budget.test.ts holds every
 * bundle to exactly those clients). A named service is used, built from the function's
 * environment; one left out fails when called, as the missing right would, and the caller reports
 * it as it reports any failed send or schedule.
 */
import { SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sesEmail } from '../../lambdas/deployed/ses-email.ts';
import { wiring } from '../../lambdas/wiring.ts';

const ses = mockClient(SESv2Client);
const ENVIRONMENT = {
  TABLE_NAME: 'deployed-wiring',
  RATE_TABLE_NAME: 'deployed-wiring-rates',
  BASE_URL: 'https://api.handoff.test',
  APP_URL: 'https://handoff.test',
  EMAIL_FROM_ADDRESS: 'links@handoff.test',
  AWS_REGION: 'eu-west-2',
  AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'not-a-real-secret',
  // The refused schedules are logged as warnings (failure-logs.test.ts covers those lines).
  LOG_LEVEL: 'ERROR',
};
const saved = Object.fromEntries(Object.keys(ENVIRONMENT).map((name) => [name, process.env[name]]));

beforeAll(() => Object.assign(process.env, ENVIRONMENT));
afterAll(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  ses.restore();
});

/** As a function that sends email and calls nothing else besides DynamoDB is wired (built once per cold start). */
const emailOnly = () => wiring(sesEmail());

describe('the deployed wiring of a function that sends email and nothing else', () => {
  it('sends email through SES from EMAIL_FROM_ADDRESS', async () => {
    ses.on(SendEmailCommand).resolves({ MessageId: 'm-1' });
    await emailOnly().notifier.sendEmail({ id: 'dlv_1', purpose: 'sign_in', to: 'member@customer.test', subject: 'Sign in', text: 'https://handoff.test/app' });
    expect(ses.commandCalls(SendEmailCommand).map((call) => call.args[0].input.FromEmailAddress)).toEqual(['links@handoff.test']);
  });

  it('refuses the services it was not wired with: SMS, schedules, sealing, code hashing', async () => {
    const deps = emailOnly();
    await expect(deps.notifier.sendSms({ id: 'dlv_2', purpose: 'request_link', to: '+447700900123', text: 't' })).rejects.toThrow('this function does not send SMS');
    await expect(deps.scheduler.schedule('01JREQUEST', '2030-01-01T00:00:00Z')).rejects.toThrow('this function does not arm schedules');
    await expect(deps.purgeScheduler.cancel('01JREQUEST')).rejects.toThrow('this function does not cancel schedules');
    await expect(deps.sealer.seal('secret', { orgId: 'org_1' })).rejects.toThrow('no secret sealer is configured');
    await expect(deps.codeKey.mac('123456')).rejects.toThrow('no code key is configured');
  });
});

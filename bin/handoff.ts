import { App } from 'aws-cdk-lib';
import { ContextError } from '../lib/context-error.ts';
import { HandoffStack } from '../lib/handoff-stack.ts';

/**
 * The CDK app (`npx cdk synth` / `cdk deploy`). Context: `appUrl` (the web application's address,
 * default the API endpoint) and `emailFrom` (sender of link emails, required: synth fails without
 * it), e.g. `cdk deploy -c appUrl=https://handoff.example.com -c emailFrom=...`. Optional: `domainName`
 * and `certificateArn` together (an ACM certificate in the stack's region) put the API on its own
 * host name and turn the execute-api endpoint off; `alarmEmail` subscribes an address to the alarms;
 * `reservedConcurrency=on` reserves 43 executions for the expiry and purge workers and the sweeps
 * (the account's Lambda concurrency quota must then be at least 143; default off);
 * `memberRoutes=off` holds the member application's routes back, for the first step of the upgrade
 * that moved them into nested stacks (docs/deploying.md).
 * Account and region come from the CLI's environment when it has them; otherwise the template
 * stays environment-agnostic and deploys to any region.
 */
const app = new App();

try {
  new HandoffStack(app, 'CredentialHandoff', {
    description: 'Credential Handoff Service: HTTP API, one function per route, one DynamoDB table',
    env: {
      account: process.env.CDK_DEFAULT_ACCOUNT,
      region: process.env.CDK_DEFAULT_REGION,
    },
  });
} catch (error) {
  if (!(error instanceof ContextError)) throw error;
  console.error(`Error: ${error.message}`);
  process.exit(1);
}

app.synth();

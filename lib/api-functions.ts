import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { FALLBACK_ENTRY, ROUTES, routeList, type Route } from '../lambdas/http/routes.ts';

/** The repository root: route entries are relative to it, and it holds package-lock.json. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export const SERVICE_NAME = 'credential-handoff';

/**
 * esbuild, run locally (a devDependency; never Docker), producing one minified ES module per
 * handler that holds all of its code and dependencies except the AWS SDK.
 *
 * The AWS SDK v3 is NOT bundled: `@aws-sdk/*` (and `@smithy/*`, which only the SDK pulls in) is
 * left to the copy the nodejs22.x runtime ships. Bundling it pushed the create-request and
 * generate functions past 1 MB each (about 1.08 MB minified, against about 0.65 MB without the
 * SDK), a bigger upload and slower cold start for code the runtime already provides. The price: the deployed functions run the runtime's
 * SDK version, not the one pinned in package-lock.json, which local runs and tests use; we only
 * call long-stable operations (DynamoDB document client, SESv2 SendEmail, SNS Publish).
 *
 * The banner gives CommonJS dependencies a working `require` inside the ES module output (esbuild's
 * shim throws "Dynamic require ... is not supported" otherwise). `createRequire` is imported
 * under a private name so it cannot clash with a bundled module importing the same binding.
 */
export const BUNDLING: BundlingOptions = {
  forceDockerBundling: false,
  format: OutputFormat.ESM,
  target: 'node22',
  mainFields: ['module', 'main'],
  minify: true,
  sourceMap: false,
  logLevel: LogLevel.WARNING,
  externalModules: ['@aws-sdk/*', '@smithy/*'],
  banner:
    "import { createRequire as __handoffCreateRequire } from 'module'; const require = __handoffCreateRequire(import.meta.url);",
};

export interface ApiFunctionsProps {
  httpApi: apigwv2.IHttpApi;
  table: dynamodb.ITable;
  /** BASE_URL, APP_URL and EMAIL_FROM_ADDRESS, as the API functions' wiring reads them. */
  appEnvironment: {
    BASE_URL: string;
    APP_URL: string;
    EMAIL_FROM_ADDRESS: string;
  };
  /** How long function logs are kept. */
  logRetention?: logs.RetentionDays;
}

/**
 * One Lambda function and one HTTP API route per row of the route table
 * (lambdas/http/routes.ts), plus the fallback function on the `$default` route.
 *
 * Grants, least privilege:
 * - every API function reads AND writes the table: each call writes rate-limit counters, each
 *   POST an idempotency record, and a refused call (an IP allowlist refusal, even on GET) writes an
 *   audit entry. `grantReadWriteData` gives item-level actions on the table and its indexes only,
 *   never table administration (no DeleteTable, UpdateTable, `dynamodb:*`);
 * - only createRequest may send email (SES) and SMS (SNS), which deliver the link;
 * - the fallback function touches nothing: no table, no environment beyond logging.
 */
export class ApiFunctions extends Construct {
  /** Route name (ROUTES key) to its function. */
  readonly byRoute: ReadonlyMap<string, NodejsFunction>;
  readonly fallback: NodejsFunction;

  constructor(scope: Construct, id: string, props: ApiFunctionsProps) {
    super(scope, id);
    const retention = props.logRetention ?? logs.RetentionDays.ONE_MONTH;
    const byRoute = new Map<string, NodejsFunction>();

    for (const route of routeList()) {
      const part = new Construct(this, pascalCase(route.name));
      const fn = handlerFunction(part, {
        entry: route.entry,
        description: `${route.method} ${route.path}`,
        retention,
        environment: {
          TABLE_NAME: props.table.tableName,
          ...props.appEnvironment,
          ...loggingEnvironment,
        },
      });
      props.table.grantReadWriteData(fn);
      if (route.name === ROUTES.createRequest.name) grantLinkDelivery(fn, props.appEnvironment.EMAIL_FROM_ADDRESS);

      new apigwv2.HttpRoute(part, 'Route', {
        httpApi: props.httpApi,
        routeKey: apigwv2.HttpRouteKey.with(route.path, httpMethod(route)),
        integration: new HttpLambdaIntegration('Integration', fn),
      });
      byRoute.set(route.name, fn);
    }

    const fallbackPart = new Construct(this, 'Fallback');
    this.fallback = handlerFunction(fallbackPart, {
      entry: FALLBACK_ENTRY,
      description: 'unmatched routes: 404, or 405 with Allow',
      retention,
      environment: { ...loggingEnvironment },
    });
    new apigwv2.HttpRoute(fallbackPart, 'Route', {
      httpApi: props.httpApi,
      routeKey: apigwv2.HttpRouteKey.DEFAULT,
      integration: new HttpLambdaIntegration('Integration', this.fallback),
    });

    this.byRoute = byRoute;
  }
}

const loggingEnvironment = { LOG_LEVEL: 'INFO', POWERTOOLS_SERVICE_NAME: SERVICE_NAME };

interface HandlerFunctionOptions {
  entry: string;
  description: string;
  retention: logs.RetentionDays;
  environment: Record<string, string>;
}

/**
 * A function with its own log group (explicit retention), JSON log format and its own role. The
 * role is built here rather than by NodejsFunction, which would attach the AWS managed
 * AWSLambdaBasicExecutionRole (logs:CreateLogGroup, CreateLogStream and PutLogEvents on every log
 * group of the account): this role may only write streams into its own log group.
 */
const handlerFunction = (scope: Construct, options: HandlerFunctionOptions) => {
  const logGroup = new logs.LogGroup(scope, 'LogGroup', {
    retention: options.retention,
    // Kept after a stack deletion for forensics; the retention still empties it.
    removalPolicy: RemovalPolicy.RETAIN,
  });
  const role = new iam.Role(scope, 'Role', {
    assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    description: `Runs ${options.description}`,
  });
  logGroup.grantWrite(role);
  return new NodejsFunction(scope, 'Function', {
    role,
    entry: path.join(REPO_ROOT, options.entry),
    handler: 'handler',
    projectRoot: REPO_ROOT,
    depsLockFilePath: path.join(REPO_ROOT, 'package-lock.json'),
    runtime: lambda.Runtime.NODEJS_22_X,
    architecture: lambda.Architecture.ARM_64,
    memorySize: 256,
    // API Gateway gives up after 30 s; a call that takes 10 s is already broken.
    timeout: Duration.seconds(10),
    description: options.description,
    environment: options.environment,
    loggingFormat: lambda.LoggingFormat.JSON,
    applicationLogLevelV2: lambda.ApplicationLogLevel.INFO,
    logGroup,
    bundling: BUNDLING,
  });
};

/**
 * Link delivery for createRequest: SES email and SNS SMS.
 *
 * SES: the resource is every identity of this account and region (`identity/*`), and the
 * `ses:FromAddress` condition pins the sender to EMAIL_FROM_ADDRESS. Naming only the sender's
 * domain and address identities would break in the SES sandbox, where SES also authorises the
 * (verified) recipient identities against the caller's policy; the condition keeps the function
 * from sending as anyone else either way.
 *
 * SNS: publishing an SMS straight to a phone number has no resource to scope to (no topic, no ARN),
 * so SNS requires resource '*' for it. This function never publishes to a topic.
 */
const grantLinkDelivery = (fn: lambda.IFunction, fromAddress: string) => {
  fn.addToRolePolicy(
    new iam.PolicyStatement({
      sid: 'SendLinkEmail',
      actions: ['ses:SendEmail', 'ses:SendRawEmail'],
      resources: [Stack.of(fn).formatArn({ service: 'ses', resource: 'identity', resourceName: '*' })],
      conditions: { StringEquals: { 'ses:FromAddress': fromAddress } },
    }),
  );
  fn.addToRolePolicy(
    new iam.PolicyStatement({
      sid: 'SendLinkSms',
      actions: ['sns:Publish'],
      resources: ['*'],
    }),
  );
};

const httpMethod = (route: Route): apigwv2.HttpMethod => {
  const method = apigwv2.HttpMethod[route.method];
  if (!method) throw new Error(`route ${route.name}: unsupported method ${route.method}`);
  return method;
};

const pascalCase = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, NestedStack, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { FALLBACK_ENTRY, routeList, type Route } from '../lambdas/http/routes.ts';
import { WEBHOOK_SIGNING_PURPOSE } from '../lambdas/core/webhooks.ts';
import { tableAccessOfEntry, touchesTable } from '../lambdas/access/table-access.ts';
import type { TableAccessGranter } from './table-access.ts';
import { HELPDESK_CREDENTIALS_PURPOSE, SEALED_SECRET_PURPOSE, type SealingPurpose } from './sealing.ts';
import type { FailureLogKind } from '../lambdas/failure-logs.ts';
import {
  SCHEDULING_ROUTES,
  SCHEDULE_CANCELLING_ROUTES,
  PURGE_SCHEDULING_ROUTES,
  TICKET_CHECK_ROUTES,
  TICKET_REPLY_ROUTES,
  HELPDESK_SEALING_ROUTES,
  HELPDESK_OPENING_ROUTES,
  SEALED_SECRET_ROUTES,
  WEBHOOK_SEALING_ROUTES,
  INTEGRATION_SEALING_ROUTES,
  CODE_HASH_ROUTES,
  SIGNING_ROUTES,
  KEY_PUBLISHING_ROUTES,
} from './route-rights.ts';
/** The route lists that decide each API function's rights and environment. */
export * from './route-rights.ts';

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
  /** Each function's table rights, from its routes' declarations (lambdas/access/table-access.ts). */
  tableAccess: TableAccessGranter;
  /** BASE_URL, APP_URL and EMAIL_FROM_ADDRESS, as the API functions' wiring reads them. */
  appEnvironment: AppEnvironment;
  /** Expiry scheduling: the functions of SCHEDULING_ROUTES get its rights and settings (and PURGE_SCHEDULING_ROUTES the purge's). */
  expiry: ExpiryScheduling;
  /** The key that seals secrets: SEALED_SECRET_ROUTES may open integration secrets, INTEGRATION_SEALING_ROUTES seal them, WEBHOOK_SEALING_ROUTES seal webhook secrets. */
  sealing: {
    readonly environment: Readonly<Record<string, string>>;
    grantOpen(fn: lambda.IFunction, purpose?: SealingPurpose): void;
    grantSeal(fn: lambda.IFunction, purpose: SealingPurpose): void;
  };
  /** The ticket-check queue: the functions of TICKET_CHECK_ROUTES may send to it. */
  ticketChecks: { grantQueue(fn: lambda.Function): void; grantReplies(fn: lambda.Function): void };
  /** The key the six-digit codes are hashed with: the functions of CODE_HASH_ROUTES may use it. */
  codeKey: { readonly environment: Readonly<Record<string, string>>; grantMac(fn: lambda.IFunction): void };
  /** The certificate signing keys: SIGNING_ROUTES may sign, KEY_PUBLISHING_ROUTES read public keys. */
  signing: {
    readonly environment: Readonly<Record<string, string>>;
    grantSign(fn: lambda.IFunction): void;
    grantReadPublicKeys(fn: lambda.IFunction): void;
  };
  /** The table's point-in-time recovery period (POINT_IN_TIME_RECOVERY_DAYS): SIGNING_ROUTES state it in every certificate. */
  tableBackups: { readonly environment: Readonly<Record<string, string>> };
  /** How long function logs are kept. */
  logRetention?: logs.RetentionDays;
  /**
   * Whether the nested stacks' functions get their routes (default true). Without them the
   * functions are deployed but unreachable: the first step of moving routes out of the main stack,
   * whose old routes must be deleted before routes with the same keys can be created.
   */
  nestedRoutes?: boolean;
}

export interface AppEnvironment {
  BASE_URL: string;
  APP_URL: string;
  EMAIL_FROM_ADDRESS: string;
  /** The rate windows' table (lambdas/store/table.ts). */
  RATE_TABLE_NAME: string;
}

/** What a function that arms or cancels request expiries needs (lib/expiry.ts provides it). */
export interface ExpiryScheduling {
  /** SCHEDULE_GROUP, SCHEDULER_ROLE_ARN and EXPIRY_FUNCTION_ARN, as lambdas/wiring.ts reads them. */
  readonly schedulingEnvironment: Readonly<Record<string, string>>;
  /** Create, update and delete expiry schedules in the group, and pass the scheduler role to Scheduler. */
  grantScheduling(fn: lambda.IFunction): void;
  /** Delete expiry schedules in the group, nothing more. */
  grantScheduleCancelling(fn: lambda.IFunction): void;
  /** PURGE_FUNCTION_ARN, for the functions that also arm or cancel grace-period purges. */
  readonly purgeSchedulingEnvironment: Readonly<Record<string, string>>;
  /** Create, update and delete purge-* schedules in the group. */
  grantPurgeScheduling(fn: lambda.IFunction): void;
}


/**
 * CloudFormation takes at most 500 resources in one stack, and each API function brings seven
 * (function, role, policy, log group, integration, route, invoke permission). The member
 * application's endpoints, most of the route table, are deployed in two nested stacks of their
 * own: what a member uses day to day, and the organisation's administration. The functions, their
 * rights and their routes on the one HTTP API are the same wherever they are deployed.
 */
export const MEMBER_API_STACK = 'MemberApi';
export const ADMIN_API_STACK = 'MemberAdminApi';
const ADMIN_PATH = /^\/app\/api\/(members|clients|teams|organisation|templates|presets|default-preset|webhooks|keys|integrations|audit)(\/|$)/;
export const nestedStackOfRoute = (route: Pick<Route, 'path'>): string | null =>
  route.path.startsWith('/app/api/') ? (ADMIN_PATH.test(route.path) ? ADMIN_API_STACK : MEMBER_API_STACK) : null;

/** Entries that serve the built pages: no table, no secrets, the web build beside the handler. */
export const isStaticEntry = (entry: string) => entry.startsWith('lambdas/http/static/');
/** Where the static function finds the built pages, relative to its task root (read by lambdas/http/static/serve.ts). */
export const WEB_ASSETS_DIR = 'assets';
/** The web build's CLI: `npx tsx web/build.ts <outdir>`. */
const WEB_BUILD_SCRIPT = 'web/build.ts';

/**
 * One Lambda function per distinct handler entry of the route table (lambdas/http/routes.ts) and
 * one HTTP API route per row, plus the fallback function on the `$default` route. Rows that share
 * an entry (the four page routes) share its function.
 *
 * Grants, least privilege:
 * - each function gets exactly the table rights its routes declare (lambdas/access/table-access.ts,
 *   the union for routes sharing a function): the item actions it uses on the partitions it
 *   touches, Query on the indexes it queries, the table key through DynamoDB; never Scan, never
 *   table administration. A route without a declaration fails the synth;
 * - a function may send email (SES) only if one of its rows `sends` 'email', SMS (SNS) only if
 *   one `sends` 'sms';
 * - only the SCHEDULING_ROUTES functions may manage expiry schedules and pass the scheduler role,
 *   and the SCHEDULE_CANCELLING_ROUTES functions delete them;
 * - the static (pages) function and the fallback function touch nothing: no table, no environment
 *   beyond logging (and, for the pages, where the built files are).
 */
export class ApiFunctions extends Construct {
  /** Route name (ROUTES key) to its function; rows that share an entry map to the same function. */
  readonly byRoute: ReadonlyMap<string, NodejsFunction>;
  /** Route key (`POST /app/api/sign-in`) to the route deployed for it, wherever it is deployed. */
  readonly routes: ReadonlyMap<string, apigwv2.HttpRoute>;
  readonly fallback: NodejsFunction;
  /**
   * The log groups of the functions that may log each tolerated failure (lambdas/failure-logs.ts):
   * a function whose rows send email or SMS may log a message not sent, one that arms or cancels
   * schedules a schedule not armed or cancelled.
   */
  readonly failureLogGroups: Readonly<Record<FailureLogKind, logs.ILogGroup[]>>;

  constructor(scope: Construct, id: string, props: ApiFunctionsProps) {
    super(scope, id);
    const retention = props.logRetention ?? logs.RetentionDays.ONE_MONTH;
    const byRoute = new Map<string, NodejsFunction>();
    const httpRoutes = new Map<string, apigwv2.HttpRoute>();
    const failureLogGroups: Record<FailureLogKind, logs.ILogGroup[]> = { delivery: [], schedule: [] };
    const routes = routeList();
    for (const [list, names] of Object.entries({ SCHEDULING_ROUTES, SCHEDULE_CANCELLING_ROUTES, PURGE_SCHEDULING_ROUTES, TICKET_CHECK_ROUTES, TICKET_REPLY_ROUTES, HELPDESK_SEALING_ROUTES, HELPDESK_OPENING_ROUTES, SEALED_SECRET_ROUTES, WEBHOOK_SEALING_ROUTES, INTEGRATION_SEALING_ROUTES, CODE_HASH_ROUTES, SIGNING_ROUTES, KEY_PUBLISHING_ROUTES })) {
      for (const name of names) {
        if (!routes.some((route) => route.name === name)) throw new Error(`${list} names ${name}, which is not in the route table`);
      }
    }

    const nestedStacks = new Map<string, NestedStack>();
    /** A function serving routes of the main stack too (the certificate function) stays in it. */
    const scopeOf = (group: EntryGroup): Construct => {
      const names = new Set(group.routes.map(nestedStackOfRoute));
      const name = names.size === 1 ? [...names][0] : null;
      if (!name) return this;
      if (!nestedStacks.has(name)) nestedStacks.set(name, new NestedStack(this, name, { description: `Credential handoff: ${name === ADMIN_API_STACK ? "the organisation's administration" : "the member application's"} endpoints` }));
      return nestedStacks.get(name)!;
    };

    for (const group of groupByEntry(routes)) {
      const isStatic = isStaticEntry(group.entry);
      const arms = group.routes.some((route) => SCHEDULING_ROUTES.includes(route.name));
      const schedules = arms || group.routes.some((route) => SCHEDULE_CANCELLING_ROUTES.includes(route.name));
      const purges = group.routes.some((route) => PURGE_SCHEDULING_ROUTES.includes(route.name));
      const opensSecrets = group.routes.some((route) => SEALED_SECRET_ROUTES.includes(route.name));
      const sealsWebhookSecrets = group.routes.some((route) => WEBHOOK_SEALING_ROUTES.includes(route.name));
      const sealsIntegrationSecrets = group.routes.some((route) => INTEGRATION_SEALING_ROUTES.includes(route.name));
      const sealsHelpdeskCredentials = group.routes.some((route) => HELPDESK_SEALING_ROUTES.includes(route.name));
      const opensHelpdeskCredentials = group.routes.some((route) => HELPDESK_OPENING_ROUTES.includes(route.name));
      const hashesCodes = group.routes.some((route) => CODE_HASH_ROUTES.includes(route.name));
      const signs = group.routes.some((route) => SIGNING_ROUTES.includes(route.name));
      const publishesKeys = group.routes.some((route) => KEY_PUBLISHING_ROUTES.includes(route.name));
      if (isStatic && schedules) throw new Error(`${group.entry}: a static entry cannot schedule expiries`);
      const sends = new Set(group.routes.flatMap((route) => route.sends ?? []));
      const scope = scopeOf(group);
      const part = new Construct(scope, group.id);
      const fn = handlerFunction(part, {
        entry: group.entry,
        description: group.routes.map(routeKeyOf).join(', '),
        retention,
        environment: isStatic
          ? { WEB_ASSETS_DIR, ...loggingEnvironment }
          : {
              TABLE_NAME: props.table.tableName,
              ...props.appEnvironment,
              ...(schedules ? props.expiry.schedulingEnvironment : {}),
              ...(purges ? props.expiry.purgeSchedulingEnvironment : {}),
              ...(opensSecrets || sealsWebhookSecrets || sealsIntegrationSecrets || sealsHelpdeskCredentials || opensHelpdeskCredentials ? props.sealing.environment : {}),
              ...(hashesCodes ? props.codeKey.environment : {}),
              ...(signs || publishesKeys ? props.signing.environment : {}),
              ...(signs ? props.tableBackups.environment : {}),
              ...loggingEnvironment,
            },
        bundling: isStatic ? staticBundling() : signs ? certificateBundling() : undefined,
        // Rendering a PDF is the heaviest work any API function does.
        memorySize: signs ? 512 : undefined,
      });
      const tableAccess = tableAccessOfEntry(group.entry);
      if (isStatic && touchesTable(tableAccess)) throw new Error(`${group.entry}: a static entry has no table, but its routes declare table access`);
      props.tableAccess.grantAccess(fn, tableAccess);
      if (sends.has('email')) grantEmail(fn, props.appEnvironment.EMAIL_FROM_ADDRESS);
      if (sends.has('sms')) grantSms(fn);
      if (arms) props.expiry.grantScheduling(fn);
      else if (schedules) props.expiry.grantScheduleCancelling(fn);
      if (purges) props.expiry.grantPurgeScheduling(fn);
      if (group.routes.some((route) => TICKET_CHECK_ROUTES.includes(route.name))) props.ticketChecks.grantQueue(fn);
      if (group.routes.some((route) => TICKET_REPLY_ROUTES.includes(route.name))) props.ticketChecks.grantReplies(fn);
      if (sealsHelpdeskCredentials) props.sealing.grantSeal(fn, HELPDESK_CREDENTIALS_PURPOSE);
      if (opensHelpdeskCredentials) props.sealing.grantOpen(fn, HELPDESK_CREDENTIALS_PURPOSE);
      if (opensSecrets) props.sealing.grantOpen(fn);
      if (sealsWebhookSecrets) props.sealing.grantSeal(fn, WEBHOOK_SIGNING_PURPOSE);
      if (sealsIntegrationSecrets) props.sealing.grantSeal(fn, SEALED_SECRET_PURPOSE);
      if (hashesCodes) props.codeKey.grantMac(fn);
      if (sends.size > 0) failureLogGroups.delivery.push(fn.logGroup);
      if (schedules || purges) failureLogGroups.schedule.push(fn.logGroup);
      if (signs) props.signing.grantSign(fn);
      else if (publishesKeys) props.signing.grantReadPublicKeys(fn);

      const routed = scope === this || props.nestedRoutes !== false;
      for (const route of group.routes) {
        byRoute.set(route.name, fn);
        if (!routed) continue;
        // A function of its own keeps the route id it always had; shared ones name each route.
        const httpRoute = new apigwv2.HttpRoute(part, group.routes.length === 1 ? 'Route' : `Route${pascalCase(route.name)}`, {
          httpApi: props.httpApi,
          routeKey: apigwv2.HttpRouteKey.with(route.path, httpMethod(route)),
          integration: new HttpLambdaIntegration(group.routes.length === 1 ? 'Integration' : `Integration${pascalCase(route.name)}`, fn),
        });
        httpRoutes.set(routeKeyOf(route), httpRoute);
      }
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
    this.routes = httpRoutes;
    this.failureLogGroups = failureLogGroups;
  }
}

interface EntryGroup {
  /** Construct id: the route's name for a function of its own (as before), else from the entry. */
  id: string;
  entry: string;
  routes: Route[];
}

/** The route table's rows grouped by handler entry, in table order. */
export const groupByEntry = (routes: Route[]): EntryGroup[] => {
  const groups = new Map<string, Route[]>();
  for (const route of routes) groups.set(route.entry, [...(groups.get(route.entry) ?? []), route]);
  return [...groups].map(([entry, grouped]) => ({
    id: grouped.length === 1 ? pascalCase(grouped[0]!.name) : entryId(entry),
    entry,
    routes: grouped,
  }));
};

/** `lambdas/http/static/serve.ts` → `HttpStaticServe`. */
const entryId = (entry: string) =>
  entry
    .replace(/^lambdas\//, '')
    .replace(/\.ts$/, '')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map(pascalCase)
    .join('');

export const routeKeyOf = (route: Pick<Route, 'method' | 'path'>) => `${route.method} ${route.path}`;

/**
 * The pages' bundling: the handler as usual, then the web build (subject page, member
 * application, styles) written into `assets/` beside it, where the handler reads it.
 */
const staticBundling = (): BundlingOptions => {
  if (!existsSync(path.join(REPO_ROOT, WEB_BUILD_SCRIPT))) throw new Error(`${WEB_BUILD_SCRIPT} is missing: the pages function cannot be built`);
  return {
    ...BUNDLING,
    commandHooks: {
      beforeBundling: () => [],
      beforeInstall: () => [],
      afterBundling: (inputDir: string, outputDir: string) => [
        `"${path.join(inputDir, 'node_modules', '.bin', 'tsx')}" "${path.join(inputDir, WEB_BUILD_SCRIPT)}" "${path.join(outputDir, WEB_ASSETS_DIR)}"`,
      ],
    },
  };
};

/** The certificate function's own build (code splitting, pdfkit's font engine left out): `tsx <script> <outdir>`. */
const CERTIFICATE_BUILD_SCRIPT = 'lib/certificate-bundle.ts';

/**
 * The certificate function: the usual bundle, then rebuilt by lib/certificate-bundle.ts into the
 * same folder, so the PDF renderer is a file of its own beside index.mjs that a JSON certificate
 * never loads (NodejsFunction's own esbuild run writes one file, and cannot split).
 */
const certificateBundling = (): BundlingOptions => ({
  ...BUNDLING,
  commandHooks: {
    beforeBundling: () => [],
    beforeInstall: () => [],
    afterBundling: (inputDir: string, outputDir: string) => [
      `"${path.join(inputDir, 'node_modules', '.bin', 'tsx')}" "${path.join(inputDir, CERTIFICATE_BUILD_SCRIPT)}" "${outputDir}"`,
    ],
  },
});

/** What every function's logger reads: its level and the service it names. */
export const loggingEnvironment = { LOG_LEVEL: 'INFO', POWERTOOLS_SERVICE_NAME: SERVICE_NAME };

export interface HandlerFunctionOptions {
  entry: string;
  description: string;
  retention: logs.RetentionDays;
  environment: Record<string, string>;
  /** Default 10 s: API Gateway gives up after 30 s, and a call that takes 10 s is already broken. */
  timeout?: Duration;
  /** Default BUNDLING. */
  bundling?: BundlingOptions;
  /** Default 256 MB. */
  memorySize?: number;
  /** Reserved concurrency: a cap (and a guarantee) for background work; default none. */
  reservedConcurrency?: number;
}

/**
 * A function with its own log group (explicit retention), JSON log format and its own role. The
 * role is built here rather than by NodejsFunction, which would attach the AWS managed
 * AWSLambdaBasicExecutionRole (logs:CreateLogGroup, CreateLogStream and PutLogEvents on every log
 * group of the account): this role may only write streams into its own log group.
 */
export const handlerFunction = (scope: Construct, options: HandlerFunctionOptions) => {
  const logGroup = new logs.LogGroup(scope, 'LogGroup', {
    retention: options.retention,
    // Kept after a stack deletion for forensics; the retention still empties it.
    removalPolicy: RemovalPolicy.RETAIN,
  });
  const role = new iam.Role(scope, 'Role', {
    assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    description: truncate(`Runs ${options.description}`, 1000),
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
    memorySize: options.memorySize ?? 256,
    reservedConcurrentExecutions: options.reservedConcurrency,
    timeout: options.timeout ?? Duration.seconds(10),
    description: truncate(options.description, 256),
    environment: options.environment,
    loggingFormat: lambda.LoggingFormat.JSON,
    applicationLogLevelV2: lambda.ApplicationLogLevel.INFO,
    logGroup,
    bundling: options.bundling ?? BUNDLING,
  });
};

const truncate = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/**
 * Email through SES, for the functions whose rows send email (links, one-time codes, sign-in).
 * The resource is every identity of this account and region (`identity/*`), and the
 * `ses:FromAddress` condition pins the sender to EMAIL_FROM_ADDRESS. Naming only the sender's
 * domain and address identities would break in the SES sandbox, where SES also authorises the
 * (verified) recipient identities against the caller's policy; the condition keeps the function
 * from sending as anyone else either way. ses:SendEmail only: the adapter sends SESv2 SendEmail
 * with simple content (lambdas/adapters/ses-email.ts), never raw MIME, which would let a
 * function write its own headers.
 */
const grantEmail = (fn: lambda.IFunction, fromAddress: string) => {
  fn.addToRolePolicy(
    new iam.PolicyStatement({
      sid: 'SendEmail',
      actions: ['ses:SendEmail'],
      resources: [Stack.of(fn).formatArn({ service: 'ses', resource: 'identity', resourceName: '*' })],
      conditions: { StringEquals: { 'ses:FromAddress': fromAddress } },
    }),
  );
};

/**
 * SMS through SNS, for the functions whose rows send SMS. Publishing an SMS straight to a phone
 * number has no resource to scope to (no topic, no ARN), so SNS requires resource '*' for it; the
 * Deny on every topic ARN (SNS's documented pattern) leaves direct SMS as the only publish the
 * role can make: these functions never publish to a topic, the alarm topic included.
 */
const grantSms = (fn: lambda.IFunction) => {
  fn.addToRolePolicy(new iam.PolicyStatement({ sid: 'SendSms', actions: ['sns:Publish'], resources: ['*'] }));
  fn.addToRolePolicy(
    new iam.PolicyStatement({ sid: 'PublishToNoTopic', effect: iam.Effect.DENY, actions: ['sns:Publish'], resources: [`arn:${Stack.of(fn).partition}:sns:*:*:*`] }),
  );
};

const httpMethod = (route: Route): apigwv2.HttpMethod => {
  const method = apigwv2.HttpMethod[route.method];
  if (!method) throw new Error(`route ${route.name}: unsupported method ${route.method}`);
  return method;
};

export const pascalCase = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

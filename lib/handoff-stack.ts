import { Annotations, CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { ApiFunctions, nestedStackOfRoute, routeKeyOf } from './api-functions.ts';
import { routeList } from '../lambdas/http/routes.ts';
import { Expiry } from './expiry.ts';
import { HandoffTable } from './table.ts';
import { SealingKey } from './sealing.ts';
import { CodeHashKey } from './code-key.ts';
import { CertificateSigningKey } from './signing.ts';
import { Webhooks } from './webhooks.ts';
import { ApiReadRecords } from './api-read-records.ts';
import { HelpdeskChecks } from './helpdesk-checks.ts';
import { Operations } from './operations.ts';
import { customDomainOf } from './custom-domain.ts';
import { applyNagSuppressions } from './nag-suppressions.ts';
import { pointInTimeRecoveryDaysOf, RECOVERY_DAYS_CONTEXT } from './point-in-time-recovery.ts';
import { ContextError } from './context-error.ts';


/** How long the API's access log is kept. */
export const ACCESS_LOG_RETENTION = logs.RetentionDays.THIRTEEN_MONTHS;

/** The whole stage: calls per second, and the burst above it. */
export const STAGE_THROTTLE = { rateLimit: 200, burstLimit: 400 } as const;
/** Each route anyone may call without a key (sign-in, session, subject, share recipient, pages). */
export const PUBLIC_ROUTE_THROTTLE = { rateLimit: 20, burstLimit: 40 } as const;
const PUBLIC_SCOPES = new Set<string>(['public', 'link', 'share_link']);

export interface HandoffStackProps extends StackProps {
  /** The web application's address (APP_URL). Default: context `appUrl`, else the API endpoint. */
  appUrl?: string;
  /** Sender of link emails (EMAIL_FROM_ADDRESS). Default: context `emailFrom`; required, there is no made-up default. */
  emailFrom?: string;
  /** The API's own host name (context `domainName`); needs `certificateArn`, and turns the execute-api endpoint off. */
  domainName?: string;
  /** An ACM certificate for `domainName` in the stack's region (context `certificateArn`). */
  certificateArn?: string;
  /**
   * Reserve concurrency for the expiry and purge workers (20 each), the two sweeps and the ticket
   * reconciliation (1 each) (context `reservedConcurrency=on`). Default off: Lambda keeps 100
   * executions of an account unreserved, so those 43 need a concurrency quota of at least 143,
   * which a new account may not have (its quota can be as low as 10), and the deploy would fail.
   */
  reservedConcurrency?: boolean;
  /**
   * Deploy the routes of the member application's nested stacks (context `memberRoutes`, default
   * on). Off only for the first of the two deploys that upgrade a stack whose member routes were
   * still in the main stack (docs/deploying.md): API Gateway takes one route per key, so the old
   * routes must be gone before the nested stacks create theirs.
   */
  memberRoutes?: boolean;
  /**
   * Days of point-in-time recovery on the table, 1 to 35 (context `pointInTimeRecoveryDays`,
   * default 7, lib/point-in-time-recovery.ts says why): how long a destroyed credential's
   * ciphertext stays restorable from the backups, which every certificate states.
   */
  pointInTimeRecoveryDays?: number;
}

/**
 * The Credential Handoff Service: one HTTP API (payload 2.0) whose routes invoke one function
 * per handler entry, the single DynamoDB table, and the expiry worker and sweep behind
 * EventBridge Scheduler. Region and account agnostic: nothing names a region,
 * an account or a physical resource name.
 */
export class HandoffStack extends Stack {
  readonly api: apigwv2.HttpApi;
  readonly table: HandoffTable;
  readonly functions: ApiFunctions;
  readonly expiry: Expiry;
  readonly webhooks: Webhooks;
  readonly apiReadRecords: ApiReadRecords;
  readonly helpdeskChecks: HelpdeskChecks;
  readonly sealing: SealingKey;
  readonly codeKey: CodeHashKey;
  readonly signing: CertificateSigningKey;
  readonly operations: Operations;

  constructor(scope: Construct, id: string, props: HandoffStackProps = {}) {
    super(scope, id, props);

    const emailFrom = emailAddress('emailFrom', props.emailFrom ?? contextString(this, 'emailFrom') ?? missingSender());
    const appUrlSetting = props.appUrl ?? contextString(this, 'appUrl');
    const reserveConcurrency = props.reservedConcurrency ?? contextSwitch(this, 'reservedConcurrency', false);
    const memberRoutes = props.memberRoutes ?? contextSwitch(this, 'memberRoutes', true);

    const domain = customDomainOf(this, {
      domainName: props.domainName ?? contextString(this, 'domainName'),
      certificateArn: props.certificateArn ?? contextString(this, 'certificateArn'),
    });

    this.table = new HandoffTable(this, 'Store', {
      pointInTimeRecoveryDays: pointInTimeRecoveryDaysOf(props.pointInTimeRecoveryDays ?? this.node.tryGetContext(RECOVERY_DAYS_CONTEXT)),
    });

    this.api = new apigwv2.HttpApi(this, 'Api', {
      description: 'Credential Handoff Service API',
      createDefaultStage: false,
      // Behind a custom domain the execute-api address would be a second way in, around whatever guards the domain.
      disableExecuteApiEndpoint: domain !== undefined,
    });
    // The `$default` stage, declared here for its structured (JSON) access log, kept 13 months: who
    // called what and when must outlast a yearly audit or an incident found months later.
    const accessLogs = new logs.LogGroup(this, 'ApiAccessLogs', { retention: ACCESS_LOG_RETENTION });
    const stage = new apigwv2.HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      accessLogSettings: {
        destination: new apigwv2.LogGroupLogDestination(accessLogs),
        format: accessLogFormat,
      },
      throttle: STAGE_THROTTLE,
    });

    // The execute-api address is unavailable (and apiEndpoint throws) once it is disabled.
    const endpoint = domain ? `https://${domain.domainName}` : this.api.apiEndpoint;
    if (domain) {
      const domainName = new apigwv2.DomainName(this, 'ApiDomain', {
        domainName: domain.domainName,
        certificate: acm.Certificate.fromCertificateArn(this, 'ApiCertificate', domain.certificateArn),
      });
      new apigwv2.ApiMapping(this, 'ApiMapping', { api: this.api, domainName, stage });
      new CfnOutput(this, 'ApiDomainTarget', {
        value: domainName.regionalDomainName,
        description: `Point ${domain.domainName} here: a CNAME record (or a Route 53 alias with hosted zone ApiDomainHostedZoneId)`,
      });
      new CfnOutput(this, 'ApiDomainHostedZoneId', { value: domainName.regionalHostedZoneId, description: 'Hosted zone of ApiDomainTarget, for a Route 53 alias record' });
    }
    const baseUrl = `${endpoint}/v1`;
    if (appUrlSetting && new URL(httpsUrl(appUrlSetting)).hostname !== domain?.domainName) {
      // Links in emails, SMS, tickets and certificates go to appUrl: this stack does not serve that host.
      Annotations.of(this).addWarningV2(
        'handoff:appUrlNotServed',
        `appUrl ${appUrlSetting} is not this stack's custom domain${domain ? ` (${domain.domainName})` : ''}: links will point there, so it must serve this API (for example a CDN in front of it)`,
      );
    }
    const appEnvironment = {
      BASE_URL: baseUrl,
      APP_URL: appUrlSetting ? httpsUrl(appUrlSetting) : endpoint,
      EMAIL_FROM_ADDRESS: emailFrom,
      RATE_TABLE_NAME: this.table.rateTable.tableName,
    };
    // The expiry worker is no API function: the API functions may name its ARN without a cycle.
    this.expiry = new Expiry(this, 'Expiry', { table: this.table.table, tableAccess: this.table, appEnvironment, reserveConcurrency });
    this.sealing = new SealingKey(this, 'Sealing');
    this.codeKey = new CodeHashKey(this, 'CodeHash');
    this.signing = new CertificateSigningKey(this, 'CertificateSigning');
    this.helpdeskChecks = new HelpdeskChecks(this, 'HelpdeskChecks', {
      table: this.table.table,
      tableAccess: this.table,
      appEnvironment,
      sealing: this.sealing,
      expiry: this.expiry,
      reserveConcurrency,
    });
    // The end of a grace period reads a helpdesk-linked ticket again before anything is destroyed.
    this.helpdeskChecks.grantQueue(this.expiry.purgeFunction);
    this.helpdeskChecks.grantQueue(this.expiry.sweepFunction);
    this.functions = new ApiFunctions(this, 'Routes', {
      httpApi: this.api,
      table: this.table.table,
      tableAccess: this.table,
      appEnvironment,
      expiry: this.expiry,
      ticketChecks: this.helpdeskChecks,
      sealing: this.sealing,
      codeKey: this.codeKey,
      signing: this.signing,
      tableBackups: this.table.backups,
      nestedRoutes: memberRoutes,
    });
    throttlePublicRoutes(stage, this.functions.routes, memberRoutes);
    if (!memberRoutes) {
      Annotations.of(this).addWarningV2(
        'handoff:memberRoutesOff',
        "memberRoutes=off: the member application's endpoints have no route and answer 404 until the stack is deployed again without it",
      );
    }

    // The reading functions log their read records; the recorder stores them off the request path.
    this.apiReadRecords = new ApiReadRecords(this, 'ApiReadRecords', { table: this.table.table, tableAccess: this.table, functions: this.functions });

    this.webhooks = new Webhooks(this, 'Webhooks', { table: this.table.table, tableAccess: this.table, appEnvironment, sealing: this.sealing, reserveConcurrency });

    const alarmEmail = contextString(this, 'alarmEmail');
    this.operations = new Operations(this, 'Operations', { alarmEmail: alarmEmail ? emailAddress('alarmEmail', alarmEmail) : undefined });
    for (const alarm of [...this.webhooks.alarms, ...this.helpdeskChecks.alarms, ...this.apiReadRecords.alarms]) this.operations.notify(alarm);
    this.operations.functionErrors('ExpiryErrors', this.expiry.expiryFunction, 'The expiry worker');
    this.operations.functionErrors('PurgeErrors', this.expiry.purgeFunction, 'The purge worker');
    this.operations.functionErrors('ExpirySweepErrors', this.expiry.sweepFunction, 'The expiry sweep');
    this.operations.functionErrors('TicketCheckErrors', this.helpdeskChecks.checkFunction, 'The ticket check worker');
    this.operations.functionErrors('ReconcileErrors', this.helpdeskChecks.reconcileFunction, 'The ticket reconciliation');
    this.operations.functionErrors('DeliverySweepErrors', this.webhooks.sweepFunction, 'The webhook delivery sweep');
    this.operations.functionThrottles('ExpiryThrottles', this.expiry.expiryFunction, 'The expiry worker');
    this.operations.functionThrottles('ExpirySweepThrottles', this.expiry.sweepFunction, 'The expiry sweep');
    this.operations.scheduleFailures('ScheduleTargetErrors', this.expiry.scheduleGroup);
    this.operations.apiServerErrors('ApiServerErrors', this.api);
    this.operations.streamIteratorAge('FanOutIteratorAge', this.webhooks.fanOutFunction);
    this.operations.queueAge('DeliveryQueueAge', this.webhooks.deliveryQueue);
    this.operations.queueAge('SlowDeliveryQueueAge', this.webhooks.slowDeliveryQueue);
    this.operations.loggedFailures('delivery', this.functions.failureLogGroups.delivery);
    this.operations.loggedFailures('schedule', [...this.functions.failureLogGroups.schedule, ...this.helpdeskChecks.scheduleFailureLogGroups]);

    new CfnOutput(this, 'AlarmTopicArn', { value: this.operations.topic.topicArn, description: 'Every alarm notifies this topic (subscribe, or deploy with -c alarmEmail=...)' });
    new CfnOutput(this, 'ApiUrl', { value: baseUrl, description: 'The API root ({base_url})' });
    new CfnOutput(this, 'TableName', { value: this.table.table.tableName });
    new CfnOutput(this, 'SigningKeyArn', {
      value: this.signing.key.keyArn,
      description: 'KMS key signing custody certificates (npm run admin -- rotate-signing-key ... --signing-key-tag <SigningKeyTag>)',
    });
    new CfnOutput(this, 'SigningKeyTag', { value: this.signing.environment.SIGNING_KEY_TAG, description: 'The tag every signing key of this stack carries' });
    new CfnOutput(this, 'SealingKeyArn', {
      value: this.sealing.key.keyArn,
      description: 'KMS key sealing integration and webhook secrets (npm run admin -- set-integration|rotate-webhook-secret|seal-stored-secrets ... --kms-key <this>)',
    });
    new CfnOutput(this, 'CodeHashKeyArn', {
      value: this.codeKey.key.keyArn,
      description: 'KMS HMAC key the six-digit codes are hashed with (npm run admin -- seal-stored-secrets ... --code-key <this>)',
    });
    new CfnOutput(this, 'ExpiryScheduleGroup', { value: this.expiry.scheduleGroup.scheduleGroupName, description: 'Schedule group of the per-request expiry schedules' });

    applyNagSuppressions(this);
  }
}

/**
 * One JSON object per request. Only request metadata: API Gateway access logs carry no headers
 * or bodies, and no path or query either: the route key (the template, `GET /r/{token}`) says
 * which endpoint was called, while the path itself holds a subject's link token (`/r/<token>`)
 * or an inbound URL's secret. Every field is a fixed gateway value or a number; the integration's
 * error message is left out, as a function's error text may quote its input (the function's own
 * log has the error).
 */
export const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  requestTime: '$context.requestTime',
  sourceIp: '$context.identity.sourceIp',
  httpMethod: '$context.httpMethod',
  routeKey: '$context.routeKey',
  status: '$context.status',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationLatency: '$context.integrationLatency',
  integrationStatus: '$context.integrationStatus',
  error: '$context.error.message',
} as const;

const accessLogFormat = AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS));

/**
 * A deploy must name its sender: an invented default would deploy a service that sends nothing
 * (SES refuses an unverified identity) while every link delivery quietly fails.
 */
const missingSender = (): never => {
  throw new ContextError(
    'emailFrom is required: the sender of link, code and sign-in emails, an identity verified in SES. Deploy with -c emailFrom=handoff@your-domain.example',
  );
};

/**
 * Tighter limits where anyone may call without a key: sign-in, session, the subject's and share
 * recipient's endpoints, the pages. API Gateway refuses settings that name a route it does not have
 * yet ("Unable to find Route by key"), and CloudFormation orders only by dependencies: the stage
 * depends on each route named, or on the nested stack that holds it.
 */
const throttlePublicRoutes = (stage: apigwv2.HttpStage, routes: ReadonlyMap<string, apigwv2.HttpRoute>, nestedRoutes: boolean) => {
  const cfnStage = stage.node.defaultChild as apigwv2.CfnStage;
  const settings: Record<string, { ThrottlingRateLimit: number; ThrottlingBurstLimit: number }> = {};
  for (const route of routeList().filter((row) => PUBLIC_SCOPES.has(row.scope))) {
    const key = routeKeyOf(route);
    const deployed = routes.get(key);
    if (!deployed) {
      // Left out with its route while the member routes are held back for an upgrade.
      if (!nestedRoutes && nestedStackOfRoute(route)) continue;
      throw new Error(`the stage throttles ${key}, which no route deploys`);
    }
    // Written as CloudFormation names them: the L1 passes this map through untouched.
    settings[key] = { ThrottlingRateLimit: PUBLIC_ROUTE_THROTTLE.rateLimit, ThrottlingBurstLimit: PUBLIC_ROUTE_THROTTLE.burstLimit };
    cfnStage.addResourceDependency(deployed.node.defaultChild as apigwv2.CfnRoute);
  }
  cfnStage.routeSettings = settings;
};

const contextString = (stack: Stack, key: string): string | undefined => {
  const value: unknown = stack.node.tryGetContext(key);
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new ContextError(`context ${key} must be a string`);
  return value;
};

/** An on/off setting: `-c key=on|off` (or true|false, as cdk.json may hold it). */
const contextSwitch = (stack: Stack, key: string, fallback: boolean): boolean => {
  const value: unknown = stack.node.tryGetContext(key);
  if (value === undefined || value === null || value === '') return fallback;
  if (value === true || value === 'on' || value === 'true') return true;
  if (value === false || value === 'off' || value === 'false') return false;
  throw new ContextError(`context ${key} must be on or off, not ${JSON.stringify(value)}`);
};

/** `value`, the context setting `name`, when it is an email address. */
const emailAddress = (name: string, value: string) => {
  if (!/^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/.test(value)) throw new ContextError(`${name} is not an email address: ${value}`);
  return value;
};

/** An absolute https URL without a trailing slash, as the handlers join paths onto it. */
const httpsUrl = (value: string) => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ContextError(`appUrl is not a URL: ${value}`);
  }
  if (url.protocol !== 'https:') throw new ContextError(`appUrl must use https: ${value}`);
  return value.replace(/\/+$/, '');
};

import { Duration, Stack } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { LambdaDestination } from 'aws-cdk-lib/aws-logs-destinations';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { API_READ_LINE_KIND } from '../lambdas/adapters/api-read-lines.ts';
import { tableAccessOfWorker } from '../lambdas/access/table-access.ts';
import { handlerFunction, loggingEnvironment } from './api-functions.ts';
import { dlqAlarm } from './dlq-alarm.ts';
import type { TableAccessGranter } from './table-access.ts';

export const API_READ_RECORDER_ENTRY = 'lambdas/workers/api-read-recorder.ts';

/**
 * The routes whose handlers leave a read record (a `reads` trace, lambdas/http/middleware/read-trail.ts):
 * their functions log each record as a line, which their log group hands to the recorder. Looked up
 * by name: a name missing from the route table fails the synth, rather than leaving a reading
 * function whose records nothing stores.
 */
export const API_READ_ROUTES: readonly string[] = ['listRequests', 'getRequest', 'listEvents', 'listWebhooks', 'requestCertificate', 'shareCertificate'];

/** What the subscription filters pass on: the record lines (adapters/api-read-lines.ts), nothing else of the log. */
const API_READ_FILTER_PATTERN = logs.FilterPattern.stringValue('$.kind', '=', API_READ_LINE_KIND);

/** The two retries Lambda makes of a failed delivery before it goes to the DLQ (the most it allows). */
const RECORDER_RETRY_ATTEMPTS = 2;

/** A delivery may hold many lines, stored 25 to a BatchWriteItem with backoff on throttling (lambdas/store/api-read-log.ts). */
const RECORDER_TIMEOUT = Duration.seconds(60);

/**
 * Lambda drops a JSON line below the function's application log level, and the record lines are
 * INFO: a reading function logging at WARN would serve reads that leave no record.
 */
const RECORDING_LEVELS: ReadonlySet<string> = new Set([lambda.ApplicationLogLevel.TRACE, lambda.ApplicationLogLevel.DEBUG, lambda.ApplicationLogLevel.INFO]);

export interface ApiReadRecordsProps {
  table: dynamodb.ITable;
  /** The recorder's table rights, from its declaration (lambdas/access/table-access.ts). */
  tableAccess: TableAccessGranter;
  /** The API functions by route name (lib/api-functions.ts): those of API_READ_ROUTES are subscribed. */
  functions: { readonly byRoute: ReadonlyMap<string, lambda.Function> };
  logRetention?: logs.RetentionDays;
}

/**
 * The read records, kept off the request path (lambdas/adapters/api-read-lines.ts):
 *
 * - a subscription filter on the log group of each function of API_READ_ROUTES, passing the
 *   `api_read` lines to the recorder; it is made in the log group's own stack (the API functions
 *   may sit in nested stacks), with the permission for CloudWatch Logs to invoke the recorder from
 *   that log group only. A log group takes two subscription filters at most: this is its one;
 * - the recorder, which may only batch-write APIREAD# items; CloudWatch Logs invokes it
 *   asynchronously, so a failed delivery is retried twice by Lambda, then goes, with the error, to
 *   the recorder's DLQ, whose first message raises an alarm. The lines themselves stay in the
 *   reading functions' log groups for their retention.
 */
export class ApiReadRecords extends Construct {
  readonly recorderFunction: NodejsFunction;
  readonly dlq: sqs.Queue;
  /** The reading functions' log groups, one each (the certificate function serves several read routes). */
  readonly logGroups: logs.ILogGroup[];
  readonly alarms: cloudwatch.Alarm[];

  constructor(scope: Construct, id: string, props: ApiReadRecordsProps) {
    super(scope, id);
    this.recorderFunction = handlerFunction(new Construct(this, 'Recorder'), {
      entry: API_READ_RECORDER_ENTRY,
      description: 'API read recorder: stores the read records the reading API functions log',
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      // The table alone: the recorder has none of the API functions' wiring.
      environment: { TABLE_NAME: props.table.tableName, ...loggingEnvironment },
      timeout: RECORDER_TIMEOUT,
    });
    props.tableAccess.grantAccess(this.recorderFunction, tableAccessOfWorker('recordApiReads'));

    this.dlq = new sqs.Queue(this, 'RecorderDlq', { encryption: sqs.QueueEncryption.SQS_MANAGED, enforceSSL: true, retentionPeriod: Duration.days(14) });
    // The on-failure destination (rather than a function DLQ): its message carries the error as well as the delivery. It grants the send.
    this.recorderFunction.configureAsyncInvoke({ retryAttempts: RECORDER_RETRY_ATTEMPTS, onFailure: new SqsDestination(this.dlq) });

    const readers = new Set<lambda.Function>();
    for (const name of API_READ_ROUTES) {
      const fn = props.functions.byRoute.get(name);
      if (!fn) throw new Error(`API_READ_ROUTES names ${name}, which is not in the route table`);
      readers.add(fn);
    }
    const destination = new LambdaDestination(this.recorderFunction);
    this.logGroups = [...readers].map((fn) => {
      if (!logsRecordLines(fn)) throw new Error(`${fn.node.path} logs above INFO: Lambda would drop its read records`);
      new logs.SubscriptionFilter(fn.logGroup, 'ApiReadRecords', { logGroup: fn.logGroup, destination, filterPattern: API_READ_FILTER_PATTERN });
      return fn.logGroup;
    });

    this.alarms = [
      dlqAlarm(
        this,
        'RecorderDlqAlarm',
        this.dlq,
        "API read records were not stored after retries (see the API read recorder DLQ; the lines are still in the reading functions' log groups)",
      ),
    ];
  }
}

/** Whether the function's application log level lets an INFO line through (INFO is Lambda's default for JSON logs). */
const logsRecordLines = (fn: lambda.Function) => {
  const config = Stack.of(fn).resolve((fn.node.defaultChild as lambda.CfnFunction).loggingConfig) as lambda.CfnFunction.LoggingConfigProperty | undefined;
  return RECORDING_LEVELS.has(config?.applicationLogLevel ?? lambda.ApplicationLogLevel.INFO);
};

import { Logger } from '@aws-lambda-powertools/logger';

/**
 * Structured JSON logs. Call sites pass ids and names only: never a key, token, code, secret or
 * envelope (a test scans every line the service writes for them).
 */
export const createLogger = (serviceName = 'credential-handoff') =>
  new Logger({ serviceName, logLevel: (process.env.LOG_LEVEL ?? 'INFO') as 'INFO' });

/// <reference lib="dom" />
/**
 * JSON calls to the service's own endpoints (docs/web-api.md). An error answer becomes an
 * ApiFailure carrying the body's `message`, `code` and `reason`; the pages show the message, never
 * a stack trace.
 */
export class ApiFailure extends Error {
  override readonly name = 'ApiFailure';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body: Record<string, unknown> = {},
  ) {
    super(message);
  }
  get reason(): string | undefined {
    return typeof this.body.reason === 'string' ? this.body.reason : undefined;
  }
}

export interface CallOptions {
  body?: unknown;
  headers?: Record<string, string>;
}

const FALLBACK_MESSAGES: Record<number, string> = {
  401: 'You are not signed in.',
  403: 'You may not do this.',
  404: 'Not found.',
  429: 'Too many attempts. Wait a minute and try again.',
};

export const call = async <T = unknown>(method: 'GET' | 'POST', path: string, options: CallOptions = {}): Promise<T> => {
  const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      credentials: 'same-origin',
      cache: 'no-store',
      referrerPolicy: 'no-referrer',
    });
  } catch {
    throw new ApiFailure(0, 'network', 'The service could not be reached. Check your connection and try again.');
  }
  const text = await response.text();
  let body: unknown = undefined;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
  }
  if (!response.ok) {
    const record = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
    const message =
      typeof record.message === 'string'
        ? record.message
        : (FALLBACK_MESSAGES[response.status] ?? 'Something went wrong on our side. Try again later.');
    throw new ApiFailure(response.status, typeof record.code === 'string' ? record.code : 'error', message, record);
  }
  return body as T;
};

/** The message to show for any failure; unexpected errors get a plain sentence. */
export const messageOf = (error: unknown, fallback = 'Something went wrong. Try again.') =>
  error instanceof ApiFailure ? fieldMessages(error) : fallback;

const fieldMessages = (error: ApiFailure) => {
  const errors = error.body.errors;
  if (!errors || typeof errors !== 'object') return error.message;
  const details = Object.entries(errors as Record<string, unknown>)
    .map(([name, messages]) => `${name}: ${Array.isArray(messages) ? messages.join(' ') : String(messages)}`)
    .join('; ');
  return details ? `${error.message} ${details}` : error.message;
};

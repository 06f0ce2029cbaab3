/**
 * The body limit leaves room for the event Lambda is invoked with. Deployed, API Gateway (HTTP
 * API, payload format 2.0) hands a function one JSON event holding the body, as base64 when it
 * takes the body for binary, beside the headers and the request's context; Lambda refuses a
 * synchronous invocation over 6 MB, and the caller would then get API Gateway's error, never the
 * service's 413. So the largest body the service accepts must still make an event Lambda takes.
 */
import { describe, expect, it } from 'vitest';
import { MAX_ATTACHMENT_BYTES, MAX_ATTACHMENTS } from '../../lambdas/core/attachment-limits.ts';
import { LAMBDA_EVENT_BYTES, MAX_BODY_BYTES, MAX_REQUEST_LINE_AND_HEADER_VALUES_BYTES } from '../../lambdas/http/request-limits.ts';

/** A payload format 2.0 event as the API Gateway developer guide shows one, with the given headers and body. */
const gatewayEvent = (headers: Record<string, string>, body: string, isBase64Encoded: boolean) => ({
  version: '2.0',
  routeKey: 'POST /inbound/ticket-status/{secret}',
  rawPath: '/inbound/ticket-status/ZXhhbXBsZS1zZWNyZXQtb2YtNDMtY2hhcmFjdGVycy1sb25n',
  rawQueryString: '',
  cookies: [],
  headers,
  requestContext: {
    accountId: '123456789012',
    apiId: 'api-id',
    domainName: 'id.execute-api.eu-west-2.amazonaws.com',
    domainPrefix: 'id',
    http: { method: 'POST', path: '/inbound/ticket-status/ZXhhbXBsZS1zZWNyZXQtb2YtNDMtY2hhcmFjdGVycy1sb25n', protocol: 'HTTP/1.1', sourceIp: '203.0.113.7', userAgent: 'agent' },
    requestId: 'c6af9ac6-7b61-11e6-9a41-93e8deadbeef',
    routeKey: 'POST /inbound/ticket-status/{secret}',
    stage: '$default',
    time: '12/Mar/2030:19:03:58 +0000',
    timeEpoch: 1899572638000,
  },
  pathParameters: { secret: 'ZXhhbXBsZS1zZWNyZXQtb2YtNDMtY2hhcmFjdGVycy1sb25n' },
  body,
  isBase64Encoded,
});

describe('the body limit', () => {
  it('at its largest, sent as base64 with headers at their own limit, still makes an event Lambda takes', () => {
    // Header values fill the request line's and headers' limit; their names come on top.
    const headerCount = 40;
    const headers = Object.fromEntries(
      Array.from({ length: headerCount }, (_, i) => [`x-header-${String(i).padStart(2, '0')}`, 'v'.repeat(Math.floor(MAX_REQUEST_LINE_AND_HEADER_VALUES_BYTES / headerCount))]),
    );
    const body = Buffer.alloc(MAX_BODY_BYTES, 0xff).toString('base64');
    const eventBytes = Buffer.byteLength(JSON.stringify(gatewayEvent(headers, body, true)), 'utf8');
    expect(eventBytes).toBeGreaterThan(MAX_BODY_BYTES);
    expect(eventBytes).toBeLessThanOrEqual(LAMBDA_EVENT_BYTES);
  });

  it('takes twice the largest submission the service defines: every attachment at its largest, sealed (16 bytes of tag), in base64', () => {
    const sealedAttachment = Buffer.alloc(MAX_ATTACHMENT_BYTES + 16).toString('base64');
    expect(2 * MAX_ATTACHMENTS * sealedAttachment.length).toBeLessThan(MAX_BODY_BYTES);
  });
});

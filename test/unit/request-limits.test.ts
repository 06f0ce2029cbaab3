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
import { gatewayEventV2 } from '../support/gateway-event.ts';

describe('the body limit', () => {
  it('at its largest, sent as base64 with headers at their own limit, still makes an event Lambda takes', () => {
    // Header values fill the request line's and headers' limit; their names come on top.
    const headerCount = 40;
    const headers = Object.fromEntries(
      Array.from({ length: headerCount }, (_, i) => [`x-header-${String(i).padStart(2, '0')}`, 'v'.repeat(Math.floor(MAX_REQUEST_LINE_AND_HEADER_VALUES_BYTES / headerCount))]),
    );
    const body = Buffer.alloc(MAX_BODY_BYTES, 0xff).toString('base64');
    const path = '/inbound/ticket-status/ZXhhbXBsZS1zZWNyZXQtb2YtNDMtY2hhcmFjdGVycy1sb25n';
    const event = gatewayEventV2({ route: '/inbound/ticket-status/{secret}', path, headers, body, isBase64Encoded: true });
    const eventBytes = Buffer.byteLength(JSON.stringify(event), 'utf8');
    expect(eventBytes).toBeGreaterThan(MAX_BODY_BYTES);
    expect(eventBytes).toBeLessThanOrEqual(LAMBDA_EVENT_BYTES);
  });

  it('takes twice the largest submission the service defines: every attachment at its largest, sealed (16 bytes of tag), in base64', () => {
    const sealedAttachment = Buffer.alloc(MAX_ATTACHMENT_BYTES + 16).toString('base64');
    expect(2 * MAX_ATTACHMENTS * sealedAttachment.length).toBeLessThan(MAX_BODY_BYTES);
  });
});

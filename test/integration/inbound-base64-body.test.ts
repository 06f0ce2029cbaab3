/**
 * An inbound ticket URL's function as API Gateway invokes it deployed: a body it takes for binary
 * (a form post, for one) arrives base64-encoded with `isBase64Encoded: true` (payload format 2.0).
 * The function reads the bytes as sent, so the post is understood and a signature over those bytes
 * checks, exactly as for the same post sent as text.
 */
import { createHmac } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandler } from '../../lambdas/http/inbound/status.ts';
import { gatewayEventV2 } from '../support/gateway-event.ts';
import { ack, harness } from '../support/inbound-webhook-harness.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';

const SIGNING_SECRET = 'base64-signing-secret-4c2e9a7b1d';

describe('an inbound URL given a base64-encoded body', () => {
  let service: TestService;
  let org: TestOrganisation;
  const h = harness(() => service, []);

  beforeAll(async () => {
    service = await startTestService();
    org = await service.createOrganisation({ name: 'Base64 Org' });
  });
  afterAll(() => service?.stop());

  /** The event API Gateway builds for a POST to the URL, the body base64 as it passes binary bodies. */
  const gatewayEvent = (path: string, body: Buffer, headers: Record<string, string>) =>
    gatewayEventV2({
      route: '/inbound/ticket-status/{secret}',
      path,
      headers: { host: 'id.execute-api.eu-west-2.amazonaws.com', 'content-length': String(body.length), ...headers },
      body: body.toString('base64'),
      isBase64Encoded: true,
    });

  const invoke = async (path: string, body: Buffer, headers: Record<string, string>) => {
    const result = (await createHandler(service.deps)(gatewayEvent(path, body, headers), {} as Context)) as { statusCode: number; body: string };
    return { status: result.statusCode, body: JSON.parse(result.body) as unknown };
  };

  it('reads a form post, and checks an X-Service-Signature over the bytes as sent', async () => {
    const integration = await h.connect(org.orgId, 'Form sender');
    const request = await h.create(org, 'B64 1/a');
    const form = Buffer.from('ticket_id=B64+1%2Fa&status=Pending', 'utf8');
    const formType = { 'content-type': 'application/x-www-form-urlencoded' };

    const unsigned = await invoke(integration.path, form, formType);
    expect(unsigned).toEqual({ status: 202, body: ack('B64 1/a', 'pending', 'pending') });
    expect((await h.read(org, request.id)).ticket!.status).toBe('pending');

    await h.configure(integration, { auth: { mode: 'hmac', secret: SIGNING_SECRET } });
    const resolved = Buffer.from('ticket_id=B64+1%2Fa&status=Resolved', 'utf8');
    const t = Math.floor(Date.now() / 1000);
    const signature = `t=${t},v1=${createHmac('sha256', SIGNING_SECRET).update(`${t}.${resolved.toString('utf8')}`).digest('hex')}`;
    const signed = await invoke(integration.path, resolved, { ...formType, 'x-service-signature': signature });
    expect(signed).toEqual({ status: 202, body: ack('B64 1/a', 'resolved', 'resolved') });
    expect((await h.read(org, request.id)).ticket!.status).toBe('resolved');

    // The base64 text itself is not what was signed: a signature over it is refused.
    const overTheText = `t=${t},v1=${createHmac('sha256', SIGNING_SECRET).update(`${t}.${resolved.toString('base64')}`).digest('hex')}`;
    const refused = await invoke(integration.path, resolved, { ...formType, 'x-service-signature': overTheText });
    expect(refused).toMatchObject({ status: 401, body: { code: 'unauthenticated' } });
  });
});

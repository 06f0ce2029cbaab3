/**
 * The load the webhook figures put through the pipeline: an organisation subscribed to
 * `request.created` at the loopback receiver, its events committed through POST /v1/requests, and
 * the wait for all of them to be received verified.
 */
import type { startLocalService } from '../lambdas/local/local-service.ts';
import { newIdentityPublicKey } from '../lambdas/local/demo-identity.ts';
import { createClient } from './http-client.ts';
import type { Receiver } from './webhook-receiver.ts';

/** Deliveries not all verified this long after the last commit: the run fails. */
export const DRAIN_TIMEOUT_MS = 60_000;

type Service = Awaited<ReturnType<typeof startLocalService>>;

/**
 * An organisation whose rate limits are raised through configuration, with a webhook subscribed
 * to `request.created` at the receiver through POST /v1/webhooks; the receiver gets its secret.
 */
export const subscribeBenchOrg = async (service: Service, receiver: Receiver) => {
  const { admin } = service;
  const org = await admin.createOrganisation({ name: 'Bench Fan-out Org', plan: 'team' });
  await admin.setRateLimits(org.id, { perKeyPerMinute: 10_000_000, perOrgPerMinute: 10_000_000 });
  const owner = await admin.addMember({ orgId: org.id, name: 'Bench Owner', email: 'owner@fanout.bench.example', role: 'owner', identityKey: newIdentityPublicKey() });
  const { secret: apiKey } = await admin.createApiKey({ orgId: org.id, name: 'bench fan-out', scopes: ['requests:write', 'webhooks:write'] });
  const client = createClient(service.baseUrl, apiKey);
  const subscribed = JSON.parse((await client.call('POST', '/webhooks', { url: receiver.url, events: ['request.created'] })).body) as { secret?: string };
  if (typeof subscribed.secret !== 'string') throw new Error('POST /v1/webhooks answered without a secret');
  receiver.sign(subscribed.secret);
  const createBody = { subject_name: 'Bench Subject', justification: 'Benchmarking the webhook fan-out', recipients: [owner.email], verification_mode: 'challenge' };
  return { client, createBody };
};

/**
 * Commits `count` events, one POST /v1/requests each (one request.created entry, one event),
 * `concurrency` at a time. The commit time of an event is when its POST answered 201, keyed
 * by the request id (the event's data.request.id). The API answers only after the
 * TransactWriteItems holding the audit entry returned, so the entry is committed, and on the
 * stream, by then: the latency is never understated by counting the write before the commit,
 * and the write path itself (POST /v1/requests, above) is not in it. The entry's occurred_at
 * is stamped before that transaction is sent (and again per retry on audit-sequence
 * contention), at millisecond resolution; latency from it is printed beside, as a check.
 */
export const commitEvents = async (org: Awaited<ReturnType<typeof subscribeBenchOrg>>, count: number, concurrency: number) => {
  const commits = new Map<string, number>();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < count) {
        const answer = await org.client.call('POST', '/requests', org.createBody);
        const at = Date.now();
        commits.set((JSON.parse(answer.body) as { request: { id: string } }).request.id, at);
      }
    }),
  );
  return commits;
};

/** Waits until every committed request's event was received verified; fails loudly after the timeout. */
export const allReceived = async (receiver: Receiver, commits: Map<string, number>, timeoutMs = DRAIN_TIMEOUT_MS) => {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const received = new Set([...receiver.receipts.values()].map((r) => r.requestId));
    const missing = [...commits.keys()].filter((id) => !received.has(id));
    if (missing.length === 0) return;
    if (Date.now() > until) {
      throw new Error(
        `webhook fan-out: ${commits.size - missing.length} of ${commits.size} events verified at the receiver ` +
          `after ${timeoutMs / 1000} s (missing requests ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', ...' : ''}); ` +
          `verification failures: ${receiver.failures.length ? receiver.failures.slice(0, 10).join('; ') : 'none'}`,
      );
    }
    await new Promise((done) => setTimeout(done, 20));
  }
};

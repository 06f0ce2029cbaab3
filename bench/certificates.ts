/**
 * Custody certificates on a DynamoDB Local and service of their own: GET /v1/requests/{id}/certificate
 * as JSON and as PDF for a completed request, beside a raw read of the same items in the same run
 * (the request's trail, its chain entries by BatchGetItem and the chain head), which is the floor
 * under the JSON; the rest is signing, canonical JSON and, for the PDF, rendering.
 */
import { BatchGetCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { systemClock } from '../lambdas/core/clock.ts';
import { toRequestView } from '../lambdas/core/request-view.ts';
import { submit } from '../lambdas/core/subject-flow.ts';
import { newIdentityPublicKey } from '../lambdas/local/demo-identity.ts';
import { startLocalService } from '../lambdas/local/local-service.ts';
import { keys } from '../lambdas/store/keys.ts';
import { queryPrefix } from '../lambdas/store/query-prefix.ts';
import { createClient } from './http-client.ts';
import { formatMs, measure, type Measurement } from './stats.ts';

export interface CertificateResult {
  json: Measurement;
  pdf: Measurement;
  raw: Measurement;
  entries: number;
  jsonBytes: number;
  pdfBytes: number;
}

export const measureCertificates = async (options: { dynamoEndpoint: string; iterations: number; total: number; concurrency: number }): Promise<CertificateResult> => {
  const service = await startLocalService({ dynamoEndpoint: options.dynamoEndpoint, tableName: 'bench-certificates', announce: () => undefined, webhooks: false, timers: false });
  try {
    const { admin, deps } = service;
    const org = await admin.createOrganisation({ name: 'Bench Certificates Org', plan: 'team' });
    await admin.setRateLimits(org.id, { perKeyPerMinute: 10_000_000, perOrgPerMinute: 10_000_000 });
    const owner = await admin.addMember({ orgId: org.id, name: 'Bench Owner', email: 'owner@certificates.example', role: 'owner', identityKey: newIdentityPublicKey() });
    const { secret } = await admin.createApiKey({ orgId: org.id, name: 'bench', scopes: ['requests:write', 'requests:read', 'events:read'] });
    const api = createClient(service.baseUrl, secret);

    // A request through its whole custody: created, submitted (as the subject's browser would), completed.
    const created = JSON.parse(
      (await api.call('POST', '/requests', { subject_name: 'Bench Subject', justification: 'Benchmarking custody certificates', recipients: [owner.email], ticket_ref: 'BENCH-1' })).body,
    );
    const id = created.request.id as string;
    const before = (await deps.requests.get(id))!;
    const after = submit(before, systemClock.now(), 0);
    const actor = { type: 'subject' as const, label: before.subject.name };
    await deps.requests.submit(before, after, { envelope: { bench: true }, attachments: [] }, {
      orgId: after.orgId, type: 'request.submitted', actor, clientId: after.client.id, requestId: id,
      data: { request: toRequestView(after, deps.urls), actor, details: {} },
    });
    await api.call('POST', `/requests/${id}/complete`);

    const { db, tableName } = deps;
    const rawRead = async () => {
      const trail = await queryPrefix(db, tableName, keys.request(id).pk, keys.trailPrefix, { consistent: true });
      await db.send(new BatchGetCommand({ RequestItems: { [tableName]: { Keys: trail.map((item) => keys.auditEntry(org.id, item.seq as number)), ConsistentRead: true } } }));
      await db.send(new GetCommand({ TableName: tableName, Key: keys.auditHead(org.id), ConsistentRead: true }));
      return trail.length;
    };
    const entries = await rawRead();
    const sample = await api.call('GET', `/requests/${id}/certificate`);
    const pdfSample = await api.call('GET', `/requests/${id}/certificate?format=pdf`);
    const settings = { iterations: Math.min(options.iterations, 300), total: Math.min(options.total, 600), concurrency: options.concurrency };
    const json = await measure('GET certificate (JSON)', () => api.call('GET', `/requests/${id}/certificate`), settings);
    const pdf = await measure('GET certificate (PDF)', () => api.call('GET', `/requests/${id}/certificate?format=pdf`), { ...settings, iterations: Math.min(settings.iterations, 100), total: Math.min(settings.total, 200) });
    const raw = await measure('raw Query + BatchGet + GetItem', rawRead, settings);
    api.close();
    return { json, pdf, raw, entries, jsonBytes: Buffer.byteLength(sample.body), pdfBytes: pdfSample.body.length };
  } finally {
    await service.stop();
  }
};

export const certificateReport = (result: CertificateResult) => [
  `\nCustody certificates of a completed request (${result.entries} chain entries; JSON ${(result.jsonBytes / 1024).toFixed(1)} KiB, PDF about ${(result.pdfBytes / 1024).toFixed(1)} KiB):`,
  ...[result.json, result.pdf, result.raw].map(
    (m) => `  ${m.name.padEnd(32)} p50 ${formatMs(m.p50).padStart(9)}  p99 ${formatMs(m.p99).padStart(9)}  ${m.throughput.toFixed(0).padStart(5)} calls/s  (${(m.p50 / result.raw.p50).toFixed(2)}x raw)`,
  ),
];

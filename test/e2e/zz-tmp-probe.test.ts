import { it, expect } from 'vitest';
import { createHmac } from 'node:crypto';
import { startTestService } from '../support/test-service.ts';
import { connectIntegration, configureIntegration } from '../../lambdas/core/use-cases/integrations/manage-integration.ts';
import { OPERATOR_ACTOR } from '../../lambdas/core/model.ts';
it('probe', async () => {
  const s = await startTestService();
  const org = await s.createOrganisation();
  const c = await connectIntegration(s.deps, OPERATOR_ACTOR, { orgId: org.orgId, name: 'x' });
  await configureIntegration(s.deps, OPERATOR_ACTOR, org.orgId, c.integration.id, { auth: { mode: 'hmac', secret: 'hmac-signing-secret-7d1e2f3a4b5c' } });
  const bytes = Buffer.concat([Buffer.from('{"ticket_id":"LAT-1","status":"closed","note":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
  const t = Math.floor(Date.now()/1000);
  const sig = createHmac('sha256','hmac-signing-secret-7d1e2f3a4b5c').update(Buffer.concat([Buffer.from(`${t}.`), bytes])).digest('hex');
  const r = await fetch(c.webhook_url.replace('localhost','127.0.0.1'), { method:'POST', body: bytes, headers: {'Content-Type':'application/json; charset=iso-8859-1', 'X-Service-Signature': `t=${t},v1=${sig}`}});
  console.log('LATIN1', r.status, await r.text());
  await s.stop();
});

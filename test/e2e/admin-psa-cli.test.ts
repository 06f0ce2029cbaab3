/**
 * The operator CLI's helpdesk connection for the two PSAs managed service providers run, ConnectWise
 * PSA and Autotask, as a process on the test's table (its bundle of bin/admin.ts), each against a
 * fake on loopback: `set-integration --adapter` takes their credential flags (sealed, never printed,
 * nowhere in the table in plain text) and Autotask's `--closed-status-ids` (numbers only), and
 * `check-integration` reads a ticket through each connection.
 */
import { describe, expect, it } from 'vitest';
import { OPERATOR_ACTOR } from '../../lambdas/core/model.ts';
import { connectIntegration } from '../../lambdas/core/use-cases/integrations/manage-integration.ts';
import { cliTestService } from '../support/cli-test-service.ts';
import { startFakeAutotask } from '../support/fake-autotask.ts';
import { startFakeConnectWise } from '../support/fake-connectwise.ts';
import { scanTable } from '../support/test-service.ts';

const { state, cli } = cliTestService('PSA CLI Org');

const CW = { companyId: 'acme', publicKey: 'CwCliPublic5e2a', privateKey: 'cw-cli-private-9d4b1f7a3c6e', clientId: '8c1d4e7f-2a5b-4c9e-b0f3-6d2a9e1c4b7f' };
const AT = { integrationCode: 'HANDOFFCLIINTEGRATIONCODE01', username: 'handoff.cli@acme.example', secret: 'at-cli-secret-2f8c6a1d9e' };

/** The JSON a command prints: alone on stdout (its plain lines go to stderr). */
const printedJson = (stdout: string) => JSON.parse(stdout);

/** A new integration with the PSA's recipe, and the flags that name it. */
const integrationFlags = async (recipe: 'connectwise' | 'autotask') => {
  const { integration } = await connectIntegration(state.service.deps, OPERATOR_ACTOR, { orgId: state.org.orgId, name: `${recipe} API`, recipe });
  return ['--org', state.org.orgId, '--integration', integration.id];
};

describe('set-integration --adapter for ConnectWise PSA and Autotask, then check-integration', () => {
  it('connects ConnectWise PSA with the company id, both API keys and the client id, and reads a ticket by its closedFlag', async () => {
    const connectwise = await startFakeConnectWise(CW);
    try {
      connectwise.setTicket(48213, 'Closed (resolved)', true);
      const target = await integrationFlags('connectwise');
      const login = ['--company-id', CW.companyId, '--public-key', CW.publicKey, '--private-key', CW.privateKey, '--client-id', CW.clientId];
      const set = await cli('set-integration', [...target, '--adapter', 'connectwise', '--helpdesk-url', connectwise.url, ...login]);
      expect(set.code, set.stderr).toBe(0);
      expect(JSON.parse(set.stdout).helpdesk).toMatchObject({ adapter: 'connectwise', label: 'ConnectWise PSA', url: connectwise.url, credentials_set: true });
      const check = await cli('check-integration', [...target, '--ticket', '48213']);
      expect(check.code, check.stderr).toBe(0);
      expect(printedJson(check.stdout)).toMatchObject({ ok: true, vendor_status: 'Closed (resolved) (closed)', status: 'closed', counts_as_closed: true });
      const table = JSON.stringify(await scanTable(state.service));
      for (const secret of [CW.privateKey, CW.clientId]) for (const shown of [set.stdout, check.stdout, check.stderr, table]) expect(shown).not.toContain(secret);

      const missingKey = await cli('set-integration', [...target, '--adapter', 'connectwise', '--helpdesk-url', connectwise.url, ...login.slice(0, 4)]);
      expect(missingKey.code).toBe(1);
      expect(missingKey.stderr).toMatch(/private_key/);
    } finally {
      await connectwise.close();
    }
  });

  it('connects Autotask with the integration code and the API user, and reads a ticket by the closed status ids given', async () => {
    const autotask = await startFakeAutotask(AT);
    try {
      autotask.setTicket(99123, 14);
      const target = await integrationFlags('autotask');
      const login = ['--integration-code', AT.integrationCode, '--username', AT.username, '--password', AT.secret];
      const set = await cli('set-integration', [...target, '--adapter', 'autotask', '--helpdesk-url', autotask.url, ...login, '--closed-status-ids', '5, 14']);
      expect(set.code, set.stderr).toBe(0);
      expect(JSON.parse(set.stdout).helpdesk).toMatchObject({ adapter: 'autotask', label: 'Autotask', url: autotask.url, credentials_set: true, closed_status_ids: [5, 14] });
      const check = await cli('check-integration', [...target, '--ticket', '99123']);
      expect(check.code, check.stderr).toBe(0);
      expect(printedJson(check.stdout)).toMatchObject({ ok: true, vendor_status: 'status 14 (closed)', status: 'closed', counts_as_closed: true });
      const table = JSON.stringify(await scanTable(state.service));
      for (const shown of [set.stdout, check.stdout, check.stderr, table]) expect(shown).not.toContain(AT.secret);

      const words = await cli('set-integration', [...target, '--adapter', 'autotask', '--helpdesk-url', autotask.url, ...login, '--closed-status-ids', 'Complete']);
      expect(words).toMatchObject({ code: 1, stdout: '' });
      expect(words.stderr).toMatch(/^--closed-status-ids takes whole numbers/);
    } finally {
      await autotask.close();
    }
  });
});

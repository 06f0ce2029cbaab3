import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256Hex } from '#core/hashing.ts';
import { OPERATOR_ACTOR } from '#core/model.ts';
import { connectIntegration, INBOUND_PATHS, rotateIntegrationSecrets, type IntegrationDeps } from '#core/use-cases/integrations/manage-integration.ts';

/** The file in the data folder that keeps the demo integration's URL secrets (mode 600): the table keeps only their hashes. */
export const DEMO_INTEGRATION_FILE = 'demo-integration-secrets.json';
export const DEMO_INTEGRATION_NAME = 'Demo helpdesk';

/** What the file keeps: the integration and the secret part of each of its URLs. */
interface KeptSecrets {
  integration_id: string;
  webhook: string;
  trigger: string;
}

export type DemoIntegration =
  | {
      id: string;
      webhookUrl: string;
      triggerUrl: string;
      /** `made`: new URLs at this start (the old ones, if any, no longer work); `kept`: the same as last time. */
      state: 'made' | 'kept';
    }
  | {
      id: string;
      webhookUrl: null;
      triggerUrl: null;
      /** Rotated in the application or with the CLI since they were kept: the URLs shown then work, and no start replaces them. */
      state: 'rotated_elsewhere';
    };

const readKept = (file: string): KeptSecrets | null => {
  try {
    return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as KeptSecrets) : null;
  } catch {
    // Cut off or edited by hand: new URLs are made, as for a missing file.
    return null;
  }
};

/** The URL's last path segment: the secret it carries. */
const secretOf = (url: string) => url.slice(url.lastIndexOf('/') + 1);

/**
 * The demo's ticketing integration and its webhook and trigger URLs, the same at every start so
 * that a saved script (and `.data/demo.env`) keeps working, as the demo API key does: the URLs'
 * secrets are kept in DEMO_INTEGRATION_FILE under the data folder and nowhere else. The
 * integration is connected when the demo has none (or it is gone), and its secrets rotated when
 * the file is missing or unreadable. When the file names URLs that no longer work, someone rotated
 * them in the app or with the CLI and was shown the new ones, which a helpdesk may already use: a
 * start leaves them alone and says so (deleting the file has the next start make new ones).
 */
export const demoIntegration = async (deps: IntegrationDeps, orgId: string, integrationId: string | undefined, dataDir: string): Promise<DemoIntegration> => {
  const file = join(dataDir, DEMO_INTEGRATION_FILE);
  const urlsOf = (secrets: Pick<KeptSecrets, 'webhook' | 'trigger'>) => ({
    webhookUrl: `${deps.urls.appUrl}${INBOUND_PATHS.status}${secrets.webhook}`,
    triggerUrl: `${deps.urls.appUrl}${INBOUND_PATHS.trigger}${secrets.trigger}`,
  });
  const integration = integrationId ? await deps.integrations.get(orgId, integrationId) : null;
  const kept = readKept(file);
  if (integration && kept?.integration_id === integration.id) {
    const current = sha256Hex(kept.webhook) === integration.secretHashes.status && sha256Hex(kept.trigger) === integration.secretHashes.trigger;
    return current ? { id: integration.id, ...urlsOf(kept), state: 'kept' } : { id: integration.id, webhookUrl: null, triggerUrl: null, state: 'rotated_elsewhere' };
  }
  const made = integration
    ? await rotateIntegrationSecrets(deps, OPERATOR_ACTOR, orgId, integration.id)
    : await connectIntegration(deps, OPERATOR_ACTOR, { orgId, name: DEMO_INTEGRATION_NAME });
  const secrets: KeptSecrets = { integration_id: made.integration.id, webhook: secretOf(made.webhook_url), trigger: secretOf(made.trigger_url) };
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  return { id: made.integration.id, ...urlsOf(secrets), state: 'made' };
};

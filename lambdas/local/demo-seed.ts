import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { apiKeyHash, isWellFormedApiKey } from '#core/api-key-format.ts';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Scope } from '#core/model.ts';
import { SCOPES } from '#core/model.ts';
import type { AdminStore } from '#store/admin-store.ts';
import type { Documents } from '#store/dynamo.ts';
import { generateDemoIdentityKey } from './demo-identity.ts';

const DEMO_MARKER = { pk: 'LOCAL#DEMO', sk: 'LOCAL' };
export const DEMO_KEY_NAME = 'Local demo key';

export interface DemoOrganisation {
  orgId: string;
  ownerEmail: string;
  memberEmail: string;
  clientId: string;
  presetSlug: string;
  /** The preset the trigger URL's worked example names (docs/tickets-and-helpdesks.md). */
  triggerPresetSlug: string;
  /** The demo's ticketing integration (demo-integration.ts); absent until the first start connects it. */
  integrationId?: string;
}

/** Remembers what the demo holds, so later starts find it rather than seed it again. */
export const rememberDemo = (db: Documents, tableName: string, demo: DemoOrganisation) =>
  db.send(new PutCommand({ TableName: tableName, Item: { ...DEMO_MARKER, kind: 'local_marker', demo } }));

/**
 * The preset the trigger URL's worked example names: the requester is the ticket's agent when
 * they are a member, else the owner; the subject is emailed the link (to the local outbox).
 */
const saveTriggerPreset = (admin: AdminStore, orgId: string, memberEmail: string, ownerEmail: string) =>
  admin.savePreset(
    orgId,
    'vpn',
    'VPN password',
    {
      justification: 'Needed to set up your VPN.',
      ttl_minutes: 1440,
      verification_mode: 'challenge',
      recipients: [memberEmail, ownerEmail],
      delivery: { method: 'email' },
    },
    { requesterFromTicket: true, fallbackRequester: ownerEmail },
  );

/**
 * Seeds the demo organisation on the first run (Team plan, an owner and a technician, a client,
 * the preset the first handoff uses and the one the trigger example names) and remembers it, so
 * later starts keep the data; a demo seeded before the trigger preset existed is given it. Both
 * members get keys made here, their private halves in files under `keyFolder`, so API examples can
 * create requests from the first start; those keys are the operator's (demo-identity.ts), and a
 * member's own key, set up in their browser, replaces theirs at once.
 *
 * A first start stopped in the middle of the seed (Ctrl-C, a crash) is resumed by the next: the
 * organisation's id is remembered as soon as it is made, and each later step is done only if the
 * organisation does not hold its result yet, so no second demo organisation is made.
 */
export const ensureDemoOrganisation = async (
  db: Documents,
  tableName: string,
  admin: AdminStore,
  keyFolder: string,
): Promise<DemoOrganisation> => {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: DEMO_MARKER, ConsistentRead: true }));
  if (Item?.demo) {
    const kept = Item.demo as DemoOrganisation;
    if (kept.triggerPresetSlug) return kept;
    const preset = await saveTriggerPreset(admin, kept.orgId, kept.memberEmail, kept.ownerEmail);
    const upgraded = { ...kept, triggerPresetSlug: preset.slug };
    await rememberDemo(db, tableName, upgraded);
    return upgraded;
  }

  let orgId = typeof Item?.seeding?.orgId === 'string' ? (Item.seeding.orgId as string) : null;
  if (!orgId) {
    orgId = (await admin.createOrganisation({ name: 'Demo MSP', plan: 'team' })).id;
    await db.send(new PutCommand({ TableName: tableName, Item: { ...DEMO_MARKER, kind: 'local_marker', seeding: { orgId } } }));
  }
  const ownerEmail = 'owner@example.com';
  const memberEmail = 'technician@example.com';
  const members = await admin.directory.listMembers(orgId);
  const addIfMissing = async (name: string, email: string, role: 'owner' | 'member') => {
    if (members.some((member) => member.email.toLowerCase() === email)) return;
    await admin.addMember({ orgId: orgId!, name, email, role, identityKey: generateDemoIdentityKey(join(keyFolder, `${email}.pem`)) });
  };
  await addIfMissing('Olivia Owner', ownerEmail, 'owner');
  await addIfMissing('Tom Technician', memberEmail, 'member');
  const client = (await admin.directory.listClients(orgId)).find((kept) => kept.name === 'Acme Ltd') ?? (await admin.createClient(orgId, 'Acme Ltd'));
  const preset = await admin.savePreset(orgId, 'standard', 'Standard handoff', {
    justification: 'We need this credential to finish the work on your support ticket.',
    ttl_minutes: 1440,
    verification_mode: 'challenge',
    // The technician first: once they set up their key in a browser, what they ask for they can open.
    recipients: [memberEmail, ownerEmail],
    delivery: { method: 'none' },
  });
  const triggerPreset = await saveTriggerPreset(admin, orgId, memberEmail, ownerEmail);
  const demo: DemoOrganisation = { orgId, ownerEmail, memberEmail, clientId: client.id, presetSlug: preset.slug, triggerPresetSlug: triggerPreset.slug };
  await rememberDemo(db, tableName, demo);
  return demo;
};

/** The file in the data folder that keeps the demo key (mode 600): the table keeps only its hash. */
export const DEMO_KEY_FILE = 'demo-api-key';

/**
 * The demo API key with every scope, the same at every start so that a script saved after the
 * first keeps working: its secret is kept in DEMO_KEY_FILE under the data folder (and nowhere
 * else), and a new one is issued only when that file is missing or names a key that no longer
 * works (revoked in the app or with the CLI, expired, or of an organisation this table lacks).
 */
export const demoApiKey = async (admin: AdminStore, orgId: string, dataDir: string, now = new Date()): Promise<{ secret: string; issued: boolean }> => {
  const file = join(dataDir, DEMO_KEY_FILE);
  const kept = existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
  if (isWellFormedApiKey(kept)) {
    const stored = await admin.apiKeys.findByHash(apiKeyHash(kept));
    const works = stored && stored.orgId === orgId && !stored.revokedAt && (!stored.expiresAt || new Date(stored.expiresAt) > now);
    if (works) return { secret: kept, issued: false };
  }
  const { secret } = await admin.createApiKey({ orgId, name: DEMO_KEY_NAME, scopes: [...SCOPES] as Scope[] });
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return { secret, issued: true };
};

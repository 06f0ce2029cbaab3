import { join } from 'node:path';
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
}

/**
 * Seeds the demo organisation on the first run (Team plan, an owner and a second member with
 * identity keys, a client, a preset) and remembers it, so later starts keep the data.
 */
export const ensureDemoOrganisation = async (
  db: Documents,
  tableName: string,
  admin: AdminStore,
  keyFolder: string,
): Promise<DemoOrganisation> => {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: DEMO_MARKER, ConsistentRead: true }));
  if (Item) return Item.demo as DemoOrganisation;

  const org = await admin.createOrganisation({ name: 'Demo MSP', plan: 'team' });
  const ownerEmail = 'owner@example.com';
  const memberEmail = 'technician@example.com';
  await admin.addMember({
    orgId: org.id,
    name: 'Olivia Owner',
    email: ownerEmail,
    role: 'owner',
    identityKey: generateDemoIdentityKey(join(keyFolder, `${ownerEmail}.pem`)),
  });
  await admin.addMember({
    orgId: org.id,
    name: 'Tom Technician',
    email: memberEmail,
    role: 'member',
    identityKey: generateDemoIdentityKey(join(keyFolder, `${memberEmail}.pem`)),
  });
  const client = await admin.createClient(org.id, 'Acme Ltd');
  const preset = await admin.savePreset(org.id, 'standard', 'Standard handoff', {
    justification: 'We need this credential to finish the work on your support ticket.',
    ttl_minutes: 1440,
    verification_mode: 'challenge',
    recipients: [ownerEmail],
    delivery: { method: 'none' },
  });
  const demo: DemoOrganisation = { orgId: org.id, ownerEmail, memberEmail, clientId: client.id, presetSlug: preset.slug };
  await db.send(new PutCommand({ TableName: tableName, Item: { ...DEMO_MARKER, kind: 'local_marker', demo } }));
  return demo;
};

/**
 * Issues a fresh demo key with every scope at each start (the key is shown once and only its
 * hash is stored, so an old one cannot be shown again) and revokes the earlier demo keys.
 */
export const issueDemoKey = async (admin: AdminStore, orgId: string) => {
  for (const old of await admin.apiKeys.listForOrganisation(orgId)) {
    if (old.name === DEMO_KEY_NAME && !old.revokedAt) await admin.revokeApiKey(orgId, old.id);
  }
  return admin.createApiKey({ orgId, name: DEMO_KEY_NAME, scopes: [...SCOPES] as Scope[] });
};

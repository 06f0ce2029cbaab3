import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyCertificate } from '../../lambdas/core/custody/verify.ts';
import type { Jwks } from '../../lambdas/core/custody/document.ts';
import { CertificateSigner } from '../../lambdas/core/use-cases/certificates/certificate-signer.ts';
import { KeyFileSigningCustody } from '../../lambdas/local/key-file-signing.ts';
import { SIGNING_KEYS_FOLDER } from '../../lambdas/local/local-service.ts';
import { DynamoSigningKeys } from '../../lambdas/store/signing-keys.ts';
import { runAdminCli } from '../support/admin-cli.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';
import { movableClock } from '../support/webhooks.ts';

/**
 * The certificate signing keys: published as a JWKS at {app_url}/.well-known/jwks.json, printed by
 * the operator CLI, rotated by it with the old key kept published, so a certificate signed before a
 * rotation still verifies after it.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'handoff-signing-'));
const clock = movableClock();
let service: TestService;
let org: TestOrganisation;
let key: string;

beforeAll(async () => {
  service = await startTestService({ clock, signingCustody: KeyFileSigningCustody.inFolder(join(dataDir, SIGNING_KEYS_FOLDER)) });
  org = await service.createOrganisation();
  key = await service.createKey(org.orgId, { name: 'Auditor', scopes: ['requests:write', 'events:read'] });
});
afterAll(async () => {
  await service?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const cli = (command: string) => runAdminCli(service.deps.tableName, command, [], { DATA_DIR: dataDir });

const jwks = async () => {
  const answer = await service.call('GET', '/.well-known/jwks.json');
  expect(answer.status).toBe(200);
  return answer.body as Jwks;
};

const certificateOfNewRequest = async () => {
  const created = await service.call('POST', '/requests', {
    key,
    body: { subject_name: 'Dana Subject', justification: 'Signing key rotation test', recipients: [org.owner.email] },
  });
  expect(created.status).toBe(201);
  const answer = await service.call('GET', `/requests/${created.body.request.id}/certificate`, { key });
  expect(answer.status).toBe(200);
  return answer.body;
};

describe('the JWKS', () => {
  it('publishes the current key as an Ed25519 OKP key whose kid is its RFC 7638 thumbprint, public and cacheable, with no private member', async () => {
    const answer = await service.call('GET', '/.well-known/jwks.json');
    expect(answer.headers.get('content-type')).toBe('application/jwk-set+json');
    expect(answer.headers.get('cache-control')).toBe('public, max-age=300');
    const keys = (answer.body as Jwks).keys;
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'Ed25519', use: 'sig' });
    expect(keys[0]).not.toHaveProperty('d');
    expect(keys[0]).not.toHaveProperty('retired_at');
    const certificate = await certificateOfNewRequest();
    expect(certificate.signature.kid).toBe(keys[0]!.kid);
    expect(await verifyCertificate(certificate, answer.body as Jwks)).toMatchObject({ ok: true });
  });
});

describe('rotation', () => {
  it('signing-keys prints the key; rotate-signing-key makes a new one current and keeps the old one published; old certificates still verify', async () => {
    const before = await certificateOfNewRequest();
    const [oldKey] = (await jwks()).keys;

    const listed = await cli('signing-keys');
    expect(listed.code, listed.stderr).toBe(0);
    const printed = JSON.parse(listed.stdout);
    expect(printed.keys).toEqual([expect.objectContaining({ kid: oldKey!.kid, state: 'current', retired_at: null })]);
    expect(printed.jwks.keys.map((k: { kid: string }) => k.kid)).toEqual([oldKey!.kid]);

    const rotated = await cli('rotate-signing-key');
    expect(rotated.code, rotated.stderr).toBe(0);
    const result = JSON.parse(rotated.stdout);
    expect(result.retired).toMatchObject({ kid: oldKey!.kid, state: 'retired' });
    expect(result.current.kid).not.toBe(oldKey!.kid);

    // A warm signer keeps the current key for a minute; past it, the new key signs.
    clock.advance(61_000);
    const after = await certificateOfNewRequest();
    expect(after.signature.kid).toBe(result.current.kid);

    const published = await jwks();
    expect(published.keys.map((k) => k.kid)).toEqual([result.current.kid, oldKey!.kid]);
    expect(published.keys[1]!.retired_at).toBe(result.current.created_at);

    const old = await verifyCertificate(before, published);
    expect(old.ok).toBe(true);
    expect(old.ok && old.summary).toMatch(/retired/);
    expect(await verifyCertificate(after, published)).toMatchObject({ ok: true });
    // Against the JWKS as it was before the rotation, the new certificate's key is unknown.
    expect(await verifyCertificate(after, { keys: [oldKey!] })).toMatchObject({ ok: false });
  });
});

describe('the first key', () => {
  it('is registered once when several functions start at the same moment', async () => {
    const fresh = await startTestService();
    try {
      const registry = new DynamoSigningKeys(fresh.deps.db, fresh.deps.tableName);
      const signers = Array.from({ length: 6 }, () => new CertificateSigner(KeyFileSigningCustody.inMemory(), registry, fresh.deps.clock));
      const kids = new Set((await Promise.all(signers.map((signer) => signer.currentKey()))).map((record) => record.kid));
      expect(kids.size).toBe(1);
      expect(await registry.list()).toHaveLength(1);
    } finally {
      await fresh.stop();
    }
  });
});

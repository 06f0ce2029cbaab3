/**
 * The operator CLI's revoke-request and relink-request, as a process against the service's table:
 * the link dies or is replaced exactly as through the API and the app, audited as the operator,
 * and the printed link and code work on the subject's page (the CLI hashes the code with the key
 * file the service uses, as `npm start` and the CLI share one data folder).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyFileCodeKey } from '../../lambdas/local/key-file-code-key.ts';
import { CODE_HASH_KEY_FILE } from '../../lambdas/local/local-service.ts';
import { runAdminCli } from '../support/admin-cli.ts';
import { auditEntriesOfRequest } from '../support/shapes.ts';
import { startTestService, type TestOrganisation, type TestService } from '../support/test-service.ts';
import { subjectBrowser } from '../support/subject-browser.ts';

let dataDir: string;
let service: TestService;
let org: TestOrganisation;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'handoff-cli-data-'));
  service = await startTestService({ codeKey: await KeyFileCodeKey.fromFile(join(dataDir, CODE_HASH_KEY_FILE)) });
  org = await service.createOrganisation({ name: 'Request CLI Org' });
});
afterAll(async () => {
  await service?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const cli = (command: string, args: string[]) => runAdminCli(service.deps.tableName, command, [...args, '--app-url', service.appUrl], { DATA_DIR: dataDir });
const tokenOf = (link: string) => new URL(link).pathname.split('/').pop()!;
// One subject browser: it keeps the subject pass a passed code issued, as the page does.
const subjectCall = subjectBrowser(() => service);

const createRequest = async () => {
  const answer = await service.call('POST', '/requests', {
    key: org.key,
    body: { subject_name: 'Jane Doe', justification: 'The firewall admin password', recipients: [org.owner.email], verification_mode: 'challenge' },
  });
  expect(answer.status, answer.text).toBe(201);
  return { id: answer.body.request.id as string, token: tokenOf(answer.body.link) };
};

describe('operator CLI: help and unknown names', () => {
  it('prints a command\u2019s own usage for --help, and names an unknown command or option with the closest one', async () => {
    const help = await runAdminCli(service.deps.tableName, 'relink-request', ['--help']);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^Usage: npm run admin -- relink-request --request REQUEST_ID/);

    const typo = await runAdminCli(service.deps.tableName, 'relink-requst', []);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("Unknown command 'relink-requst'. Did you mean 'relink-request'?");
    expect(typo.stdout).toBe('');

    const option = await runAdminCli(service.deps.tableName, 'relink-request', ['--requets', '0'.repeat(26)]);
    expect(option.code).toBe(2);
    expect(option.stderr).toContain("Unknown option '--requets' for relink-request. Did you mean '--request'?");
  });
});

describe('operator CLI: revoke-request and relink-request', () => {
  it('revokes a pending request, then gives it a new link whose code verifies; the old link says it was replaced', async () => {
    const created = await createRequest();
    const revoked = await cli('revoke-request', ['--request', created.id]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(JSON.parse(revoked.stdout)).toMatchObject({ id: created.id, status: 'revoked', revoked_reason: 'revoked_by_operator' });
    expect((await subjectCall(created.token, 'GET', '/subject/request')).body.reason).toBe('revoked');

    const relinked = await cli('relink-request', ['--request', created.id]);
    expect(relinked.code, relinked.stderr).toBe(0);
    const result = JSON.parse(relinked.stdout);
    expect(result.request.status).toBe('pending');
    expect(result.link).toMatch(/\/r\/[A-Za-z0-9_-]{43}#[A-Za-z0-9_-]{22}$/);
    expect(result.challenge_code).toMatch(/^[0-9]{6}$/);

    const old = await subjectCall(created.token, 'GET', '/subject/request');
    expect(old.status).toBe(410);
    expect(old.body.reason).toBe('replaced');
    const token = tokenOf(result.link);
    expect((await subjectCall(token, 'POST', '/subject/open')).status).toBe(200);
    const verified = await subjectCall(token, 'POST', '/subject/verify', { challenge_code: result.challenge_code });
    expect(verified.status, verified.text).toBe(200);

    const entries = await auditEntriesOfRequest(service, org.orgId, created.id);
    expect(entries.filter((e) => ['request.revoked', 'request.relinked'].includes(e.type)).map((e) => [e.type, e.actor.label])).toEqual([
      ['request.revoked', 'operator'],
      ['request.relinked', 'operator'],
    ]);
  });

  it('refuses what the API refuses: a request revoked again, an unknown id, a missing --request', async () => {
    const created = await createRequest();
    const revokedTwice = [await cli('revoke-request', ['--request', created.id]), await cli('revoke-request', ['--request', created.id])];
    expect(revokedTwice[0].code).toBe(0);
    expect(revokedTwice[1].code).not.toBe(0);
    expect(revokedTwice[1].stderr).toMatch(/cannot be revoked/);
    const unknown = await cli('relink-request', ['--request', '0'.repeat(26)]);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/No request with this id/);
    const missing = await cli('relink-request', []);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/--request is required/);
  });
});

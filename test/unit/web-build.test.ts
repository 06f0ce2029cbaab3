import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildWebAssets, WEB_ASSET_NAMES, writeWebAssets } from '../../web/build.ts';

let assets: Awaited<ReturnType<typeof buildWebAssets>>;

beforeAll(async () => {
  assets = await buildWebAssets();
}, 60_000);

/** Anything of the server's that must never reach a browser bundle. */
const SERVER_ONLY = [
  'process.env',
  'TABLE_NAME',
  'EMAIL_FROM_ADDRESS',
  'DYNAMODB_ENDPOINT',
  'AWS_',
  '@aws-sdk',
  'lib-dynamodb',
  'DynamoDB',
  'node:crypto',
  'node:fs',
  'require(',
  'BEGIN PRIVATE KEY',
  'BEGIN EC PRIVATE KEY',
  'whsec_',
  'sk_live',
  'hashToken',
  'sourceMappingURL',
];

describe('web build', () => {
  it('produces both pages, both bundles and the style sheet with their content types', () => {
    expect([...assets.keys()].sort()).toEqual([...WEB_ASSET_NAMES].sort());
    expect(assets.get('subject.html')!.contentType).toBe('text/html; charset=utf-8');
    expect(assets.get('app.js')!.contentType).toBe('text/javascript; charset=utf-8');
    expect(assets.get('styles.css')!.contentType).toBe('text/css; charset=utf-8');
  });

  it('HTML shells load only same-origin assets, declare English and carry a skip link and live regions', () => {
    for (const [page, script] of [['subject.html', '/assets/subject.js'], ['app.html', '/assets/app.js'], ['share.html', '/assets/share.js']] as const) {
      const html = assets.get(page)!.body;
      expect(html).toContain('<html lang="en">');
      expect(html).toContain(`<script type="module" src="${script}"></script>`);
      expect(html).toContain('<link rel="stylesheet" href="/assets/styles.css">');
      expect(html).toContain('class="skip-link" href="#main"');
      expect(html).toMatch(/id="status"[^>]*role="status"/);
      expect(html).toMatch(/id="error"[^>]*role="alert"/);
      // Nothing inline: the Content-Security-Policy allows only 'self' scripts and styles.
      expect(html).not.toMatch(/<script(?![^>]*src=)[^>]*>/);
      expect(html).not.toMatch(/<style|style="/);
      expect(html).not.toMatch(/https?:\/\//);
    }
  });

  it('bundles the browser crypto (canonicalize included) and calls only the documented endpoints', () => {
    const subject = assets.get('subject.js')!.body;
    const app = assets.get('app.js')!.body;
    for (const bundle of [subject, app]) {
      // Self-contained: no module left to fetch. An import's `from` follows `}`, `*` or a space; the
      // audit page's strings (`"filter-from"`, `name: "from"`) are no import.
      expect(bundle).not.toMatch(/\bimport\s*[{(*"']|(?<=[}*\s])from\s*["']/);
      expect(bundle).not.toMatch(/https?:\/\/(?!www\.w3\.org)/); // no third-party origin
    }
    expect(subject).toContain('/subject/request');
    expect(subject).toContain('X-Link-Token');
    expect(subject).toContain('ECDH-ES+HKDF-SHA256+A256GCM');
    expect(app).toContain('/app/api/me');
    expect(app).toContain('X-CSRF-Token');
    expect(app).toContain('handoff-identity-backup/v1');
  });

  it('contains no reference to any server secret or server-side module', () => {
    for (const [name, asset] of assets) {
      for (const needle of SERVER_ONLY) expect(asset.body, `${name} contains ${needle}`).not.toContain(needle);
    }
  });

  it('the CLI mode writes the same files to a folder', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'web-build-'));
    try {
      await writeWebAssets(folder);
      expect(readdirSync(folder).sort()).toEqual([...WEB_ASSET_NAMES].sort());
      expect(readFileSync(join(folder, 'subject.html'), 'utf8')).toBe(assets.get('subject.html')!.body);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 60_000);
});

/**
 * The README and the pages under docs/ hold together: every relative link (`[..](path)`,
 * `[..](path#anchor)`, `[..](#anchor)`) names a file that exists, every anchor names a heading of
 * its target as GitHub spells the heading's id, every image is a file of the repository, and the
 * README stays short enough for a newcomer to read.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { documentationFiles as markdownFiles } from '../support/markdown-shell-blocks.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const README_MAX_LINES = 300;


/** The text with fenced code blocks blanked (line count kept) and inline code spans reduced to a word. */
const withoutCode = (text: string): string => {
  const lines = text.split('\n');
  let fence: string | null = null;
  const kept = lines.map((line) => {
    const opening = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence === null && opening) {
      fence = opening[1];
      return '';
    }
    if (fence !== null) {
      if (line.trim().startsWith(fence)) fence = null;
      return '';
    }
    return line;
  });
  return kept.join('\n').replace(/`[^`\n]+`/g, 'code');
};

/** A heading's id as GitHub makes it: lower case, punctuation dropped (hyphens and underscores kept), spaces to hyphens. */
const githubSlug = (heading: string): string =>
  heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');

/** Every anchor a Markdown file offers: its ATX headings' ids, a repeated id numbered -1, -2, ... */
const anchorsOf = (text: string): Set<string> => {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  const lines = text.split('\n');
  let fence: string | null = null;
  for (const line of lines) {
    const opening = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence === null && opening) {
      fence = opening[1];
      continue;
    }
    if (fence !== null) {
      if (line.trim().startsWith(fence)) fence = null;
      continue;
    }
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (!heading) continue;
    const base = githubSlug(heading[1].trim());
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
};

interface Link {
  file: string;
  line: number;
  image: boolean;
  target: string;
}

/** Every inline link and image of a file (outside code), with the line it starts on. */
const linksOf = (file: string): Link[] => {
  const text = withoutCode(readFileSync(file, 'utf8'));
  const links: Link[] = [];
  for (const match of text.matchAll(/(!?)\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)) {
    links.push({
      file,
      line: text.slice(0, match.index).split('\n').length,
      image: match[1] === '!',
      target: match[3],
    });
  }
  return links;
};

const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');

/** What is wrong with the links of these files, one sentence per broken link (none: all resolve). */
const brokenLinks = (files: string[], root: string): string[] => {
  const anchorCache = new Map<string, Set<string>>();
  const anchors = (file: string) => {
    if (!anchorCache.has(file)) anchorCache.set(file, anchorsOf(readFileSync(file, 'utf8')));
    return anchorCache.get(file)!;
  };
  const problems: string[] = [];
  for (const file of files) {
    for (const link of linksOf(file)) {
      const where = `${relative(root, file)}:${link.line}: ${link.image ? 'image' : 'link'} (${link.target})`;
      if (link.target === '') {
        problems.push(`${where} has no target`);
        continue;
      }
      if (isExternal(link.target)) continue;
      const hash = link.target.indexOf('#');
      const path = decodeURI(hash === -1 ? link.target : link.target.slice(0, hash));
      const anchor = hash === -1 ? null : decodeURIComponent(link.target.slice(hash + 1));
      const target = path === '' ? file : resolve(dirname(file), path);
      if (!existsSync(target)) {
        problems.push(`${where}: no such file ${relative(root, target)}`);
        continue;
      }
      if (link.image) {
        if (!statSync(target).isFile()) problems.push(`${where}: not a file`);
        if (anchor !== null) problems.push(`${where}: an image has no anchor`);
        continue;
      }
      if (anchor === null) continue;
      if (!target.endsWith('.md') || !statSync(target).isFile()) {
        problems.push(`${where}: an anchor into ${relative(root, target)}, which is not a Markdown file`);
      } else if (!anchors(target).has(anchor)) {
        problems.push(`${where}: ${relative(root, target)} has no heading #${anchor}`);
      }
    }
  }
  return problems;
};

describe('links between the README and docs/', () => {
  const files = markdownFiles(ROOT);

  it('finds the README and the docs pages', () => {
    expect(files.map((file) => relative(ROOT, file))).toEqual(expect.arrayContaining(['README.md', 'docs/web-api.md']));
    expect(files.length).toBeGreaterThan(2);
  });

  it('resolves every relative link, anchor and image', () => {
    expect(brokenLinks(files, ROOT)).toEqual([]);
  });

  it('links every docs page from the README', () => {
    const linked = new Set(
      linksOf(join(ROOT, 'README.md'))
        .filter((link) => !link.image && !isExternal(link.target))
        .map((link) => resolve(ROOT, decodeURI(link.target.split('#')[0]))),
    );
    const unlinked = files.filter((file) => !file.endsWith('README.md') && !linked.has(file)).map((file) => relative(ROOT, file));
    expect(unlinked).toEqual([]);
  });

  it(`keeps the README under ${README_MAX_LINES} lines`, () => {
    const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').replace(/\n$/, '').split('\n').length;
    expect(lines).toBeLessThan(README_MAX_LINES);
  });
});

describe('the link check itself', () => {
  it('spells ids as GitHub does', () => {
    expect(githubSlug('Deploying (per region)')).toBe('deploying-per-region');
    expect(githubSlug('POST /v1/tickets/{ref}/status')).toBe('post-v1ticketsrefstatus');
    expect(githubSlug('The contract: OpenAPI 3.1')).toBe('the-contract-openapi-31');
    expect(githubSlug('Helpdesk adapters: closes verified with the helpdesk, links posted in the ticket')).toBe(
      'helpdesk-adapters-closes-verified-with-the-helpdesk-links-posted-in-the-ticket',
    );
    expect(githubSlug('`needs_relink` and `unrecoverable`')).toBe('needs_relink-and-unrecoverable');
    expect(githubSlug('The trigger URL (Team plan and above)')).toBe('the-trigger-url-team-plan-and-above');
  });

  it('reports a missing file, a missing anchor, a missing image and a broken in-page anchor, and nothing in code', () => {
    const root = mkdtempSync(join(tmpdir(), 'docs-links-'));
    try {
      mkdirSync(join(root, 'docs', 'screenshots'), { recursive: true });
      writeFileSync(join(root, 'docs', 'screenshots', 'shot.png'), '');
      writeFileSync(
        join(root, 'docs', 'page.md'),
        ['# Page', '', '## Twice', '', '## Twice', '', 'Back to the [README](../README.md#top).', ''].join('\n'),
      );
      writeFileSync(
        join(root, 'README.md'),
        [
          '# Top',
          '',
          '[fine](docs/page.md#twice) [fine too](docs/page.md#twice-1) [here](#top) ![shot](docs/screenshots/shot.png)',
          '[gone](docs/missing.md) [no such heading](docs/page.md#twice-2) [in-page](#nowhere)',
          '![gone](docs/screenshots/missing.png) [across',
          'lines](docs/nothing.md) [outside](https://example.com/x.md#y)',
          '',
          '```md',
          '[in code](docs/ignored.md)',
          '```',
          'and `[inline code](docs/ignored-too.md)`.',
          '',
        ].join('\n'),
      );
      const problems = brokenLinks(markdownFiles(root), root);
      expect(problems).toEqual([
        'README.md:4: link (docs/missing.md): no such file docs/missing.md',
        'README.md:4: link (docs/page.md#twice-2): docs/page.md has no heading #twice-2',
        'README.md:4: link (#nowhere): README.md has no heading #nowhere',
        'README.md:5: image (docs/screenshots/missing.png): no such file docs/screenshots/missing.png',
        'README.md:5: link (docs/nothing.md): no such file docs/nothing.md',
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

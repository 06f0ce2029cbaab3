/**
 * The helpers behind test/e2e/docs-shell-examples.test.ts: fenced blocks read as a reader copies
 * them (a list item's indentation dropped, the comment before the fence kept as its mark), and
 * the JSON a shell example printed found however it was laid out.
 */
import { describe, expect, it } from 'vitest';
import { fencedBlocks } from '../support/markdown-shell-blocks.ts';
import { jsonObjectsIn, secretsInShellOutput } from '../support/shell-output-secrets.ts';

const markdown = [
  'Text.',
  '',
  '```sh',
  'curl -fsS "$BASE/ping"',
  '```',
  '',
  '1. A step:',
  '   <!-- deployed-only -->',
  '   ```sh',
  '   npx cdk deploy \\',
  '     -c memberRoutes=off',
  '   ```',
  '',
  '<!-- not-run: the whole suite -->',
  '```bash',
  'npm test',
  '```',
  '',
  '```',
  'Integration: 01k...',
  '```',
].join('\n');

describe('fencedBlocks', () => {
  it('reads every block with its language, its line, its mark, and the text without the list indentation', () => {
    expect(fencedBlocks('docs/x.md', markdown)).toEqual([
      { file: 'docs/x.md', line: 3, language: 'sh', text: 'curl -fsS "$BASE/ping"', marker: null },
      { file: 'docs/x.md', line: 9, language: 'sh', text: 'npx cdk deploy \\\n  -c memberRoutes=off', marker: { kind: 'deployed-only' } },
      { file: 'docs/x.md', line: 15, language: 'bash', text: 'npm test', marker: { kind: 'not-run', reason: 'the whole suite' } },
      { file: 'docs/x.md', line: 19, language: '', text: 'Integration: 01k...', marker: null },
    ]);
  });

  it('names any other comment before a fence as such, for the test to refuse', () => {
    expect(fencedBlocks('README.md', '<!-- skip -->\n```sh\nls\n```')[0]!.marker).toEqual({ kind: 'other', text: 'skip' });
  });
});

describe('jsonObjectsIn', () => {
  it('finds objects glued together (curl prints no line break), pretty-printed after plain lines, with braces inside strings', () => {
    const output = '{"a":1}{"b":"}{"}\nIntegration: 01k\n\n{\n  "problem": null,\n  "c": [1, {"d": 2}]\n}\nexport X=\'{not json}\'';
    expect(jsonObjectsIn(output)).toEqual([{ a: 1 }, { b: '}{' }, { problem: null, c: [1, { d: 2 }] }]);
  });
});

describe('secretsInShellOutput', () => {
  it("takes the answers' secret fields, the URLs' secret parts and the secret flags' values, not a placeholder's words", () => {
    const token = 'Xqjqw66sqwAD1gZ5hb9VqJVK0qbGYs0VOs9-d9d6KLE';
    const output = [
      '{"secret":"whsec_abcdefghijklmnopqrstuvwx","id":"01m8bqs7xqn1tya3a18e1pm5gv"}',
      `export TRIGGER_URL='http://localhost:3000/inbound/ticket-trigger/${token}'`,
      '> tsx bin/admin.ts set-integration --auth hmac --signing-secret 0123456789abcdef0123 --auth zendesk --signing-secret <webhook signing secret>',
    ].join('\n');
    expect(secretsInShellOutput(output).sort()).toEqual(['0123456789abcdef0123', token, 'whsec_abcdefghijklmnopqrstuvwx'].sort());
  });
});

/**
 * The fenced code blocks of Markdown files, as a reader copies them: a block indented under a
 * list item loses that indentation, and the HTML comment on the line before the fence, if any,
 * says how the block is meant (`<!-- deployed-only -->`, `<!-- not-run: why -->`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The languages a shell example is fenced with. */
export const SHELL_LANGUAGES = new Set(['sh', 'bash', 'shell']);

export type BlockMarker = { kind: 'deployed-only' } | { kind: 'not-run'; reason: string } | { kind: 'other'; text: string } | null;

export interface FencedBlock {
  /** The file, relative to the repository root, and the line of the opening fence (1-based). */
  file: string;
  line: number;
  language: string;
  text: string;
  marker: BlockMarker;
}

const markerOf = (line: string | undefined): BlockMarker => {
  const comment = /^<!--\s*(.*?)\s*-->$/.exec(line?.trim() ?? '')?.[1];
  if (comment === undefined) return null;
  if (comment === 'deployed-only') return { kind: 'deployed-only' };
  const notRun = /^not-run:\s*(.+)$/.exec(comment);
  return notRun ? { kind: 'not-run', reason: notRun[1]! } : { kind: 'other', text: comment };
};

/** Every fenced block of one file's text, in order. */
export const fencedBlocks = (file: string, markdown: string): FencedBlock[] => {
  const lines = markdown.split('\n');
  const blocks: FencedBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    const opening = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)\s*$/.exec(lines[index]!);
    if (!opening) continue;
    const [, indent, fence, language] = opening as unknown as [string, string, string, string];
    const closing = lines.findIndex((line, at) => at > index && line.trim() === fence);
    const end = closing === -1 ? lines.length : closing;
    const text = lines
      .slice(index + 1, end)
      .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line.trimStart()))
      .join('\n');
    blocks.push({ file, line: index + 1, language, text, marker: markerOf(lines[index - 1]) });
    index = end;
  }
  return blocks;
};

/** README.md and every docs/*.md of the repository at `root`, in that order (docs/ by name). */
export const documentationFiles = (root: string) => [
  join(root, 'README.md'),
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => join(root, 'docs', name)),
];

/** Every fenced block of the documentation, in reading order. */
export const documentationBlocks = (root: string) => documentationFiles(root).flatMap((path) => fencedBlocks(relative(root, path), readFileSync(path, 'utf8')));

export const isShellBlock = (block: FencedBlock) => SHELL_LANGUAGES.has(block.language);

/** Where a block is, as a person looks it up. */
export const placeOf = (block: Pick<FencedBlock, 'file' | 'line'>) => `${block.file}:${block.line}`;

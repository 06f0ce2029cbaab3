/**
 * tools/verify-custody-certificate.mjs, the single file auditors run, loads nothing but Node's
 * built-in modules, and has no other way to load code.
 */
import { builtinModules } from 'node:module';
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';
import { VERIFIER } from '../support/standalone-verifier.ts';

describe('what the file loads', () => {
  test('imports nothing but node: built-ins, and has no other way to load code', () => {
    const source = readFileSync(VERIFIER, 'utf8');
    const { importedFiles, referencedFiles, typeReferenceDirectives } = ts.preProcessFile(source, true, true);
    const specifiers = importedFiles.map((file) => file.fileName);
    expect(specifiers.length).toBeGreaterThan(0);
    for (const specifier of specifiers) {
      expect(specifier).toMatch(/^node:/);
      expect(builtinModules).toContain(specifier.slice('node:'.length));
    }
    expect([...referencedFiles, ...typeReferenceDirectives]).toEqual([]);
    // No dynamic import, require, eval or native binding: what is imported above is all it runs.
    expect(source).not.toMatch(/\bimport\s*\(|\brequire\s*\(|createRequire|\beval\b|new Function|process\.binding|process\.dlopen|WebAssembly/);
  });
});

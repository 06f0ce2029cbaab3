import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { App, NestedStack, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { inject } from 'vitest';
import { HandoffStack } from '../../lib/handoff-stack.ts';
import { flatTemplate } from './flat-template.ts';

/**
 * The main test stack, synthesised with every function bundled by esbuild, once per test run:
 * bundling the ~92 functions takes tens of seconds of CPU, too much to repeat for each file in
 * test/infra/bundled-stack/, which vitest runs in two worker processes. The first process to ask
 * takes a lock in the run folder (global-setup.ts), synthesises into that folder and publishes the
 * template as a JSON file; every other process waits for that file and reads it. The run's order
 * (bundled-stack-sequencer.ts) starts one of those files first and the others last, so no worker
 * sits waiting for the synthesis while there are other files to run.
 */

/** The sender the main test stack is deployed with. */
export const EMAIL_FROM = 'handoff@test.example';
export const SYNTH_TIMEOUT = 180_000;
const POLL_MS = 250;

type Json = Record<string, any>;

export interface BundledStack {
  /** The cloud assembly: each function's bundle is in an asset.<hash> folder of it. */
  outdir: string;
  /** The template, with the nested stacks' resources folded in (flat-template.ts). */
  template: Json;
  /** Resources in the main stack and in each nested stack, by the stack's path. */
  resourceCounts: Record<string, number>;
}

const synthesise = (runDir: string): BundledStack => {
  const outdir = mkdtempSync(join(runDir, 'handoff-infra-'));
  const app = new App({ outdir });
  const stack = new HandoffStack(app, 'HandoffTest', { emailFrom: EMAIL_FROM });
  const template = flatTemplate(stack).toJSON();
  const stacks: Stack[] = [stack, ...stack.node.findAll().filter(NestedStack.isNestedStack)];
  const resourceCounts = Object.fromEntries(stacks.map((s) => [s.node.path, Object.keys(Template.fromStack(s).toJSON().Resources).length]));
  return { outdir, template, resourceCounts };
};

/** Written aside, then renamed: a rename within a folder is atomic, so a reader sees the whole file or none. */
const publish = (file: string, content: string) => {
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, content);
  renameSync(partial, file);
};

const waitFor = async (published: string, failed: string): Promise<BundledStack> => {
  const deadline = Date.now() + SYNTH_TIMEOUT;
  for (;;) {
    if (existsSync(published)) return JSON.parse(readFileSync(published, 'utf8'));
    if (existsSync(failed)) throw new Error(`The bundled stack failed to synthesise in another test process:\n${readFileSync(failed, 'utf8')}`);
    if (Date.now() > deadline) throw new Error(`No bundled stack in ${published} after ${SYNTH_TIMEOUT} ms`);
    await sleep(POLL_MS);
  }
};

const load = async (): Promise<BundledStack> => {
  const runDir = inject('runDir');
  const published = join(runDir, 'bundled-stack.json');
  const failed = join(runDir, 'bundled-stack.error');
  try {
    // Making a folder is atomic: exactly one process gets to synthesise.
    mkdirSync(join(runDir, 'bundled-stack.lock'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return waitFor(published, failed);
  }
  let stack: BundledStack;
  try {
    stack = synthesise(runDir);
  } catch (error) {
    // The waiting processes fail with this error at once, rather than at the timeout.
    publish(failed, String((error as Error).stack ?? error));
    throw error;
  }
  publish(published, JSON.stringify(stack));
  return stack;
};

let loading: Promise<BundledStack> | undefined;

/** The bundled stack of this run: synthesised by the first process to ask, read from the run folder by the others. */
export const bundledStack = (): Promise<BundledStack> => (loading ??= load());

import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The files that share the run's one bundled synthesis of the stack (synthesised-stack.ts). */
const BUNDLED_STACK_FILES = /\/test\/infra\/bundled-stack\//;

/**
 * Vitest's order (the slowest and failed files first), except for the files that assert on the
 * bundled stack: one of them goes first, to synthesise it while the other worker runs other files,
 * and the rest go last, when it is long made. In vitest's own order they could start side by side,
 * one worker waiting the whole synthesis out.
 */
export class BundledStackSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const shareTheStack = (file: TestSpecification) => BUNDLED_STACK_FILES.test(file.moduleId);
    const [first, ...rest] = sorted.filter(shareTheStack);
    return first ? [first, ...sorted.filter((file) => !shareTheStack(file)), ...rest] : sorted;
  }
}

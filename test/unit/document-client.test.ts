import { describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../lambdas/store/dynamo.ts';

describe('the DynamoDB document client', () => {
  it('carries no SDK logger middleware, which would copy every item read for a logger that logs nothing', () => {
    const steps = createDocumentClient({ endpoint: 'http://127.0.0.1:1' }).middlewareStack.identify();
    expect(steps.length).toBeGreaterThan(0);
    expect(steps.filter((step) => /logger/i.test(step))).toEqual([]);
  });
});

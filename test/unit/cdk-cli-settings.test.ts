import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * docs/deploying.md says `npx cdk synth` calls nothing on the network: the CDK CLI fetches notices
 * and reports telemetry on every command unless cdk.json says otherwise.
 */
describe('cdk.json', () => {
  const cdkJson = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as {
    notices?: unknown;
    context?: Record<string, unknown>;
  };

  it("turns off the CDK CLI's notices", () => {
    expect(cdkJson.notices).toBe(false);
  });

  it("turns off the CDK CLI's telemetry", () => {
    expect(cdkJson.context?.['cli-telemetry']).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { DEFAULT_MAPPING } from '../../../lambdas/core/inbound/mapping.ts';
import type { InboundSecretTarget, Integration, IntegrationRepository } from '../../../lambdas/core/integration.ts';
import { InboundUrlMemory } from '../../../lambdas/core/use-cases/inbound/url-memory.ts';

/** An integrations store that counts its look-ups and answers what the test set. */
const countingStore = () => {
  const targets = new Map<string, InboundSecretTarget>();
  const integrations = new Map<string, Integration>();
  const lookUps: string[] = [];
  const store = {
    findBySecretHash: async (hash: string) => (lookUps.push(hash), targets.get(hash) ?? null),
    get: async (_orgId: string, id: string) => integrations.get(id) ?? null,
    recordActivity: async () => undefined,
  } as unknown as IntegrationRepository;
  return { store, targets, integrations, lookUps };
};

const target = (n: number): InboundSecretTarget => ({ orgId: `org-${n}`, integrationId: `int-${n}`, purpose: 'status' });

describe('InboundUrlMemory', () => {
  it('looks a URL up once; a secret that leads nowhere is looked up every time', async () => {
    const { store, targets, lookUps } = countingStore();
    targets.set('hash-1', target(1));
    const remembering = new InboundUrlMemory().over(store);
    expect(await remembering.findBySecretHash('hash-1')).toEqual(target(1));
    expect(await remembering.findBySecretHash('hash-1')).toEqual(target(1));
    expect(await remembering.findBySecretHash('unknown')).toBeNull();
    expect(await remembering.findBySecretHash('unknown')).toBeNull();
    expect(lookUps).toEqual(['hash-1', 'unknown', 'unknown']);
  });

  it("reads every integration afresh, and notes its mapping as last read", async () => {
    const { store, integrations } = countingStore();
    const memory = new InboundUrlMemory();
    const remembering = memory.over(store);
    expect(memory.mappingOf('int-1')).toBeNull();
    integrations.set('int-1', { id: 'int-1', enabled: true, mapping: DEFAULT_MAPPING } as Integration);
    expect((await remembering.get('org-1', 'int-1'))!.enabled).toBe(true);
    const remapped = { ...DEFAULT_MAPPING, ticketId: ['ticket.id'] };
    integrations.set('int-1', { id: 'int-1', enabled: false, mapping: remapped } as Integration);
    expect((await remembering.get('org-1', 'int-1'))!.enabled).toBe(false);
    expect(memory.mappingOf('int-1')).toEqual(remapped);
  });

  it('keeps at most a thousand URLs, forgetting the least recently posted to first', async () => {
    const { store, targets, lookUps } = countingStore();
    for (let n = 0; n <= 1000; n++) targets.set(`hash-${n}`, target(n));
    const remembering = new InboundUrlMemory().over(store);
    for (let n = 0; n < 1000; n++) await remembering.findBySecretHash(`hash-${n}`);
    await remembering.findBySecretHash('hash-0'); // posted to again: now the most recent
    await remembering.findBySecretHash('hash-1000');
    lookUps.length = 0;
    await remembering.findBySecretHash('hash-0');
    await remembering.findBySecretHash('hash-1');
    expect(lookUps).toEqual(['hash-1']);
  });
});

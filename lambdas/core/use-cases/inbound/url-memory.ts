import type { InboundSecretTarget, IntegrationRepository } from '../../integration.ts';
import type { FieldMapping } from '../../inbound/mapping.ts';
import { setNewest } from '../../bounded-map.ts';

/** URLs, and integrations' mappings, one container remembers; the least recently used go first. */
const REMEMBERED = 1000;

/** Keeps at most REMEMBERED entries, dropping the one used longest ago. */
class Recent<T> {
  private readonly entries = new Map<string, T>();

  get(key: string) {
    const value = this.entries.get(key);
    if (value !== undefined) this.set(key, value);
    return value;
  }

  set(key: string, value: T) {
    setNewest(this.entries, key, value, REMEMBERED);
  }
}

/**
 * What one container remembers of the inbound URLs posted to it, so that a post's reads can go
 * out in one round: where a URL's secret leads (its look-up item never changes: a rotation
 * deletes it and writes another), and each integration's field mapping as last read.
 *
 * Nothing here decides anything. The integration and its organisation are read at every post, so
 * a rotation (the integration no longer names the secret: 404), a disablement, a new limit or new
 * hardening takes effect at the next post as before; the mapping only says which ticket to read
 * ahead, and the post is read again with the integration's own once it is in.
 */
export class InboundUrlMemory {
  private readonly targets = new Recent<InboundSecretTarget>();
  private readonly mappings = new Recent<FieldMapping>();

  /** The integration's mapping as last read here, or null. */
  mappingOf(integrationId: string): FieldMapping | null {
    return this.mappings.get(integrationId) ?? null;
  }

  /** `integrations`, with each URL's look-up remembered once found and each integration's mapping noted as it is read. */
  over(integrations: IntegrationRepository): IntegrationRepository {
    return {
      findBySecretHash: async (secretHash) => {
        const remembered = this.targets.get(secretHash);
        if (remembered) return remembered;
        const target = await integrations.findBySecretHash(secretHash);
        if (target) this.targets.set(secretHash, target);
        return target;
      },
      get: async (orgId, integrationId) => {
        const integration = await integrations.get(orgId, integrationId);
        if (integration) this.mappings.set(integration.id, integration.mapping);
        return integration;
      },
      list: (orgId) => integrations.list(orgId),
      create: (integration, audit) => integrations.create(integration, audit),
      replace: (before, after, audit, policyVersion) => integrations.replace(before, after, audit, policyVersion),
      recordActivity: (integrationId, activity) => integrations.recordActivity(integrationId, activity),
      activity: (integrationId, now) => integrations.activity(integrationId, now),
    };
  }
}

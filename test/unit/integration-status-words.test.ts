/**
 * Removing status words from an integration through the use case the member app and the operator
 * CLI share (configureIntegration): the words leave the stored map and the audit entry names them;
 * a word the map does not hold, a standard word, a blank one, one also being added, or one named
 * like a built-in property is refused by field and changes nothing. A recipe's words are the
 * integration's own once applied, so they can be removed, and applying the recipe again brings
 * them back.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../lambdas/core/errors.ts';
import { normaliseTicketStatus } from '../../lambdas/core/inbound/status-words.ts';
import type { Integration, IntegrationRepository } from '../../lambdas/core/integration.ts';
import { OPERATOR_ACTOR } from '../../lambdas/core/model.ts';
import type { AuditEntryInput } from '../../lambdas/core/ports.ts';
import type { SecretSealer } from '../../lambdas/core/sealing.ts';
import { configureIntegration, connectIntegration, type IntegrationChanges, type IntegrationDeps } from '../../lambdas/core/use-cases/integrations/manage-integration.ts';
import { FakeDirectory, fixedClock, ORG_ID, URLS } from './support/fakes.ts';

/** Integrations kept in memory, with the audit entry each write was given. */
class MemoryIntegrations implements Pick<IntegrationRepository, 'get' | 'create' | 'replace'> {
  stored = new Map<string, Integration>();
  audit: AuditEntryInput[] = [];
  async get(orgId: string, integrationId: string) {
    const found = this.stored.get(integrationId);
    return found && found.orgId === orgId ? structuredClone(found) : null;
  }
  async create(integration: Integration, audit: AuditEntryInput) {
    this.stored.set(integration.id, structuredClone(integration));
    this.audit.push(audit);
  }
  async replace(_before: Integration, after: Integration, audit: AuditEntryInput) {
    this.stored.set(after.id, structuredClone({ ...after, version: after.version + 1 }));
    this.audit.push(audit);
  }
}

const neverSeals: SecretSealer = {
  seal: () => Promise.reject(new Error('no secret is sealed here')),
  open: () => Promise.reject(new Error('no secret is opened here')),
};

let integrations: MemoryIntegrations;
let deps: IntegrationDeps;

beforeEach(() => {
  integrations = new MemoryIntegrations();
  deps = { integrations: integrations as unknown as IntegrationRepository, directory: new FakeDirectory(), sealer: neverSeals, clock: fixedClock(), urls: URLS };
});

const connected = async (recipe: string | null = null) => (await connectIntegration(deps, OPERATOR_ACTOR, { orgId: ORG_ID, name: 'Desk', recipe })).integration;
const configure = (id: string, changes: IntegrationChanges) => configureIntegration(deps, OPERATOR_ACTOR, ORG_ID, id, changes);
const storedMap = (id: string) => integrations.stored.get(id)!.statusMap;
const lastAudit = () => integrations.audit.at(-1)!;

/** The field errors of a refused change, or a failure naming what happened instead. */
const refusal = async (change: Promise<unknown>) => {
  const error = await change.then(
    () => new Error('the change was made'),
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ApiError);
  expect(error).toMatchObject({ status: 422, code: 'validation_failed' });
  return (error as ApiError).errors!;
};

describe('removing status words from an integration', () => {
  it('takes the words out in any capitals and spacing, keeps the others, and audits which were removed', async () => {
    const { id } = await connected();
    await configure(id, { statusMap: { 'Waiting on customer': 'pending', Parked: 'pending', Done: 'closed' } });
    const view = await configure(id, { removeStatusWords: ['  WAITING   on Customer ', 'done'] });
    expect(view.status_map).toEqual({ parked: 'pending' });
    expect(storedMap(id)).toEqual({ parked: 'pending' });
    expect(lastAudit()).toMatchObject({
      type: 'integration.updated',
      actor: OPERATOR_ACTOR,
      data: { details: { integration_id: id, changed: ['removeStatusWords'], status_words_removed: ['waiting on customer', 'done'] } },
    });
    // A removed word is no longer understood: it is unknown, which never purges.
    expect(normaliseTicketStatus('Done', storedMap(id)).status).toBe('unknown');
  });

  it('removes and adds in one change; the audit names the removed words only', async () => {
    const { id } = await connected();
    await configure(id, { statusMap: { parked: 'pending', done: 'closed' } });
    const view = await configure(id, { statusMap: { finished: 'closed' }, removeStatusWords: ['done', 'DONE'] });
    expect(view.status_map).toEqual({ parked: 'pending', finished: 'closed' });
    expect(lastAudit().data.details).toMatchObject({ changed: ['statusMap', 'removeStatusWords'], status_words_removed: ['done'] });
  });

  it('names in the audit entry only the settings a change changed, not those given as they already were', async () => {
    const { id } = await connected();
    await configure(id, { name: 'Desk', statusMap: { parked: 'pending' }, rateLimitPerMinute: 30 });
    await configure(id, { name: 'Desk', statusMap: { parked: 'pending' }, rateLimitPerMinute: 45, enabled: true });
    expect(lastAudit().data.details).toMatchObject({ changed: ['rateLimitPerMinute'] });
  });

  it("removes a recipe's word; a standard word removed means what it means without a map again; the recipe applied again brings them back", async () => {
    const { id } = await connected('halopsa');
    expect(storedMap(id)).toMatchObject({ '9': 'closed', '8': 'resolved' });
    await configure(id, { removeStatusWords: ['9'] });
    expect(storedMap(id)).not.toHaveProperty('9');
    expect(normaliseTicketStatus(9, storedMap(id)).status).toBe('unknown');

    const zendesk = await connected('zendesk');
    await configure(zendesk.id, { statusMap: { solved: 'closed' } });
    await configure(zendesk.id, { removeStatusWords: ['solved'] });
    expect(normaliseTicketStatus('Solved', storedMap(zendesk.id)).status).toBe('resolved');

    // With a recipe in the same change, the words removed are the recipe's.
    const again = await configure(id, { recipe: 'halopsa', removeStatusWords: ['1'] });
    expect(again.status_map).toEqual({ '2': 'open', '4': 'pending', '8': 'resolved', '9': 'closed' });
  });

  it('refuses a word the map does not hold, naming it, and changes nothing', async () => {
    const { id } = await connected();
    await configure(id, { statusMap: { parked: 'pending' } });
    const before = structuredClone(integrations.stored.get(id));
    const audited = integrations.audit.length;
    expect(await refusal(configure(id, { removeStatusWords: ['parked', 'parkd'] }))).toEqual({ remove_status_words: ['"parkd" is not one of this integration\'s status words.'] });
    expect(await refusal(configure(id, { removeStatusWords: ['Closed'] }))).toEqual({
      remove_status_words: ['"closed" is a standard word, always understood without the integration\'s words: it cannot be removed.'],
    });
    expect(await refusal(configure(id, { removeStatusWords: [] }))).toEqual({ remove_status_words: ['Name 1 or more words to remove.'] });
    expect(await refusal(configure(id, { removeStatusWords: ['  '] }))).toEqual({ remove_status_words: ['A word to remove cannot be blank.'] });
    expect(await refusal(configure(id, { statusMap: { Parked: 'closed' }, removeStatusWords: ['parked'] }))).toEqual({
      remove_status_words: ['"parked" is both added and removed: give it in one of the two.'],
    });
    // Every refusal left the integration as it was.
    expect(integrations.stored.get(id)).toEqual(before);
    expect(integrations.audit.length).toBe(audited);
    // Removed once, a second removal of the same word is refused: it is no longer there.
    await configure(id, { removeStatusWords: ['parked'] });
    expect(await refusal(configure(id, { removeStatusWords: ['parked'] }))).toEqual({ remove_status_words: ['"parked" is not one of this integration\'s status words.'] });
    expect(integrations.audit.length).toBe(audited + 1);
    expect(integrations.stored.get(id)!.statusMap).toEqual({});
  });

  it('still refuses built-in property names: on status_map when added, on remove_status_words when removed', async () => {
    const { id } = await connected('zendesk');
    const before = structuredClone(integrations.stored.get(id));
    for (const word of ['__proto__', 'constructor', 'prototype', 'toString', 'HasOwnProperty']) {
      expect(Object.keys(await refusal(configure(id, { statusMap: Object.fromEntries([[word, 'closed']]) })))).toEqual(['status_map']);
      expect(await refusal(configure(id, { removeStatusWords: [word] }))).toEqual({
        remove_status_words: [`${JSON.stringify(word.toLowerCase())} names a built-in property: it is never a status word.`],
      });
    }
    expect(integrations.stored.get(id)).toEqual(before);
  });
});

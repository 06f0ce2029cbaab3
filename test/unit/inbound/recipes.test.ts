import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readInboundPayload } from '../../../lambdas/core/inbound/inbound-payload.ts';
import { interpret, problemOf } from '../../../lambdas/core/inbound/mapping.ts';
import { RECIPES, RECIPE_NAMES, isRecipeName, type RecipeName } from '../../../lambdas/core/inbound/recipes.ts';
import { normaliseTicketStatus } from '../../../lambdas/core/inbound/status-words.ts';

const FIXTURES = new URL('../../fixtures/helpdesks/', import.meta.url);
const fixture = (file: string) => readFileSync(new URL(file, FIXTURES), 'utf8');

interface Sample {
  file: string;
  recipe: string;
  ticket_id: string;
  /** Free text; its first word is the status the sample must be read as. */
  status: string;
}
const MANIFEST = JSON.parse(fixture('manifest.json')) as Sample[];

const readThrough = (recipeName: RecipeName, body: string, contentType = 'application/json') => {
  const recipe = RECIPES[recipeName];
  const payload = readInboundPayload({ body, contentType, query: {} });
  expect(payload.problem).toBeNull();
  return interpret(payload.fields, recipe.mapping, recipe.statusMap);
};

describe('recipes', () => {
  it('covers the eight helpdesks, each under its own name', () => {
    expect(RECIPE_NAMES).toEqual(['zendesk', 'jira', 'freshdesk', 'servicenow', 'zammad', 'halopsa', 'connectwise', 'autotask']);
    expect(Object.keys(RECIPES).sort()).toEqual([...RECIPE_NAMES].sort());
    for (const name of RECIPE_NAMES) {
      expect(RECIPES[name].name).toBe(name);
      expect(RECIPES[name].label.length).toBeGreaterThan(0);
      expect(RECIPES[name].setup.length).toBeGreaterThan(20);
      expect(RECIPES[name].setup).not.toContain('\n');
    }
  });

  it('names the signature each helpdesk sends', () => {
    expect(Object.fromEntries(RECIPE_NAMES.map((name) => [name, RECIPES[name].auth]))).toEqual({
      zendesk: 'zendesk',
      jira: 'hub-sha256',
      freshdesk: 'header',
      servicenow: 'header',
      zammad: 'hub-sha1',
      halopsa: 'header',
      connectwise: 'none',
      autotask: 'none',
    });
  });

  it('tells recipe names from other text', () => {
    expect(isRecipeName('zendesk')).toBe(true);
    expect(isRecipeName('autotask')).toBe(true);
    expect(isRecipeName('Zendesk')).toBe(false);
    expect(isRecipeName('toString')).toBe(false);
    expect(isRecipeName('')).toBe(false);
  });

  it('has a sample for every recipe in the manifest', () => {
    expect(MANIFEST).toHaveLength(9);
    expect(new Set(MANIFEST.map((sample) => sample.recipe))).toEqual(new Set(RECIPE_NAMES));
  });

  it.each(MANIFEST.map((sample) => [sample.file, sample] as const))('reads %s to the manifest ticket id and status', (_file, sample) => {
    expect(isRecipeName(sample.recipe)).toBe(true);
    const expectedStatus = sample.status.split(' ')[0];
    expect(['resolved', 'closed']).toContain(expectedStatus);
    const result = readThrough(sample.recipe as RecipeName, fixture(sample.file));
    expect(result.ticketId).toBe(sample.ticket_id);
    expect(result.status).toBe(expectedStatus);
    expect(problemOf(result, 'status')).toBeNull();
  });

  it('reads the statuses the way each helpdesk words them', () => {
    expect(readThrough('zendesk', fixture('zendesk-event.json'))).toMatchObject({ ticketId: '5158', status: 'resolved', statusWord: 'solved' });
    expect(readThrough('zendesk', fixture('zendesk-trigger.json'))).toMatchObject({ ticketId: '35436', status: 'resolved', statusWord: 'solved' });
    expect(readThrough('jira', fixture('jira-issue-updated.json'))).toMatchObject({ ticketId: 'IT-42', status: 'closed', statusWord: 'done' });
    expect(readThrough('freshdesk', fixture('freshdesk-automation.json'))).toMatchObject({ ticketId: '1287', status: 'resolved', statusWord: '4' });
    expect(readThrough('connectwise', fixture('connectwise-callback.json'))).toMatchObject({ ticketId: '48213', status: 'closed', statusWord: 'true' });
    expect(readThrough('autotask', fixture('autotask-ticket.json'))).toMatchObject({ ticketId: '99123', status: 'closed', statusWord: '5' });
    expect(readThrough('servicenow', fixture('servicenow-business-rule.json'))).toMatchObject({ ticketId: 'INC0010001', status: 'resolved', statusWord: '6' });
    expect(readThrough('halopsa', fixture('halopsa-webhook.json'))).toMatchObject({ ticketId: '1234', status: 'closed', statusWord: '9' });
    expect(readThrough('zammad', fixture('zammad-trigger.json'))).toMatchObject({ ticketId: '10081', status: 'closed', statusWord: 'closed' });
  });

  it('reads a Zendesk event that changed something else than the status as the ticket\u2019s status, not the changed value', () => {
    const event = JSON.parse(fixture('zendesk-event.json'));
    for (const [type, current] of [['zen:event-type:ticket.priority_changed', 'HIGH'], ['zen:event-type:ticket.custom_status_changed', '360012345678']]) {
      const other = { ...event, type, event: { current, previous: 'LOW' } };
      expect(readThrough('zendesk', JSON.stringify(other)), type).toMatchObject({ ticketId: '5158', status: 'resolved', statusWord: 'solved' });
    }
  });

  it('maps each helpdesk vocabulary as its vendor defines it', () => {
    const statusOf = (name: RecipeName, raw: unknown) => normaliseTicketStatus(raw, RECIPES[name].statusMap).status;
    expect(['NEW', 'OPEN', 'PENDING', 'HOLD', 'SOLVED', 'CLOSED'].map((word) => statusOf('zendesk', word))).toEqual([
      'open', 'open', 'pending', 'pending', 'resolved', 'closed',
    ]);
    expect(['new', 'indeterminate', 'done'].map((word) => statusOf('jira', word))).toEqual(['open', 'pending', 'closed']);
    expect(['new', 'open', 'pending reminder', 'pending close', 'merged', 'closed'].map((word) => statusOf('zammad', word))).toEqual([
      'open', 'open', 'pending', 'pending', 'closed', 'closed',
    ]);
    expect([2, 3, 4, 5, 6, 'Resolved'].map((code) => statusOf('freshdesk', code))).toEqual([
      'open', 'pending', 'resolved', 'closed', 'unknown', 'resolved',
    ]);
    expect(['1', '2', '3', '6', '7', '8', '4'].map((state) => statusOf('servicenow', state))).toEqual([
      'open', 'open', 'pending', 'resolved', 'closed', 'closed', 'unknown',
    ]);
    expect([1, 2, 4, 8, 9, 3].map((id) => statusOf('halopsa', id))).toEqual(['open', 'open', 'pending', 'resolved', 'closed', 'unknown']);
    expect([true, false].map((flag) => statusOf('connectwise', flag))).toEqual(['closed', 'open']);
    expect([1, 5, 7, 8, 2].map((id) => statusOf('autotask', id))).toEqual(['open', 'closed', 'pending', 'open', 'unknown']);
  });

  it('reads a reopened ConnectWise ticket as open', () => {
    const body = JSON.stringify({ ID: 48213, Entity: JSON.stringify({ id: 48213, closedFlag: false }) });
    expect(readThrough('connectwise', body)).toMatchObject({ ticketId: '48213', status: 'open', statusWord: 'false' });
  });

  it('reads the flat form-encoded Freshdesk variant', () => {
    const coded = readThrough('freshdesk', 'ticket_id=1287&ticket_status_code=5', 'application/x-www-form-urlencoded');
    expect(coded).toMatchObject({ ticketId: '1287', status: 'closed', statusWord: '5' });
    const labelled = readThrough('freshdesk', 'ticket_id=1288&ticket_status=Pending', 'application/x-www-form-urlencoded');
    expect(labelled).toMatchObject({ ticketId: '1288', status: 'pending', statusWord: 'pending' });
  });

  it('reads a Freshdesk body that carries only the status label', () => {
    const body = JSON.stringify({ freshdesk_webhook: { ticket_id: '77', ticket_status: 'Closed' } });
    expect(readThrough('freshdesk', body)).toMatchObject({ ticketId: '77', status: 'closed' });
  });
});

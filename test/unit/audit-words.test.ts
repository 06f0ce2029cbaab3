import { describe, expect, it } from 'vitest';
import { AUDIT_TYPES, ORGANISATION_AUDIT_TYPES, SHARE_AUDIT_TYPES } from '../../lambdas/core/audit-types.ts';
import { EVENT_TYPES } from '../../lambdas/core/events.ts';
import { REQUEST_STATUSES } from '../../lambdas/core/model.ts';
import { RELINK_CAUSES, REQUEST_END_REASONS } from '../../lambdas/core/request-state.ts';
import { REQUEST_TRAIL_TYPES } from '../../lambdas/core/request-trail-types.ts';
import { SHARE_END_REASONS } from '../../lambdas/core/share.ts';
import { AUDIT_TEXT, auditText } from '../../web/app/labels.ts';
import { detailsText, inSentence, reasonText, REASON_TEXT, RELINK_CAUSE_TEXT, relinkCauseText, STATUS_TEXT, statusText } from '../../web/app/request-words.ts';

const WORDS = /^[A-Z][^.]*[a-z]$/;

describe('audit entry types in words', () => {
  it('every type the service writes has words, and no words are kept for a type it never writes', () => {
    expect(new Set(AUDIT_TYPES).size).toBe(AUDIT_TYPES.length);
    expect(Object.keys(AUDIT_TEXT).sort()).toEqual([...AUDIT_TYPES].sort());
    for (const type of AUDIT_TYPES) expect(AUDIT_TEXT[type], type).toMatch(WORDS);
  });

  it('the list holds the request trail, the share custody entries, the organisation’s own entries and every event type', () => {
    for (const type of [...REQUEST_TRAIL_TYPES, ...SHARE_AUDIT_TYPES, ...ORGANISATION_AUDIT_TYPES, ...EVENT_TYPES]) expect(AUDIT_TYPES).toContain(type);
  });

  it('names the entries that used to show as raw types, and shows a type it does not know as it is stored', () => {
    expect(auditText('share.created')).toBe('Share created');
    expect(auditText('share.revealed')).toBe('Share opened');
    expect(auditText('share.purged')).toBe('Share destroyed');
    expect(auditText('organisation.policy_changed')).toBe('Policy changed');
    expect(auditText('request.completed')).toBe('Completed; credential destroyed');
    expect(auditText('request.teleported')).toBe('request.teleported');
    expect(auditText('toString')).toBe('toString');
  });
});

describe('stored codes in words', () => {
  it('every reason a request or a share ends with has words', () => {
    for (const reason of [...REQUEST_END_REASONS, ...SHARE_END_REASONS]) expect(REASON_TEXT[reason], reason).toMatch(/^[A-Z][^.]*[A-Za-z]$/);
    expect(reasonText('completed_by_member')).toBe('Completed by a member');
    expect(reasonText('revoked_by_member')).toBe('Revoked by a member');
    expect(reasonText('expired')).toBe('Its time ran out');
  });

  it('every relink cause and every request status has words', () => {
    expect(Object.keys(RELINK_CAUSE_TEXT).sort()).toEqual([...RELINK_CAUSES].sort());
    expect(Object.keys(STATUS_TEXT).sort()).toEqual([...REQUEST_STATUSES].sort());
    expect(relinkCauseText('locked')).toBe('The link was locked after too many wrong codes');
    expect(statusText('opened')).toBe('Opened');
  });

  it('a code no table knows yet is at least spaced out; words someone typed stay as they are', () => {
    expect(reasonText('some_new_reason')).toBe('some new reason');
    expect(reasonText('Waiting on customer')).toBe('Waiting on customer');
    expect(reasonText('hasOwnProperty')).toBe('hasOwnProperty');
  });

  it('goes inside a sentence with a small first letter, an abbreviation left alone', () => {
    expect(inSentence('Revoked by a member')).toBe('revoked by a member');
    expect(inSentence('A recipient’s key changed')).toBe('a recipient’s key changed');
    expect(inSentence('API key created')).toBe('API key created');
  });
});

describe("a trail entry's details", () => {
  it('words a relink’s cause and previous status, and leaves out a list with nothing in it', () => {
    const text = detailsText({ cause: 'locked', previous_status: 'opened', excluded_recipients: [] });
    expect(text).toBe('cause: the link was locked after too many wrong codes; previous status: opened');
    expect(text).not.toContain('excluded');
  });

  it('names the recipients a relink left out, and the verification it raised from', () => {
    expect(detailsText({ cause: 'recipient_key_changed', excluded_recipients: [{ label: 'Bo Member', problem: 'key_awaits_approval' }], verification_mode_raised_from: 'none' })).toBe(
      'cause: a recipient’s key changed; excluded recipients: Bo Member (key awaits approval); verification mode raised from: none',
    );
  });

  it('words an end’s reason, and says yes or no for a flag', () => {
    expect(detailsText({ purge_reason: 'completed_by_member' })).toBe('purge reason: completed by a member');
    expect(detailsText({ revoked_reason: 'revoked_via_api' })).toBe('revoked reason: revoked through the API');
    expect(detailsText({ purge_reason: 'ticket_closed', grace_period_ended: true })).toBe('purge reason: its ticket was closed; grace period ended: yes');
    expect(detailsText({ reason: 'credential_handed_over', status: 'Closed' })).toBe('reason: the credential was handed over; status: Closed');
    expect(detailsText(null)).toBe('');
  });
});

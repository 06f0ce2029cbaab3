/**
 * POST /requests over real HTTP under the organisation's policy: the TTL options and default, the
 * minimum verification, the challenge code returned for the modes that have one, and the
 * subject's phone number read as UK and returned in E.164.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { keys } from '../../lambdas/store/keys.ts';
import { base, create, created, JUSTIFICATION, service, useCreationService } from '../support/requests-create.ts';
import { expectError, requestItem } from '../support/shapes.ts';

useCreationService();

describe('POST /requests: policy, verification and phone', () => {
  it.concurrent.each([60, 1440, 4320, 10080])('accepts ttl_minutes %i, one of the default policy options', async (ttl) => {
    const { request } = await created(base({ ttl_minutes: ttl }));
    expect(request.ttl_minutes).toBe(ttl);
  });

  it('returns a 6-digit challenge code for challenge, either and both, and null for none and email_otp', async () => {
    const withEmail = { subject_email: 'jane@example.com' };
    const cases: Array<[string, boolean]> = [
      ['challenge', true],
      ['either', true],
      ['both', true],
      ['none', false],
      ['email_otp', false],
    ];
    for (const [mode, hasCode] of cases) {
      const result = await created(base({ verification_mode: mode, ...withEmail }));
      expect(result.request.verification_mode, mode).toBe(mode);
      expect(result.request.subject.email).toBe('jane@example.com');
      if (hasCode) expect(result.challenge_code, mode).toMatch(/^[0-9]{6}$/);
      else expect(result.challenge_code, mode).toBeNull();
      const item = await requestItem(service, result.request.id);
      if (hasCode) expect(item!.challengeCodeHash, mode).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
      else expect(item!.challengeCodeHash ?? null, mode).toBeNull();
    }
  });

  it('reads a national phone number as UK and returns it in E.164', async () => {
    const national = await created(base({ subject_phone: '07400 123456' }));
    expect(national.request.subject.phone).toBe('+447400123456');
    const international = await created(base({ subject_phone: '+44 7400 123456' }));
    expect(international.request.subject.phone).toBe('+447400123456');
    const foreign = await created(base({ subject_phone: '+1 650 253 0000' }));
    expect(foreign.request.subject.phone).toBe('+16502530000');
  });

  // docs/decisions.md: none < either < (challenge | email_otp) < both. challenge and email_otp are different
  // factors, so a minimum of one is met only by itself or both.
  it('enforces the policy minimum verification', async () => {
    const strict = await service.createOrganisation({ name: 'Strict Org' });
    const key = await service.createKey(strict.orgId, { scopes: ['requests:write'] });
    const body = (extra: Record<string, unknown>) => ({
      subject_name: 'Jane Doe',
      subject_email: 'jane@example.com',
      justification: JUSTIFICATION,
      recipients: [strict.owner.email],
      ...extra,
    });
    const expectMinimum = async (minimum: string, allowed: string[]) => {
      await service.admin.setPolicy(strict.orgId, { minimumVerification: minimum as 'none', defaultVerification: minimum as 'none' });
      for (const mode of ['none', 'either', 'challenge', 'email_otp', 'both']) {
        if (allowed.includes(mode)) {
          expect((await created(body({ verification_mode: mode }), key)).request.verification_mode, `${mode} under ${minimum}`).toBe(mode);
        } else {
          expectError(await create(body({ verification_mode: mode }), key), 422, 'validation_failed', ['verification_mode']);
        }
      }
    };

    await expectMinimum('both', ['both']);
    // A policy stored before its default had to meet its minimum: a request left to that default is refused.
    await service.deps.db.send(
      new UpdateCommand({ TableName: service.deps.tableName, Key: keys.organisation(strict.orgId), UpdateExpression: 'SET policy.defaultVerification = :challenge', ExpressionAttributeValues: { ':challenge': 'challenge' } }),
    );
    expectError(await create(body({}), key), 422, 'validation_failed', ['verification_mode']);
    await expectMinimum('challenge', ['challenge', 'both']);
    await expectMinimum('email_otp', ['email_otp', 'both']);
    await expectMinimum('either', ['either', 'challenge', 'email_otp', 'both']);
  });

  it('follows the policy TTL options and default', async () => {
    const custom = await service.createOrganisation({ name: 'Custom TTL Org' });
    const key = await service.createKey(custom.orgId, { scopes: ['requests:write'] });
    await service.admin.setPolicy(custom.orgId, { ttlOptionsMinutes: [30, 120], defaultTtlMinutes: 120, defaultVerification: 'none' });
    const body = (extra: Record<string, unknown>) => ({ subject_name: 'Jane Doe', justification: JUSTIFICATION, recipients: [custom.owner.email], ...extra });
    const byDefault = await created(body({}), key);
    expect(byDefault.request.ttl_minutes).toBe(120);
    expect(byDefault.request.verification_mode).toBe('none');
    expect(byDefault.challenge_code).toBeNull();
    expect((await created(body({ ttl_minutes: 30 }), key)).request.ttl_minutes).toBe(30);
    expectError(await create(body({ ttl_minutes: 1440 }), key), 422, 'validation_failed', ['ttl_minutes']);
  });
});

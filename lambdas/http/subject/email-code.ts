import { sendEmailCode } from '#core/use-cases/subject/email-code.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { sesEmail } from '../../deployed/ses-email.ts';
import { kmsCodeKey } from '../../deployed/kms-code-key.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { linkHandler } from './link-handler.ts';

/** POST /subject/email-code (docs/web-api.md) */
export const createHandler = (deps: AppDeps) => linkHandler(deps, (subjectDeps, holder) => sendEmailCode(subjectDeps, holder), 202, { takesNoBody: true });

export const handler = lazyHandler(() => createHandler(wiring({ ...sesEmail(), ...kmsCodeKey() })));

import { verifySubject } from '#core/use-cases/subject/verify.ts';
import type { AppDeps } from '../../app-deps.ts';
import { wiring } from '../../wiring.ts';
import { kmsCodeKey } from '../../deployed/kms-code-key.ts';
import { lazyHandler } from '../lazy-handler.ts';
import { linkHandler } from './link-handler.ts';

/** POST /subject/verify (docs/web-api.md) */
export const createHandler = (deps: AppDeps) => linkHandler(deps, (subjectDeps, holder, body) => verifySubject(subjectDeps, holder, body), 200);

export const handler = lazyHandler(() => createHandler(wiring(kmsCodeKey())));

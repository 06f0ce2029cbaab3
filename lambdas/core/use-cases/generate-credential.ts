import { generatePassphrase, generatePassword, type CharacterClass } from '../generator.ts';
import { generateBody } from '../schemas.ts';
import { parseOrThrow } from '../validation.ts';

/** POST /generate: nothing is stored, logged or tied to a request. */
export const generateCredential = (rawBody: unknown) => {
  const body = parseOrThrow(generateBody, rawBody ?? {});
  if (body.type === 'passphrase') {
    const value = generatePassphrase();
    return { object: 'generated_credential' as const, type: body.type, value, length: value.length };
  }
  const classes = (['lower', 'upper', 'digits', 'symbols'] as const).filter((c): c is CharacterClass => body[c]);
  const value = generatePassword(body.length, classes);
  return { object: 'generated_credential' as const, type: body.type, value, length: value.length };
};

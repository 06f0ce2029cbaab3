import { existsSync, readFileSync, unlinkSync } from 'node:fs';
import { normaliseIdentityKey } from '#core/fingerprint.ts';
import type { NewIdentityKey } from '#core/model.ts';
import { generateDemoIdentityKey } from '#local/demo-identity.ts';
import { optionalText, UsageError, type Flags } from './flags.ts';

/** A public key file, PEM or base64 SPKI; never a private key (its holder would be the operator, not the member). */
const publicKeyIn = (file: string) => {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new UsageError(`--public-key: ${file} ${code === 'ENOENT' ? 'does not exist' : code === 'EISDIR' ? 'is a folder, not a file' : 'cannot be read'}`);
  }
  if (/PRIVATE KEY/.test(text)) throw new UsageError(`--public-key: ${file} holds a private key; give the public key only (its private half stays with the member)`);
  try {
    return normaliseIdentityKey(text);
  } catch {
    throw new UsageError(`--public-key: ${file} is not an ECDH P-256 public key (PEM, or base64 SPKI)`);
  }
};

/**
 * Runs `use` with the key `--public-key` names, or a fresh pair whose private half `--generate-key`
 * saves (or with none). A key file is never overwritten: it may be the only copy of a member's
 * private key. A pair made for a command that is then refused is deleted again, so the same
 * command, corrected, can be run with the same path.
 */
export const withIdentityKey = async <Result>(flags: Flags, use: (key: NewIdentityKey | undefined) => Promise<Result>): Promise<Result> => {
  const publicKeyFile = optionalText(flags, 'public-key');
  const generateTo = optionalText(flags, 'generate-key');
  if (publicKeyFile && generateTo) throw new UsageError('use either --public-key or --generate-key');
  if (publicKeyFile) return use(publicKeyIn(publicKeyFile));
  if (!generateTo) return use(undefined);
  if (existsSync(generateTo)) throw new UsageError(`--generate-key: ${generateTo} already exists, and a key file is never overwritten (it may hold a member's only private key); give a new path`);
  const key = generateDemoIdentityKey(generateTo);
  try {
    return await use(key);
  } catch (error) {
    // Refused (a usage mistake, a rule): nothing registered the key, and the file goes. An error of
    // the table itself (a timeout) may follow a write that stood: the private half is kept then.
    if (!(error && typeof error === 'object' && '$metadata' in error)) unlinkSync(generateTo);
    throw error;
  }
};

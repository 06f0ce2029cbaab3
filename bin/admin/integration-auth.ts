import { closest } from 'fastest-levenshtein';
import { randomToken } from '#core/hashing.ts';
import type { Integration } from '#core/integration.ts';
import type { InboundAuthMode } from '#core/inbound/recipes.ts';
import type { IntegrationChanges } from '#core/use-cases/integrations/manage-integration.ts';
import { UsageError, type Flags } from './commands.ts';
import { optionalText } from './flags.ts';

/** The flag that carries each check's secret, or null for none; a Record, so a new mode must say which. */
const SECRET_FLAG: Record<InboundAuthMode, 'header-value' | 'signing-secret' | null> = {
  none: null,
  header: 'header-value',
  hmac: 'signing-secret',
  zendesk: 'signing-secret',
  'hub-sha256': 'signing-secret',
  'hub-sha1': 'signing-secret',
};
const MODES = Object.keys(SECRET_FLAG) as InboundAuthMode[];
const AUTH_FLAGS = ['header-name', 'header-value', 'signing-secret', 'generate-secret'] as const;
/** As many random bytes as an inbound URL's secret: a generated secret is no easier to guess than the URL. */
const GENERATED_SECRET_BYTES = 32;

const given = (flags: Flags, name: string) => flags[name] !== undefined;

export interface AuthChange {
  auth: IntegrationChanges['auth'];
  /** A secret the CLI made (--generate-secret), to be printed this once; null when the operator gave it or none is needed. */
  generated: { label: string; secret: string } | null;
}

/**
 * The hardening `set-integration --auth` asks for. The flags of another mode are refused rather
 * than ignored, and a changed mode needs its own secret: the stored one was set in the helpdesk
 * for the check before (a Zendesk signing secret is no Jira webhook secret), so carrying it over
 * would leave every post refused with no word of why. The operator gives the new secret, or has
 * one made and printed once (not for Zendesk, which makes each webhook's secret itself). The same
 * mode again keeps its secret, so a header can be renamed without retyping its value.
 * `current` reads the integration only when that decides.
 */
export const authChangeOf = async (flags: Flags, current: () => Promise<Pick<Integration, 'auth'> | null>): Promise<AuthChange> => {
  const mode = optionalText(flags, 'auth');
  if (mode === undefined) {
    const stray = AUTH_FLAGS.find((name) => given(flags, name));
    if (stray) throw new UsageError(`--${stray} goes with --auth MODE, which names the check it is for (${MODES.join(', ')})`);
    return { auth: undefined, generated: null };
  }
  if (!(MODES as string[]).includes(mode)) throw new UsageError(`--auth must be one of ${MODES.join(', ')}. Did you mean '${closest(mode, MODES)}'?`);
  const secretFlag = SECRET_FLAG[mode as InboundAuthMode];
  const stray = AUTH_FLAGS.find((name) => given(flags, name) && !takes(mode as InboundAuthMode, name));
  if (stray) throw new UsageError(secretFlag ? `--auth ${mode} does not take --${stray}; its secret goes in --${secretFlag}` : `--auth none takes no secret or header: leave out --${stray}`);
  if (!secretFlag) return { auth: { mode, headerName: null, secret: null }, generated: null };

  const headerName = optionalText(flags, 'header-name') ?? null;
  const typed = optionalText(flags, secretFlag);
  const generate = flags['generate-secret'] === true;
  if (typed !== undefined && generate) throw new UsageError(`use either --${secretFlag} or --generate-secret`);
  if (generate && mode === 'zendesk') {
    throw new UsageError("--generate-secret does not go with --auth zendesk: Zendesk makes each webhook's signing secret; copy it from the webhook's page in Zendesk into --signing-secret");
  }
  if (generate) {
    const secret = randomToken(GENERATED_SECRET_BYTES);
    return { auth: { mode, headerName, secret }, generated: { label: mode === 'header' ? 'Header value' : 'Signing secret', secret } };
  }
  if (typed === undefined) {
    const before = (await current())?.auth;
    if (before?.secret && before.mode !== mode) {
      const ask =
        mode === 'zendesk'
          ? "give the webhook's signing secret from Zendesk in --signing-secret"
          : `give ${mode === 'header' ? 'the value the helpdesk sends' : 'the secret the helpdesk signs with'} in --${secretFlag}, or --generate-secret to have one made and printed once`;
      throw new UsageError(`--auth ${mode} replaces the ${before.mode} check, whose secret is not carried over: ${ask}`);
    }
  }
  return { auth: { mode, headerName, secret: typed ?? null }, generated: null };
};

/** Whether `--<name>` belongs with the mode: the header's name with a header, the mode's own secret flag, and generating one. */
const takes = (mode: InboundAuthMode, name: (typeof AUTH_FLAGS)[number]) => {
  if (SECRET_FLAG[mode] === null) return false;
  if (name === 'header-name') return mode === 'header';
  return name === 'generate-secret' || name === SECRET_FLAG[mode];
};

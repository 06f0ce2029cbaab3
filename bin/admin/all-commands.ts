import type { Command } from './commands.ts';
import { COMMANDS } from './commands.ts';
import { DISCOVERY_COMMANDS } from './discovery-commands.ts';
import { INTEGRATION_COMMANDS } from './integration-commands.ts';
import { REQUEST_COMMANDS } from './request-commands.ts';
import { SECRET_COMMANDS } from './secret-commands.ts';
import { SIGNING_COMMANDS } from './signing-commands.ts';
import { TICKET_INDEX_COMMANDS } from './ticket-index-commands.ts';
import { WEBHOOK_COMMANDS } from './webhook-commands.ts';

/**
 * Every command, in the order `npm run admin` lists them: first those that look around (a newcomer
 * starts there), then directory, request, webhook, integration, signing-key, stored-secret and ticket-index ones.
 */
export const ALL_COMMANDS: Record<string, Command> = {
  ...DISCOVERY_COMMANDS,
  ...COMMANDS,
  ...REQUEST_COMMANDS,
  ...WEBHOOK_COMMANDS,
  ...INTEGRATION_COMMANDS,
  ...SIGNING_COMMANDS,
  ...SECRET_COMMANDS,
  ...TICKET_INDEX_COMMANDS,
};

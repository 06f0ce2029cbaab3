import { COMMANDS, type Flags } from '../../bin/admin/commands.ts';
import type { TestService } from './test-service.ts';

/** Runs an operator CLI command against the test service's local table, as `npm run admin` would. */
export const runAdminCommand = (service: TestService, command: string, flags: Flags) =>
  COMMANDS[command]!.run(service.admin, flags, {
    db: service.deps.db,
    tableName: service.deps.tableName,
    audit: service.deps.audit,
    clock: service.deps.clock,
    local: true,
    localEngine: true,
    dataDir: '',
    appUrl: service.appUrl,
  }) as Promise<any>;

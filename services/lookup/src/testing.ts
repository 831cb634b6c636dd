/**
 * A real lookup service for other packages' integration tests (the gateway's, end-to-end helpers):
 * the service as main.ts runs it, over a fresh migrated database on a free port, removed again by
 * stop().
 *
 *   import { startTestLookupServer } from '@tix/lookup-service/testing';
 *   const lookup = await startTestLookupServer();            // { address, port, databaseUrl, stop }
 *   const client = createServiceClient('lookup', lookup.address, { deadlineMs: 5_000 });
 *   const demo = await client.SeedDemo({});                  // projects, users, keys with values
 *   ...
 *   client.close(); await lookup.stop();
 */
import type { Logger } from '@tix/kit';
import { startTestService } from '@tix/kit/testing';
import { lookupService } from './server.js';

export { LOOKUP_MIGRATIONS_DIR } from './server.js';

export type TestLookupServer = Awaited<ReturnType<typeof startTestLookupServer>>;

/** Starts a lookup service on 127.0.0.1 (free port) over a fresh, migrated database. */
export function startTestLookupServer(options: { label?: string; logger?: Logger; now?: () => Date } = {}) {
  const { now, ...rest } = options;
  return startTestService(lookupService({ now }), rest);
}

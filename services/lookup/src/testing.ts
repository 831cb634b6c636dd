/**
 * A real lookup service for other packages' integration tests (the gateway's, end-to-end helpers):
 * a fresh migrated database plus the gRPC server on a free port, removed again by stop().
 *
 *   import { startTestLookupServer } from '@tix/lookup-service/testing';
 *   const lookup = await startTestLookupServer();            // { address, port, databaseUrl, stop }
 *   const client = createServiceClient('lookup', lookup.address, { deadlineMs: 5_000 });
 *   const demo = await client.SeedDemo({});                  // projects, users, keys with values
 *   ...
 *   client.close(); await lookup.stop();
 */
import type { Logger } from '@tix/kit';
import { createTestDatabase, testLogger } from '@tix/kit/testing';
import { LOOKUP_MIGRATIONS_DIR, startLookupServer, type RunningLookupServer } from './server.js';

export { LOOKUP_MIGRATIONS_DIR, startLookupServer } from './server.js';
export type { RunningLookupServer, StartLookupServerOptions } from './server.js';

export interface TestLookupServer extends RunningLookupServer {
  /** The fresh database it serves (query it directly to arrange or inspect state). */
  databaseUrl: string;
  /** Stops the server and drops its database. */
  stop(): Promise<void>;
}

/** Starts a lookup service on 127.0.0.1 (free port) over a fresh, migrated database. */
export async function startTestLookupServer(
  options: { label?: string; logger?: Logger; now?: () => Date } = {},
): Promise<TestLookupServer> {
  const database = await createTestDatabase(options.label ?? 'lookup', LOOKUP_MIGRATIONS_DIR);
  try {
    const server = await startLookupServer({
      databaseUrl: database.url,
      port: 0,
      logger: options.logger ?? testLogger('lookup'),
      ...(options.now ? { now: options.now } : {}),
    });
    return {
      ...server,
      databaseUrl: database.url,
      stop: () => server.stop(1_000).finally(() => database.drop()),
    };
  } catch (error) {
    await database.drop();
    throw error;
  }
}

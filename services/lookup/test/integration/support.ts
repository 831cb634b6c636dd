/** A real lookup service per test file: fresh database, gRPC server on a free port, typed client, SQL access. */
import pg from 'pg';
import { createServiceClient, type ServiceClient } from '@tix/kit';
import { startTestLookupServer, type TestLookupServer } from '../../src/testing.js';

export { refusal, refusalOf } from '@tix/kit/testing';

export interface LookupFixture {
  server: TestLookupServer;
  client: ServiceClient<'lookup'>;
  /** Direct SQL on the service's database, to arrange states no RPC makes and to inspect storage. */
  sql: pg.Pool;
  stop(): Promise<void>;
}

/** Starts the fixture; call stop() in `after`. */
export async function startLookupFixture(options: { now?: () => Date } = {}): Promise<LookupFixture> {
  const server = await startTestLookupServer(options.now ? { now: options.now } : {});
  const client = createServiceClient('lookup', server.address, { deadlineMs: 10_000 });
  const sql = new pg.Pool({ connectionString: server.databaseUrl, max: 2 });
  return {
    server,
    client,
    sql,
    async stop() {
      client.close();
      await sql.end();
      await server.stop();
    },
  };
}

/**
 * A decoded message without the loader's virtual oneof members (`_project_id: 'project_id'` marks a
 * set proto3 optional), for whole-value assertions.
 */
export function fields<T extends object>(message: T): Partial<T> {
  return Object.fromEntries(Object.entries(message).filter(([key]) => !key.startsWith('_'))) as Partial<T>;
}

/**
 * A suite's reader of the outbox's `eventType` events (`sql` answers its pool once started): each
 * call answers the payloads written since the previous call, so a test sees only what it caused.
 */
export function newEventsReader<Payload>(sql: () => pg.Pool, eventType: string): () => Promise<Payload[]> {
  let seen = 0;
  return async () => {
    const { rows } = await sql().query<{ seq: string; payload: Payload }>(
      'SELECT seq, payload FROM outbox_events WHERE event_type = $1 AND seq > $2 ORDER BY seq',
      [eventType, seen],
    );
    if (rows.length > 0) seen = Number(rows.at(-1)!.seq);
    return rows.map((row) => row.payload);
  };
}

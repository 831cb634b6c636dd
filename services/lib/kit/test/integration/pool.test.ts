/**
 * A connection lost while a caller holds it (between two queries, e.g. while the outbox relay waits
 * for the broker's confirms) must fail that caller, not the process: pg emits 'error' on a checked-out
 * client that nobody listens to otherwise.
 */
import { expect } from 'chai';
import pg from 'pg';
import {
  errorKindOf,
  inTransaction,
  isStatementTimeout,
  openDatabase,
  withConnection,
} from '../../src/index.js';
import { createTestDatabase, testLogger, type TestDatabase } from '../../src/testing/index.js';

describe('pooled connections lost while checked out', () => {
  let database: TestDatabase;
  let admin: pg.Client;

  before(async () => {
    database = await createTestDatabase('kit_pool');
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
  });
  after(async () => {
    await admin?.end();
    await database?.drop();
  });

  const terminate = (pid: number) => admin.query('SELECT pg_terminate_backend($1)', [pid]);

  it('withConnection and inTransaction reject, the process lives on, and the pool lends a fresh connection', async () => {
    const opened = openDatabase(database.url, { logger: testLogger('pool'), maxConnections: 1 });
    const { pool } = opened;
    try {
      for (const run of [
        (work: (client: pg.PoolClient) => Promise<unknown>) => withConnection(pool, work),
        (work: (client: pg.PoolClient) => Promise<unknown>) => inTransaction(pool, work),
      ]) {
        const outcome = run(async (client) => {
          const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
          await terminate(rows[0]!.pid);
          // Held, between queries, while the server closes the connection: the 'error' arrives now.
          await new Promise((resolve) => setTimeout(resolve, 300));
          await client.query('SELECT 1');
        });
        const failure = await outcome.then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(failure).to.be.instanceOf(Error);
        const { rows } = await pool.query<{ one: number }>('SELECT 1 AS one');
        expect(rows[0]!.one).to.equal(1);
      }
    } finally {
      await opened.close();
    }
  });
});

describe('the statement timeout of a service database', () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase('kit_statement_timeout');
  });
  after(() => database?.drop());

  it('cancels a statement running past it, answered as timeout, and the connection serves on', async () => {
    const opened = openDatabase(database.url, {
      logger: testLogger('pool'),
      maxConnections: 1,
      statementTimeoutMs: 100,
    });
    try {
      const error = await opened.pool.query('SELECT pg_sleep(2)').then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(isStatementTimeout(error), String(error)).to.equal(true);
      expect(errorKindOf(error)).to.equal('timeout');
      const { rows } = await opened.pool.query<{ one: number }>('SELECT 1 AS one');
      expect(rows[0]!.one).to.equal(1);
    } finally {
      await opened.close();
    }
  });

  it('leaves statements unlimited without one', async () => {
    const opened = openDatabase(database.url, { logger: testLogger('pool'), maxConnections: 1 });
    try {
      const { rows } = await opened.pool.query<{ statement_timeout: string }>('SHOW statement_timeout');
      expect(rows[0]!.statement_timeout).to.equal('0');
    } finally {
      await opened.close();
    }
  });
});

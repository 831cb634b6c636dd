/**
 * SearchTicketsJson holds one database connection (a cursor in a read-only transaction) for as long as
 * its caller takes to read. That connection failing meanwhile (PostgreSQL restarted, the backend
 * terminated) ends the search with an error; it used to raise an 'error' event nobody listened to,
 * which crashed the process. A caller that leaves mid-search gets its connection released.
 */
import { expect } from 'chai';
import { eventually } from '@tix/kit/testing';
import type { ticket } from '@tix/protos';
import { questionTicket, searchAll, startTicketFixture, type TicketFixture } from './support.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Backends of the ticket database waiting inside a search (between two FETCHes). */
async function searchBackends(f: TicketFixture): Promise<number[]> {
  const { rows } = await f.sql.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity
      WHERE datname = current_database() AND query LIKE 'FETCH %' AND state = 'idle in transaction'`,
  );
  return rows.map((row) => row.pid);
}

describe('SearchTicketsJson while its reader is slow', function () {
  this.timeout(120_000);
  let f: TicketFixture;
  let project: number;
  /**
   * Tickets matching "needle": far more of the service's batches (500 rows, one message each) than
   * the call buffers (16 messages), so that a reader that stops after the first leaves the search
   * waiting between two FETCHes.
   */
  const MATCHES = 12_000;

  before(async () => {
    f = await startTicketFixture();
    project = f.demo.support.id;
    await f.client.CreateTicket(questionTicket(f.demo, { title: 'needle 0' }), f.agent);
    // The rest written directly: as many through the service would take minutes.
    await f.sql.query(
      `INSERT INTO tickets (project_id, ticket_type_id, project_ref_id, title, description, status, priority,
         created_by, source_type, lane_rank)
       SELECT $1, t.ticket_type_id, 100000 + n, 'needle ' || n, repeat('x', 200), t.status, 'low',
              t.created_by, 'api', 'zz' || lpad(n::text, 6, '0')
         FROM generate_series(1, $2 - 1) AS n,
              (SELECT ticket_type_id, created_by, status FROM tickets WHERE project_id = $1 LIMIT 1) t`,
      [project, MATCHES],
    );
  });
  after(async () => {
    await f?.stop();
  });

  /** A search whose caller read one batch and stopped reading: the service waits, holding its cursor. */
  async function stalledSearch() {
    const request: ticket.SearchTicketsRequest = { project_id: project, q: 'needle', sort: '' };
    const call = f.client.raw.SearchTicketsJson(request, f.client.callMetadata(f.agent), {});
    const ended = new Promise<Error | null>((resolve) => {
      call.on('error', (error) => resolve(error));
      call.on('end', () => resolve(null));
    });
    await new Promise<void>((resolve) => call.once('data', () => resolve()));
    call.pause();
    const [pid] = await eventually(async () => {
      const pids = await searchBackends(f);
      return pids.length === 1 ? pids : null;
    });
    return { call, ended, pid: pid! };
  }

  it('ends the search with an error when its connection dies, and keeps serving', async () => {
    const { call, ended, pid } = await stalledSearch();
    await f.sql.query('SELECT pg_terminate_backend($1)', [pid]);
    await sleep(500); // the dead connection reports its error while the search waits
    call.resume();
    const error = await ended;
    expect(error, 'the search must fail, not end as if complete').to.not.equal(null);

    // The process is alive, the pool hands out working connections, searches work again.
    expect(await searchAll(f, { project_id: project, q: 'needle 11999' })).to.have.length(1);
    expect((await searchAll(f, { project_id: project, q: 'needle' })).length).to.equal(MATCHES);
  });

  it('releases the connection of a search whose caller leaves', async () => {
    const { call } = await stalledSearch();
    call.cancel();
    await eventually(async () => (await searchBackends(f)).length === 0, 5_000);
    expect(await searchAll(f, { project_id: project, q: 'needle 11999' })).to.have.length(1);
  });
});

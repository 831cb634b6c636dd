/**
 * The properties the activity feed and the event stream promise, through the real fleet (tickets
 * service -> outbox -> RabbitMQ -> activity service -> gateway):
 * - while 8 writers create and update tickets concurrently, a poller following `/api/activity/new`
 *   sees every write exactly once, in order, and one following `/v1/events` every event exactly
 *   once; a poller that joins at any moment ("from now") sees exactly what committed after it joined;
 * - a RabbitMQ outage delays entries but loses none, and duplicates none.
 */
import { expect } from 'chai';
import {
  createKey,
  createProject,
  createTicket,
  createTicketType,
  createUser,
  type ProjectFixture,
} from '../support/fixtures.js';
import { startBroker, stopBroker } from '../support/broker.js';
import { request } from '../support/http.js';
import { signIn, type BrowserSession } from '../support/session.js';

const PASSWORD = 'correct horse battery staple';

interface Entry {
  id: number;
  type: string;
  subject: { id: number };
  changes: Record<string, unknown>;
}

interface StreamedEvent {
  id: string;
  sequence: number;
  event: string;
  data: { id: number; version: number };
}

/** A poller following one cursor route until told to stop and caught up. */
function follow<Item>(
  fetchPage: (cursor: string | undefined) => Promise<{ items: Item[]; cursor: string; hasMore: boolean }>,
) {
  const items: Item[] = [];
  let cursor: string | undefined;
  let enough: (() => boolean) | undefined;
  let deadline = Infinity;
  const done = (async () => {
    for (;;) {
      // Decided before the poll, so the last poll begins after the caller's condition held.
      const stop = enough !== undefined && (enough() || Date.now() > deadline);
      const page = await fetchPage(cursor);
      items.push(...page.items);
      cursor = page.cursor;
      if (stop && !page.hasMore) return;
      if (!page.hasMore) await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    items,
    /** Resolves after a poll that began once `isEnough()` held (or a minute passed) found nothing more. */
    finish: (isEnough: () => boolean = () => true) => {
      deadline = Date.now() + 60_000;
      enough = isEnough;
      return done;
    },
    /** The cursor after the first poll (the poller's starting point). */
    started: async () => {
      while (cursor === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
    },
  };
}

describe('the activity feed and event stream never skip or repeat a change', function () {
  this.timeout(240_000);
  let project: ProjectFixture;
  let typeId: number;
  let viewer: BrowserSession;
  let reader: string;

  before(async () => {
    project = await createProject();
    typeId = (await createTicketType(project.slug)).id;
    const user = await createUser('viewer', { password: PASSWORD });
    viewer = await signIn(user.email, PASSWORD);
    reader = (
      await createKey({ project: project.slug, scopes: 'tickets:read,comments:read', role: 'viewer' })
    ).key;
  });

  const activityPoller = () =>
    follow<Entry>(async (cursor) => {
      const query = new URLSearchParams({ project: project.slug, limit: '13' });
      if (cursor !== undefined) query.set('cursor', cursor);
      const response = await viewer.call('GET', `/activity/new?${query.toString()}`);
      expect(response.status, response.text).to.equal(200);
      const { activities, cursor: next, has_more } = response.body.data;
      return { items: activities as Entry[], cursor: next as string, hasMore: has_more as boolean };
    });

  const eventPoller = () =>
    follow<StreamedEvent>(async (cursor) => {
      const query = new URLSearchParams({ limit: '17' });
      if (cursor !== undefined) query.set('after', cursor);
      const response = await request(`/v1/events?${query.toString()}`, { key: reader });
      expect(response.status, response.text).to.equal(200);
      const { events, cursor: next, has_more } = response.body.data;
      return { items: events as StreamedEvent[], cursor: next as string, hasMore: has_more as boolean };
    });

  /** The project's whole feed, oldest first, once it holds `count` entries (or a minute passed). */
  async function feedOf(count: number): Promise<Entry[]> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const entries: Entry[] = [];
      let snapshot: number | undefined;
      for (let page = 1; ; page += 1) {
        const query = new URLSearchParams({ project: project.slug, per_page: '100', page: String(page) });
        if (snapshot !== undefined) query.set('until_id', String(snapshot));
        const response = await viewer.call('GET', `/activity?${query.toString()}`);
        expect(response.status, response.text).to.equal(200);
        const { activities, pagination, snapshot_id } = response.body.data;
        snapshot = snapshot_id as number;
        entries.push(...(activities as Entry[]));
        if (page >= pagination.total_pages) break;
      }
      if (entries.length >= count || Date.now() > deadline) return entries.reverse();
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  it('8 concurrent writers: every write once in the feed, every event once in the stream, in order', async () => {
    const WRITERS = 8;
    const UPDATES = 12;
    const writers = await Promise.all(
      Array.from({ length: WRITERS }, () => createKey({ project: project.slug })),
    );
    const feed = activityPoller();
    const stream = eventPoller();
    await Promise.all([feed.started(), stream.started()]);

    let lateJoiner: ReturnType<typeof activityPoller> | undefined;
    const writes: Array<{ ticket: number; version: number }> = [];
    await Promise.all(
      writers.map(async ({ key, user }, writer) => {
        let ticket = await createTicket(key, { ticket_type_id: typeId, title: `Writer ${writer}` });
        writes.push({ ticket: ticket.id, version: ticket.version });
        for (let update = 0; update < UPDATES; update += 1) {
          // Half the updates also assign or unassign (0): two events of one write, folded into one entry.
          const body: Record<string, unknown> = {
            version: ticket.version,
            priority: update % 2 === 0 ? 'high' : 'low',
            ...(update % 4 < 2 ? { assigned_to: update % 4 === 0 ? user.id : 0 } : {}),
          };
          const response = await request(`/v1/tickets/${ticket.id}`, { method: 'PUT', key, body });
          expect(response.status, response.text).to.equal(200);
          ticket = response.body.data.ticket;
          writes.push({ ticket: ticket.id, version: ticket.version });
          if (writer === 0 && update === UPDATES / 2) lateJoiner = activityPoller();
        }
      }),
    );

    const expectedEvents = WRITERS * (1 + UPDATES + UPDATES / 2);
    const all = await feedOf(writes.length);
    await Promise.all([
      feed.finish(),
      stream.finish(() => stream.items.length >= expectedEvents),
      lateJoiner!.finish(),
    ]);

    // The feed: one entry per write, each (ticket, version) once, numbers strictly increasing.
    expect(all).to.have.length(writes.length);
    const entryIds = feed.items.map((entry) => entry.id);
    expect(entryIds).to.deep.equal(all.map((entry) => entry.id));
    expect(entryIds).to.deep.equal([...entryIds].sort((a, b) => a - b));
    const assignments = feed.items.filter((entry) => 'assigned_to' in entry.changes);
    expect(assignments).to.have.length(WRITERS * (UPDATES / 2));
    for (const entry of assignments) expect(entry.changes).to.have.keys('assigned_to', 'priority');

    // A poller that joined mid-load saw exactly the suffix after its starting point.
    const joined = lateJoiner!.items.map((entry) => entry.id);
    expect(joined.length).to.be.greaterThan(0);
    expect(joined).to.deep.equal(entryIds.slice(entryIds.indexOf(joined[0]!)));

    // The stream: every event once (created, updated, and assigned where assignment changed).
    const eventIds = stream.items.map((event) => event.id);
    expect(new Set(eventIds).size).to.equal(eventIds.length);
    expect(eventIds).to.have.length(expectedEvents);
    const sequences = stream.items.map((event) => event.sequence);
    expect(sequences).to.deep.equal([...sequences].sort((a, b) => a - b));
  });

  it('delays entries during a RabbitMQ outage but loses and duplicates none', async () => {
    const { key } = await createKey({ project: project.slug });
    const before = (await viewer.call('GET', `/activity?project=${project.slug}&per_page=1`)).body.data
      .pagination.total as number;
    await stopBroker();
    const titles: string[] = [];
    try {
      for (let i = 0; i < 10; i += 1) {
        titles.push(`Outage ${i}`);
        await createTicket(key, { ticket_type_id: typeId, title: titles[i] });
      }
    } finally {
      await startBroker();
    }
    const entries = await feedOf(before + 10);
    const created = entries.filter(
      (entry) => entry.type === 'ticket.created' && /Outage/.test(JSON.stringify(entry)),
    );
    expect(entries).to.have.length(before + 10);
    expect(created).to.have.length(10);
  });
});

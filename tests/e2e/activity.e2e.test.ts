/**
 * The activity feed, ticket histories and the event stream through the real fleet (ticket and
 * comment services -> outbox -> RabbitMQ -> activity service -> gateway), as the console and an
 * integrator use them: the feed and each filter, pages that do not shift, polling with a cursor
 * (ETag, 304, 400), 401 when not signed in, a ticket's history, the stream's payloads equal to what
 * webhooks deliver, and comment text only for callers who may read comments. Entries arrive
 * asynchronously: every wait polls with a deadline.
 */
import { expect } from 'chai';
import { eventually, expectError } from '@tix/kit/testing';
import {
  createComment,
  createKey,
  createProject,
  createTicket,
  createTicketType,
  createUser,
  type ProjectFixture,
} from '../support/fixtures.js';
import { request, type ApiResponse } from '../support/http.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { signIn, type BrowserSession } from '../support/session.js';

const PASSWORD = 'activity e2e passphrase';
/** How long an event may take from the write to the feed. */
const ARRIVAL_MS = 20_000;

interface Entry {
  id: number;
  type: string;
  occurred_at: string;
  project_id: number;
  actor: { kind: string; user_id: number | null; name: string | null; api_key_id: number | null };
  subject: { type: string; id: number; ticket_number: string; title: string };
  changes: Record<string, { from: unknown; to: unknown }>;
  comment: { id: number; is_internal: boolean; excerpt: string | null } | null;
  summary: string;
}

interface StreamedEvent {
  id: string;
  sequence: number;
  event: string;
  timestamp: number;
  data: Record<string, unknown>;
}

describe('activity through the fleet', function () {
  this.timeout(90_000);
  let project: ProjectFixture;
  let typeId: number;
  /** An integration's key (every scope) and one that may read tickets but not comments. */
  let key: Awaited<ReturnType<typeof createKey>>;
  let ticketsOnlyKey: string;
  let viewer: BrowserSession;
  let agent: BrowserSession;
  let receiver: WebhookReceiver;
  /** The stream's cursor before anything happened in the project. */
  let streamStart = '';
  const tickets: Record<'printer' | 'coffee', { id: number; ticket_number: string }> = {} as never;

  /** GET on the session host as the signed-in viewer. */
  const feed = (path: string, headers: Record<string, string> = {}): Promise<ApiResponse> =>
    viewer.call('GET', path, undefined, { headers });

  /** The project's feed, newest first. */
  async function entries(query = ''): Promise<Entry[]> {
    const response = await feed(`/activity?project=${project.slug}&per_page=100${query}`);
    expect(response.status, response.text).to.equal(200);
    return response.body.data.activities as Entry[];
  }

  type Poll = (cursor: string, headers: Record<string, string>) => Promise<ApiResponse>;

  /**
   * Polls from `cursor`, then again with the answer's cursor and ETag, until that second poll is 304.
   * (The cursor is the whole log's position: another project's entry in between moves it on.)
   */
  async function untilNotModified(poll: Poll, cursor: string) {
    let previous = await poll(cursor, {});
    return eventually(async () => {
      expect(previous.status, previous.text).to.equal(200);
      const next = await poll(previous.body.data.cursor, { 'if-none-match': previous.headers.get('etag')! });
      if (next.status === 304) return { previous, next };
      previous = next;
      return undefined;
    }, ARRIVAL_MS);
  }

  /** Waits until the project's feed holds `count` entries. */
  const feedHolds = (count: number) =>
    eventually(async () => (await entries()).length >= count, ARRIVAL_MS, 100);

  before(async () => {
    project = await createProject();
    typeId = (await createTicketType(project.slug, { isDefault: true })).id;
    key = await createKey({ project: project.slug });
    ticketsOnlyKey = (await createKey({ project: project.slug, scopes: 'tickets:read' })).key;
    viewer = await signIn((await createUser('viewer', { password: PASSWORD })).email, PASSWORD);
    agent = await signIn((await createUser('agent', { password: PASSWORD })).email, PASSWORD);
    receiver = await startWebhookReceiver();
    const hook = await request('/v1/webhooks', {
      method: 'POST',
      key: key.key,
      body: {
        url: receiver.url,
        events: [
          'ticket.created',
          'ticket.updated',
          'ticket.status_changed',
          'ticket.assigned',
          'comment.created',
        ],
        project_id: project.id,
      },
    });
    expect(hook.status, hook.text).to.equal(201);
    streamStart = (await request('/v1/events', { key: key.key })).body.data.cursor as string;

    // Five writes: a ticket created, then moved and reprioritised in one PUT (one entry), an internal
    // note with the key, a comment by a person in the console, a second ticket.
    const printer = await createTicket(key.key, { ticket_type_id: typeId, title: 'Printer on fire' });
    const moved = await request(`/v1/tickets/${printer.id}`, {
      method: 'PUT',
      key: key.key,
      body: { status: 'waiting', priority: 'high', version: printer.version },
    });
    expect(moved.status, moved.text).to.equal(200);
    await createComment(key.key, printer.id, {
      content: 'The spare key is under the mat',
      is_internal: true,
    });
    const byPerson = await agent.call('POST', `/tickets/${printer.id}/comments?project=${project.slug}`, {
      content: 'Called the customer back',
      is_internal: false,
    });
    expect(byPerson.status, byPerson.text).to.equal(201);
    const coffee = await createTicket(key.key, { ticket_type_id: typeId, title: 'Coffee machine empty' });
    Object.assign(tickets, { printer, coffee });
    await feedHolds(5);
  });

  after(async () => {
    await receiver?.close();
  });

  it('the feed: newest first, one entry per write, with who, what changed and a summary', async () => {
    const feedEntries = await entries();
    expect(feedEntries.map((entry) => [entry.type, entry.subject.id])).to.deep.equal([
      ['ticket.created', tickets.coffee.id],
      ['comment.created', tickets.printer.id],
      ['comment.created', tickets.printer.id],
      ['ticket.updated', tickets.printer.id],
      ['ticket.created', tickets.printer.id],
    ]);
    const [, byPerson, note, moved] = feedEntries as [Entry, Entry, Entry, Entry, Entry];
    expect(moved).to.deep.include({
      project_id: project.id,
      actor: {
        kind: 'api_key',
        user_id: key.user_id,
        name: `User ${key.user.email}`,
        api_key_id: key.id,
        via: null,
      },
      subject: {
        type: 'ticket',
        id: tickets.printer.id,
        ticket_number: tickets.printer.ticket_number,
        title: 'Printer on fire',
      },
      changes: { status: { from: 'open', to: 'waiting' }, priority: { from: 'medium', to: 'high' } },
      comment: null,
    });
    expect(moved.summary).to.be.a('string').and.include(tickets.printer.ticket_number);
    expect(byPerson.actor).to.deep.include({ kind: 'user', user_id: agent.user.id, api_key_id: null });
    // A signed-in viewer may read comments: the internal note's excerpt is shown.
    expect(note.comment).to.deep.include({ is_internal: true, excerpt: 'The spare key is under the mat' });

    // Without a project: every project's entries, these among them.
    const everything = (await feed('/activity?per_page=100')).body.data.activities as Entry[];
    expect(everything.map((entry) => entry.id)).to.include.members(feedEntries.map((entry) => entry.id));
  });

  it('each filter: ticket, actor, actor kind, type (with prefixes), changed field, time range', async () => {
    const count = async (query: string) => (await entries(`&${query}`)).length;
    expect(await count(`ticket_id=${tickets.coffee.id}`)).to.equal(1);
    expect(await count(`ticket_id=${tickets.printer.id}`)).to.equal(4);
    expect(await count(`actor_id=${key.user_id}`)).to.equal(4);
    expect(await count(`actor_id=${agent.user.id}`)).to.equal(1);
    expect(await count('actor_kind=api_key')).to.equal(4);
    expect(await count('actor_kind=user')).to.equal(1);
    expect(await count('actor_kind=ai')).to.equal(0);
    expect(await count('type=comment.*')).to.equal(2);
    expect(await count('type=ticket.created')).to.equal(2);
    expect(await count('type=ticket.updated,comment.created')).to.equal(3);
    expect(await count('field=status')).to.equal(1);
    expect(await count('field=title')).to.equal(0);
    const oldest = (await entries()).at(-1)!;
    expect(await count(`since=${encodeURIComponent(oldest.occurred_at)}`)).to.equal(5);
    expect(await count(`until=${encodeURIComponent(oldest.occurred_at)}`)).to.equal(0);
    expect(await count('since=2999-01-01')).to.equal(0);

    expectError(
      await feed(`/activity?project=${project.slug}&actor_kind=robot&type=ticket`),
      400,
      'Invalid actor_kind, type',
      ['actor_kind', 'type'],
    );
  });

  it('pages: with until_id, later pages do not shift when entries arrive', async () => {
    const listed = (await entries()).map((entry) => entry.id);
    const first = (await feed(`/activity?project=${project.slug}&per_page=2`)).body.data;
    expect(first.activities.map((entry: Entry) => entry.id)).to.deep.equal(listed.slice(0, 2));
    await createComment(key.key, tickets.coffee.id, { content: 'Refilled', is_internal: false });
    await feedHolds(6);

    const pinned = (
      await feed(`/activity?project=${project.slug}&per_page=2&page=2&until_id=${first.snapshot_id}`)
    ).body.data;
    expect(pinned.activities.map((entry: Entry) => entry.id)).to.deep.equal(listed.slice(2, 4));
    expect(pinned.pagination).to.deep.equal({ total: 5, page: 2, per_page: 2, total_pages: 3 });
    const shifted = (await feed(`/activity?project=${project.slug}&per_page=2&page=2`)).body.data;
    expect(shifted.activities.map((entry: Entry) => entry.id)).to.deep.equal(listed.slice(1, 3));
  });

  it('/activity/new: what came after the cursor, oldest first; 304 while nothing is new', async () => {
    const poll: Poll = (cursor, headers) =>
      feed(`/activity/new?project=${project.slug}&cursor=${cursor}`, headers);
    const { cursor } = (await feed(`/activity?project=${project.slug}&per_page=1`)).body.data;
    // Nothing new in the project: 304 with no body, however often the tab polls.
    const { previous: quiet, next: unchanged } = await untilNotModified(poll, cursor);
    expect(quiet.body.data).to.deep.include({ activities: [], has_more: false, poll_interval_seconds: 10 });
    expect(quiet.headers.get('x-poll-interval')).to.equal('10');
    const etag = quiet.headers.get('etag')!;
    expect(etag).to.match(/^W\/"a-\d+"$/);
    expect(unchanged.text).to.equal('');
    expect(unchanged.headers.get('etag')).to.equal(etag);
    expect(unchanged.headers.get('x-poll-interval')).to.equal('10');

    await createTicket(key.key, { ticket_type_id: typeId, title: 'Third' });
    await createComment(key.key, tickets.printer.id, { content: 'Ordered toner', is_internal: false });
    const arrived = await eventually(async () => {
      const polled = await poll(quiet.body.data.cursor, { 'if-none-match': etag });
      return polled.status === 200 && polled.body.data.activities.length === 2 ? polled : undefined;
    }, ARRIVAL_MS);
    expect(arrived.body.data.activities.map((entry: Entry) => entry.type)).to.deep.equal([
      'ticket.created',
      'comment.created',
    ]);
    expect(arrived.headers.get('etag')).to.not.equal(etag);
  });

  it('400 for a cursor that is not one, 401 when not signed in', async () => {
    // Not base64url JSON at all, and the event stream's cursor on the feed.
    for (const cursor of ['garbage', Buffer.from('{"e":1}').toString('base64url')]) {
      expectError(await feed(`/activity/new?cursor=${cursor}`), 400, 'Invalid cursor', {
        cursor: ['Invalid cursor'],
      });
    }
    expectError(await request('/v1/events?after=not-a-cursor', { key: key.key }), 400, 'Invalid after', {
      after: ['Invalid cursor'],
    });
    for (const path of ['/api/activity', '/api/activity/new']) {
      expectError(await request(path, { host: 'app' }), 401, 'Not signed in');
    }
  });

  it("a ticket's history: its entries oldest first, on both hosts; no note text for a key without comments:read", async () => {
    const history = await request(`/v1/tickets/${tickets.printer.id}/history`, { key: key.key });
    expect(history.status, history.text).to.equal(200);
    const types = (history.body.data.activities as Entry[]).map((entry) => entry.type);
    expect(types.slice(0, 4)).to.deep.equal([
      'ticket.created',
      'ticket.updated',
      'comment.created',
      'comment.created',
    ]);
    const ids = (history.body.data.activities as Entry[]).map((entry) => entry.id);
    expect(ids).to.deep.equal([...ids].sort((a, b) => a - b));
    expect(history.body.data.ticket_id).to.equal(tickets.printer.id);
    expect(history.body.data.pagination.total).to.equal(ids.length);
    const note = (history.body.data.activities as Entry[])[2]!;
    expect(note.comment).to.deep.include({ is_internal: true, excerpt: 'The spare key is under the mat' });

    const withoutComments = await request(`/v1/tickets/${tickets.printer.id}/history`, {
      key: ticketsOnlyKey,
    });
    expect(withoutComments.status, withoutComments.text).to.equal(200);
    const hidden = (withoutComments.body.data.activities as Entry[])[2]!;
    expect(hidden.comment).to.deep.equal({ id: note.comment!.id, is_internal: true, excerpt: null });
    expect(JSON.stringify(withoutComments.body)).to.not.include('spare key');

    const session = await viewer.call(
      'GET',
      `/tickets/${tickets.printer.id}/history?project=${project.slug}`,
    );
    expect((session.body.data.activities as Entry[]).map((entry) => entry.id)).to.deep.equal(ids);
    const elsewhere = await request(`/v1/tickets/2147483000/history`, { key: key.key });
    expect(elsewhere.status).to.equal(404);
  });

  it('/v1/events: every event after the cursor, in order, each exactly the body its webhook delivery carried', async () => {
    const stream: StreamedEvent[] = [];
    let cursor = streamStart;
    // Follow the stream until it holds an event for every delivery received so far.
    await eventually(async () => {
      for (;;) {
        const page = await request(`/v1/events?after=${cursor}`, { key: key.key });
        expect(page.status, page.text).to.equal(200);
        stream.push(...(page.body.data.events as StreamedEvent[]));
        cursor = page.body.data.cursor as string;
        if (!page.body.data.has_more) break;
      }
      const streamed = new Set(stream.map((event) => event.id));
      // The writes of before() alone made six deliveries.
      return (
        receiver.received.length >= 6 &&
        receiver.received.every((delivery) => streamed.has(String(delivery.headers['webhook-id'])))
      );
    }, ARRIVAL_MS);

    const sequences = stream.map((event) => event.sequence);
    expect(sequences).to.deep.equal([...sequences].sort((a, b) => a - b));
    expect(new Set(stream.map((event) => event.id)).size).to.equal(stream.length);
    for (const delivery of receiver.received) {
      const id = String(delivery.headers['webhook-id']);
      const { id: _id, sequence: _sequence, ...body } = stream.find((event) => event.id === id)!;
      expect(JSON.stringify(body), id).to.equal(delivery.raw.toString('utf8'));
    }
    // The PUT's two events both arrive, with the ticket as the PUT answered it.
    const printerEvents = stream.filter(
      (event) => event.event.startsWith('ticket.') && event.data.id === tickets.printer.id,
    );
    expect(printerEvents.map((event) => event.event)).to.include.members([
      'ticket.created',
      'ticket.updated',
      'ticket.status_changed',
    ]);

    // Nothing new: 304 for the same ETag. A key without comments:read gets no comment events.
    const { next: unchanged } = await untilNotModified(
      (after, headers) => request(`/v1/events?after=${after}`, { key: key.key, headers }),
      cursor,
    );
    expect(unchanged.text).to.equal('');
    expect(unchanged.headers.get('etag')).to.match(/^W\/"e-\d+"$/);
    const withoutComments = await request(`/v1/events?after=${streamStart}&limit=100`, {
      key: ticketsOnlyKey,
    });
    const kinds = (withoutComments.body.data.events as StreamedEvent[]).map((event) => event.event);
    expect(kinds).to.include('ticket.created').and.not.include('comment.created');
  });
});

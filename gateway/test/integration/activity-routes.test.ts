/**
 * The activity routes against the real lookup, ticket and activity services (fresh databases): the
 * feed and its poll on the session host, a ticket's history on both hosts, the event stream on the
 * API host. Tickets are created through the gateway; their events are recorded into the activity
 * service as its consumer would (record()), so each test knows exactly what the logs hold.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { expectError, suiteFixture } from '@tix/kit/testing';
import type { DomainEvent, EventActor, EventType, FieldChange } from '@tix/protos';
import { startTestActivityServer } from '@tix/activity-service/testing';
import { startTestTicketServer } from '@tix/ticket-service/testing';
import { decodeCursor, encodeCursor } from '../../src/resources/activity-cursor.js';
import { bearer, request, sendJson, signedInBrowser, type JsonResponse } from '../support/test-gateway.js';
import { createAlphaAndBeta, createDefaultTypes } from '../support/lookup-seed.js';
import { startRealServices } from '../support/real-services.js';

const PASSWORD = 'activity routes password';

describe('activity routes + real lookup, ticket and activity services (fresh databases)', function () {
  this.timeout(60_000);
  let viewer: Record<string, string>;
  const ids = { alpha: 0, beta: 0, ada: 0, keyId: 0 };
  const keys = { full: '', ticketsOnly: '' };
  let types: Record<string, number>;
  /** The tickets as the API answered them: T1 in alpha, T2 in beta. */
  const ticket: Record<'t1' | 't2', Record<string, any>> = { t1: {}, t2: {} };

  const ada: () => EventActor = () => ({ kind: 'user', user_id: ids.ada, api_key_id: null });

  /** A domain event as the services write them (envelope v1.1); `data` is a ticket unless said. */
  function event(
    type: EventType,
    data: Record<string, unknown>,
    options: {
      actor: EventActor;
      projectId?: number;
      changes?: Record<string, FieldChange>;
      writeTypes?: EventType[];
    },
  ): DomainEvent {
    return {
      id: randomUUID(),
      type,
      occurred_at: new Date().toISOString(),
      source: type.startsWith('ticket.') ? 'tickets' : 'comments',
      project_id: options.projectId ?? (data.project_id as number),
      actor: options.actor,
      changes: options.changes ?? {},
      ...(options.writeTypes ? { write_types: options.writeTypes } : {}),
      data,
    };
  }

  /** Records the events of one write, in order. */
  async function record(...events: DomainEvent[]): Promise<void> {
    for (const each of events) await fleet.activity.record(each);
  }

  const app = (path: string, headers: Record<string, string> = viewer): Promise<JsonResponse> =>
    request(`${fleet.gateway.appUrl}/api${path}`, { headers });
  const api = (path: string, key = keys.full, headers: Record<string, string> = {}): Promise<JsonResponse> =>
    request(`${fleet.gateway.apiUrl}/v1${path}`, { headers: { ...bearer(key), ...headers } });

  const fleet = suiteFixture(() =>
    startRealServices({
      label: 'gateway_activity',
      seed: async (admin) => {
        Object.assign(ids, await createAlphaAndBeta(admin));
        types = await createDefaultTypes(admin, ['alpha', 'beta']);
        ids.ada = (await admin.CreateUser({ name: 'Ada', email: 'ada@example.com', role: 'admin' })).id;
        await admin.CreateUser({ name: 'Vic', email: 'vic@example.com', role: 'viewer', password: PASSWORD });
        const full = await admin.CreateApiKey({
          user_email: 'ada@example.com',
          scopes: ['tickets:read', 'tickets:write', 'comments:read'],
          name: 'full',
        });
        keys.full = full.key;
        ids.keyId = full.id;
        keys.ticketsOnly = (
          await admin.CreateApiKey({
            user_email: 'ada@example.com',
            scopes: ['tickets:read'],
            project_slug: 'alpha',
            name: 'tickets only',
          })
        ).key;
      },
      peers: {
        tickets: ({ lookup }) => startTestTicketServer({ lookupAddress: lookup, label: 'gateway_activity' }),
        activity: ({ lookup }) =>
          startTestActivityServer({ lookupAddress: lookup, label: 'gateway_activity' }),
      },
    }),
  );

  before(async () => {
    viewer = await signedInBrowser(fleet.gateway.appUrl, 'vic@example.com', PASSWORD);

    const create = async (project: string, title: string) => {
      const created = await sendJson(
        `${fleet.gateway.apiUrl}/v1/tickets?project=${project}`,
        'POST',
        bearer(keys.full),
        {
          title,
          ticket_type_id: types[project],
        },
      );
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      return created.body.data.ticket as Record<string, any>;
    };
    ticket.t1 = await create('alpha', 'Printer on fire');
    ticket.t2 = await create('beta', 'Coffee machine empty');

    // T1 created by Ada in person; moved to waiting with her key; an internal note; T2 by a job.
    await record(event('ticket.created', ticket.t1, { actor: ada(), writeTypes: ['ticket.created'] }));
    const moved = { ...ticket.t1, status: 'waiting', version: 2 };
    const writeTypes: EventType[] = ['ticket.updated', 'ticket.status_changed'];
    const byKey: EventActor = { kind: 'api_key', user_id: ids.ada, api_key_id: ids.keyId };
    const changes = { status: { from: 'open', to: 'waiting' } };
    await record(
      event('ticket.updated', moved, { actor: byKey, changes, writeTypes }),
      event('ticket.status_changed', moved, { actor: byKey, changes, writeTypes }),
    );
    await record(
      event(
        'comment.created',
        {
          id: 5,
          ticket_id: ticket.t1.id,
          user_id: ids.ada,
          content: 'The customer keeps the spare key under the mat',
          content_html: null,
          is_internal: true,
        },
        { actor: ada(), projectId: ids.alpha },
      ),
    );
    await record(
      event('ticket.created', ticket.t2, {
        actor: { kind: 'system', user_id: null, api_key_id: null },
        writeTypes: ['ticket.created'],
      }),
    );
  });

  it('GET /api/activity: every project, newest first, one entry per write, with the snapshot and its cursor', async () => {
    const feed = await app('/activity');
    expect(feed.status, JSON.stringify(feed.body)).to.equal(200);
    const { activities, pagination, snapshot_id, cursor } = feed.body.data;
    expect(activities.map((entry: any) => [entry.type, entry.subject.id])).to.deep.equal([
      ['ticket.created', ticket.t2.id],
      ['comment.created', ticket.t1.id],
      ['ticket.updated', ticket.t1.id],
      ['ticket.created', ticket.t1.id],
    ]);
    expect(pagination).to.deep.equal({ total: 4, page: 1, per_page: 50, total_pages: 1 });
    expect(snapshot_id).to.equal(activities[0].id);
    expect(cursor).to.equal(encodeCursor('activity', snapshot_id));
    expect(activities[2]).to.deep.equal({
      id: activities[2].id,
      type: 'ticket.updated',
      occurred_at: activities[2].occurred_at,
      project_id: ids.alpha,
      actor: { kind: 'api_key', user_id: ids.ada, name: 'Ada', api_key_id: ids.keyId, via: null },
      subject: {
        type: 'ticket',
        id: ticket.t1.id,
        ticket_number: ticket.t1.ticket_number,
        title: 'Printer on fire',
      },
      changes: { status: { from: 'open', to: 'waiting' } },
      comment: null,
      summary: activities[2].summary,
    });
    expect(activities[2].id).to.be.a('number');
    expect(activities[2].summary).to.be.a('string').and.include('Ada');
    // A session may read comments: the internal note's excerpt is shown.
    expect(activities[1].comment).to.deep.equal({
      id: 5,
      is_internal: true,
      excerpt: 'The customer keeps the spare key under the mat',
    });
    expect(activities[0].actor).to.deep.equal({
      kind: 'system',
      user_id: null,
      name: null,
      api_key_id: null,
      via: null,
    });
  });

  it('GET /api/activity: each filter, and 400 in the envelope for bad ones', async () => {
    const types = async (query: string) => {
      const response = await app(`/activity?${query}`);
      expect(response.status, `${query}: ${JSON.stringify(response.body)}`).to.equal(200);
      return response.body.data.activities.map((entry: any) => `${entry.type} ${entry.subject.id}`);
    };
    const [t1, t2] = [ticket.t1.id, ticket.t2.id];
    expect(await types('project=alpha')).to.deep.equal([
      `comment.created ${t1}`,
      `ticket.updated ${t1}`,
      `ticket.created ${t1}`,
    ]);
    expect(await types(`project_id=${ids.beta}`)).to.deep.equal([`ticket.created ${t2}`]);
    expect(await types(`ticket_id=${t2}`)).to.deep.equal([`ticket.created ${t2}`]);
    expect(await types(`actor_id=${ids.ada}`)).to.have.length(3);
    expect(await types('actor_kind=api_key')).to.deep.equal([`ticket.updated ${t1}`]);
    expect(await types('type=comment.*')).to.deep.equal([`comment.created ${t1}`]);
    expect(await types('type=ticket.created,comment.created')).to.have.length(3);
    expect(await types('field=status')).to.deep.equal([`ticket.updated ${t1}`]);
    expect(await types('since=2999-01-01')).to.deep.equal([]);
    expect(await types('until=2000-01-01T00:00:00Z')).to.deep.equal([]);

    expectError(
      await app('/activity?actor_kind=robot&type=ticket&per_page=500'),
      400,
      'Invalid actor_kind, type, per_page',
      ['actor_kind', 'type', 'per_page'],
    );
    expectError(await app('/activity?project=nowhere'), 404, 'Project not found');
  });

  it('GET /api/activity: later pages with until_id do not shift when entries arrive', async () => {
    const first = (await app('/activity?per_page=2')).body.data;
    await record(
      event(
        'ticket.updated',
        { ...ticket.t1, title: 'Printer on fire again', version: 3 },
        {
          actor: ada(),
          changes: { title: { from: 'Printer on fire', to: 'Printer on fire again' } },
          writeTypes: ['ticket.updated'],
        },
      ),
    );
    const pinned = await app(`/activity?per_page=2&page=2&until_id=${first.snapshot_id}`);
    expect(pinned.body.data.activities.map((entry: any) => entry.type)).to.deep.equal([
      'ticket.updated',
      'ticket.created',
    ]);
    expect(pinned.body.data.pagination).to.deep.equal({ total: 4, page: 2, per_page: 2, total_pages: 2 });
    expect(pinned.body.data.snapshot_id).to.equal(first.snapshot_id);
    const shifted = await app('/activity?per_page=2&page=2');
    expect(shifted.body.data.activities[0].type).to.equal('comment.created');
    expect(shifted.body.data.snapshot_id).to.be.greaterThan(first.snapshot_id);
  });

  it('GET /api/activity/new: from now, after a cursor (oldest first, has_more), ETag and 304, 400 for a bad cursor', async () => {
    const now = await app('/activity/new');
    expect(now.status).to.equal(200);
    const head = (await app('/activity?per_page=1')).body.data.snapshot_id as number;
    expect(now.body.data).to.deep.equal({
      activities: [],
      cursor: encodeCursor('activity', head),
      has_more: false,
      poll_interval_seconds: 10,
    });
    expect(now.headers.get('etag')).to.equal(`W/"a-${head}"`);
    expect(now.headers.get('x-poll-interval')).to.equal('10');

    // Every entry, oldest first (ids rise in commit order; a folded event may leave a number unused).
    const all = (await app(`/activity/new?cursor=${encodeCursor('activity', 0)}`)).body.data;
    const numbers: number[] = all.activities.map((entry: any) => entry.id);
    expect(numbers).to.have.length(5);
    expect(numbers).to.deep.equal([...numbers].sort((a, b) => a - b));
    expect(numbers.at(-1)).to.equal(head);
    expect(all.cursor).to.equal(encodeCursor('activity', head));
    const two = await app(`/activity/new?cursor=${encodeCursor('activity', 0)}&limit=2`);
    expect(two.body.data).to.deep.include({ has_more: true, cursor: encodeCursor('activity', numbers[1]!) });
    expect(two.body.data.activities).to.have.length(2);
    const notes = await app(`/activity/new?cursor=${encodeCursor('activity', 0)}&type=comment.*`);
    expect(notes.body.data.activities.map((entry: any) => entry.type)).to.deep.equal(['comment.created']);
    expect(notes.body.data.cursor).to.equal(encodeCursor('activity', head));

    const unchanged = await app(`/activity/new?cursor=${now.body.data.cursor}`, {
      ...viewer,
      'If-None-Match': now.headers.get('etag')!,
    });
    expect(unchanged.status).to.equal(304);
    expect(unchanged.body).to.equal(undefined);
    expect(unchanged.headers.get('etag')).to.equal(`W/"a-${head}"`);
    expect(unchanged.headers.get('x-poll-interval')).to.equal('10');
    expect(unchanged.headers.get('x-correlation-id')).to.be.a('string');

    for (const cursor of ['nope', encodeCursor('events', 0)]) {
      expectError(await app(`/activity/new?cursor=${cursor}`), 400, 'Invalid cursor', {
        cursor: ['Invalid cursor'],
      });
    }
  });

  it("the feed is the session host's: 401 when not signed in, 404 on the API host", async () => {
    for (const path of ['/activity', '/activity/new']) {
      expectError(await app(path, {}), 401, 'Not signed in');
      expect((await api(path)).status, path).to.equal(404);
    }
    expect((await app('/events')).status).to.equal(404);
  });

  it("GET /tickets/{id}/history: the ticket's entries oldest first, on both hosts; 404 for another project's ticket", async () => {
    const history = await api(`/tickets/${ticket.t1.id}/history?project=alpha`);
    expect(history.status, JSON.stringify(history.body)).to.equal(200);
    expect(history.body.data.ticket_id).to.equal(ticket.t1.id);
    expect(history.body.data.pagination).to.deep.equal({ total: 4, page: 1, per_page: 50, total_pages: 1 });
    expect(history.body.data.activities.map((entry: any) => entry.type)).to.deep.equal([
      'ticket.created',
      'ticket.updated',
      'comment.created',
      'ticket.updated',
    ]);
    const session = await app(`/tickets/${ticket.t1.id}/history?project=alpha&per_page=1&page=2`);
    expect(session.body.data.activities.map((entry: any) => entry.type)).to.deep.equal(['ticket.updated']);

    // A key without comments:read sees that a note was added, not what it says.
    const keyed = await api(`/tickets/${ticket.t1.id}/history`, keys.ticketsOnly);
    expect(keyed.body.data.activities[2].comment).to.deep.equal({ id: 5, is_internal: true, excerpt: null });

    expectError(await api(`/tickets/${ticket.t2.id}/history?project=alpha`), 404, 'Ticket not found');
    expectError(await api('/tickets/2147483000/history?project=alpha'), 404, 'Ticket not found');
    expectError(await api('/tickets/abc/history?project=alpha'), 400, 'Invalid ticket id');
  });

  it("GET /v1/events: the project's events after a cursor, each the webhook body plus id and sequence", async () => {
    const start = await api(`/events?project=alpha&after=${encodeCursor('events', 0)}`);
    expect(start.status, JSON.stringify(start.body)).to.equal(200);
    const { events, cursor, has_more } = start.body.data;
    expect(events.map((each: any) => each.event)).to.deep.equal([
      'ticket.created',
      'ticket.updated',
      'ticket.status_changed',
      'comment.created',
      'ticket.updated',
    ]);
    expect(has_more).to.equal(false);
    const first = events[0];
    expect(Object.keys(first)).to.deep.equal(['id', 'sequence', 'event', 'timestamp', 'data']);
    expect(first.data).to.deep.equal(ticket.t1);
    expect(first.timestamp).to.be.a('number');
    expect(events.map((each: any) => each.sequence)).to.deep.equal(
      [...events.map((each: any) => each.sequence)].sort((a: number, b: number) => a - b),
    );
    expect(start.headers.get('etag')).to.equal(`W/"e-${decodeCursor('events', cursor)}"`);

    const unchanged = await api(`/events?project=alpha&after=${cursor}`, keys.full, {
      'If-None-Match': start.headers.get('etag')!,
    });
    expect(unchanged.status).to.equal(304);
    const tickets = await api(`/events?project=alpha&after=${encodeCursor('events', 0)}&types=ticket.*`);
    expect(tickets.body.data.events).to.have.length(4);
    // Without comments:read, comment events are left out.
    const keyed = await api(`/events?after=${encodeCursor('events', 0)}`, keys.ticketsOnly);
    expect(keyed.body.data.events.map((each: any) => each.event)).to.not.include('comment.created');
    expect(keyed.body.data.events).to.have.length(4);

    const now = await api('/events?project=beta');
    expect(now.body.data.events).to.deep.equal([]);
    expect(now.body.data.cursor).to.equal(cursor);
    expectError(
      await api(`/events?project=alpha&after=${encodeCursor('activity', 0)}`),
      400,
      'Invalid after',
      {
        after: ['Invalid cursor'],
      },
    );
    expectError(await api('/events'), 400, 'Project ID is required.');
  });

  it('410 for a cursor older than what retention kept', async () => {
    await fleet.activity.sweep(new Date(Date.now() + 60_000));
    expectError(
      await app(`/activity/new?cursor=${encodeCursor('activity', 0)}`),
      410,
      'Cursor expired; reload /activity',
    );
    expectError(
      await api(`/events?project=alpha&after=${encodeCursor('events', 0)}`),
      410,
      'Cursor expired; start again without after',
    );
  });
});

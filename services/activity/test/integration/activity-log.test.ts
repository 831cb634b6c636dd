import { expect } from 'chai';
import type { activity } from '@tix/protos';
import { commentEvent, startHarness, ticketWrite, userActor, type Harness } from './support.js';

const changesOf = (entry: activity.Activity__Output) =>
  JSON.parse(entry.changes_json) as Record<string, unknown>;

describe('the activity log', function () {
  this.timeout(60_000);
  let harness: Harness;
  let alice: number;
  let bob: number;

  before(async () => {
    harness = await startHarness();
    alice = (
      await harness.lookupClient.CreateUser({ name: 'Alice', email: 'alice@example.com', role: 'agent' })
    ).id;
    bob = (await harness.lookupClient.CreateUser({ name: 'Bob', email: 'bob@example.com', role: 'viewer' }))
      .id;
  });
  after(() => harness.stop());
  beforeEach(() =>
    harness.activity.pool.query('TRUNCATE activities, events, ticket_subjects, retention_floors'),
  );

  const record = async (events: ReturnType<typeof ticketWrite>) => {
    for (const event of events) await harness.activity.record(event);
  };
  const list = (request: Partial<activity.ListActivitiesRequest> = {}) =>
    harness.client.ListActivities({
      filter: {},
      page: { page: 1, per_page: 50 },
      include_comment_text: true,
      ...request,
    });

  it('folds one write (updated, status_changed, assigned) into one entry with both changes', async () => {
    await record(
      ticketWrite(
        ['ticket.created'],
        { id: 1, projectId: 1, version: 1, title: 'Printer' },
        { actor: userActor(alice) },
      ),
    );
    const changes = { status: { from: 'open', to: 'in_progress' }, assigned_to: { from: null, to: bob } };
    await record(
      ticketWrite(
        ['ticket.updated', 'ticket.status_changed', 'ticket.assigned'],
        { id: 1, projectId: 1, version: 2 },
        {
          actor: userActor(alice),
          changes,
        },
      ),
    );
    const { activities } = await list();
    expect(activities.map((entry) => entry.type)).to.deep.equal(['ticket.updated', 'ticket.created']);
    const [update] = activities;
    expect(changesOf(update!)).to.deep.equal(changes);
    expect(update!.summary).to.equal('Alice updated the status and assignee of SUP-1');
    expect(update!.actor).to.include({ kind: 'user', user_id: alice, name: 'Alice' });
    expect(update!.subject).to.include({ type: 'ticket', id: 1, ticket_number: 'SUP-1' });
  });

  it('never duplicates an entry when events are delivered again', async () => {
    const events = ticketWrite(
      ['ticket.updated', 'ticket.status_changed'],
      { id: 2, projectId: 1, version: 3 },
      {
        actor: userActor(alice),
        changes: { status: { from: 'open', to: 'closed' } },
      },
    );
    const outcomes = [];
    for (const event of [...events, ...events, events[0]!])
      outcomes.push(await harness.activity.record(event));
    expect(outcomes).to.deep.equal(['recorded', 'folded', 'duplicate', 'duplicate', 'duplicate']);
    const { rows } = await harness.activity.pool.query('SELECT count(*)::int AS n FROM events');
    expect(rows[0].n).to.equal(2);
    expect((await list()).activities).to.have.length(1);
  });

  it('filters by project, ticket, actor, actor kind, type prefix, changed field and time', async () => {
    await record(
      ticketWrite(['ticket.created'], { id: 10, projectId: 1, version: 1 }, { actor: userActor(alice) }),
    );
    await record(
      ticketWrite(['ticket.created'], { id: 11, projectId: 2, version: 1 }, { actor: userActor(bob) }),
    );
    await record(
      ticketWrite(
        ['ticket.updated'],
        { id: 10, projectId: 1, version: 2 },
        {
          actor: { kind: 'api_key', user_id: bob, api_key_id: 4 },
          changes: { priority: { from: 'medium', to: 'high' } },
          occurredAt: '2030-01-01T00:00:00.000Z',
        },
      ),
    );
    await harness.activity.record(
      commentEvent(
        'comment.created',
        { id: 5, ticketId: 10, projectId: 1, content: 'Secret', isInternal: true },
        userActor(alice),
      ),
    );
    const ids = async (filter: Partial<activity.ActivityFilter>) =>
      (await list({ filter })).activities.map((entry) => `${entry.type}:${entry.subject?.id}`);

    expect(await ids({ project_ids: [2] })).to.deep.equal(['ticket.created:11']);
    expect(await ids({ ticket_id: 10 })).to.deep.equal([
      'comment.created:10',
      'ticket.updated:10',
      'ticket.created:10',
    ]);
    expect(await ids({ actor_id: bob })).to.deep.equal(['ticket.updated:10', 'ticket.created:11']);
    expect(await ids({ actor_kind: 'api_key' })).to.deep.equal(['ticket.updated:10']);
    expect(await ids({ types: ['comment.*'] })).to.deep.equal(['comment.created:10']);
    expect(await ids({ types: ['ticket.created', 'comment.*'] })).to.have.length(3);
    expect(await ids({ types: ['ticket'] })).to.deep.equal([]);
    expect(await ids({ field: 'priority' })).to.deep.equal(['ticket.updated:10']);
    expect(await ids({ since: '2029-01-01T00:00:00Z' })).to.deep.equal(['ticket.updated:10']);
    expect(await ids({ until: '2029-01-01T00:00:00Z' })).to.have.length(3);
  });

  it('shows a comment excerpt only to callers who may read comments', async () => {
    await harness.activity.record(
      commentEvent(
        'comment.created',
        { id: 6, ticketId: 12, projectId: 1, content: 'Call  me\nback', isInternal: true },
        userActor(alice),
      ),
    );
    const [shown] = (await list()).activities;
    expect(shown!.comment).to.deep.include({ id: 6, is_internal: true, excerpt: 'Call me back' });
    const [hidden] = (await list({ include_comment_text: false })).activities;
    expect(hidden!.comment).to.deep.include({ id: 6, is_internal: true });
    expect(hidden!.comment?.excerpt).to.equal(undefined);
  });

  it('keeps later pages stable under a snapshot while new entries arrive', async () => {
    for (let id = 100; id < 105; id += 1) {
      await record(
        ticketWrite(['ticket.created'], { id, projectId: 1, version: 1 }, { actor: userActor(alice) }),
      );
    }
    const first = await list({ page: { page: 1, per_page: 2 } });
    expect(first.pagination).to.deep.include({ total: 5, total_pages: 3 });
    await record(
      ticketWrite(['ticket.created'], { id: 105, projectId: 1, version: 1 }, { actor: userActor(alice) }),
    );
    const second = await list({ page: { page: 2, per_page: 2 }, until_id: first.snapshot_id });
    expect(second.activities.map((entry) => entry.subject?.id)).to.deep.equal([102, 101]);
    expect(second.pagination?.total).to.equal(5);
  });

  it('polls after a cursor oldest first, steps over filtered entries, and expires after retention', async () => {
    const start = await harness.client.PollActivities({ filter: {}, limit: 100 });
    expect(start.activities).to.deep.equal([]);
    for (let id = 200; id < 205; id += 1) {
      await record(
        ticketWrite(
          ['ticket.created'],
          { id, projectId: id % 2 === 0 ? 1 : 2, version: 1 },
          { actor: userActor(alice) },
        ),
      );
    }
    const page = await harness.client.PollActivities({ filter: {}, after_id: start.cursor_id, limit: 2 });
    expect(page.activities.map((entry) => entry.subject?.id)).to.deep.equal([200, 201]);
    expect(page.has_more).to.equal(true);
    const rest = await harness.client.PollActivities({
      filter: { project_ids: [1] },
      after_id: page.cursor_id,
      limit: 100,
    });
    expect(rest.activities.map((entry) => entry.subject?.id)).to.deep.equal([202, 204]);
    expect(rest.has_more).to.equal(false);
    const unchanged = await harness.client.PollActivities({
      filter: { project_ids: [1] },
      after_id: rest.cursor_id,
      limit: 100,
    });
    expect(unchanged).to.deep.include({
      activities: [],
      cursor_id: rest.cursor_id,
      has_more: false,
      expired: false,
    });

    const swept = await harness.activity.sweep(new Date(Date.now() + 1_000));
    expect(swept.activities).to.equal(5);
    const expired = await harness.client.PollActivities({ filter: {}, after_id: page.cursor_id, limit: 100 });
    expect(expired.expired).to.equal(true);
    // A cursor taken after the sweep is fine.
    const fresh = await harness.client.PollActivities({ filter: {}, after_id: rest.cursor_id, limit: 100 });
    expect(fresh.expired).to.equal(false);
  });

  it("lists a ticket's history oldest first, within its project", async () => {
    await record(
      ticketWrite(['ticket.created'], { id: 300, projectId: 1, version: 1 }, { actor: userActor(alice) }),
    );
    await record(
      ticketWrite(
        ['ticket.updated'],
        { id: 300, projectId: 1, version: 2, title: 'Printer on fire' },
        { actor: userActor(bob), changes: { title: { from: 'Ticket 300', to: 'Printer on fire' } } },
      ),
    );
    await record(
      ticketWrite(
        ['ticket.deleted'],
        { id: 300, projectId: 1, version: 3, title: 'Printer on fire' },
        { actor: userActor(alice) },
      ),
    );
    const history = await harness.client.ListTicketHistory({
      project_id: 1,
      ticket_id: 300,
      page: { page: 1, per_page: 50 },
      include_comment_text: true,
    });
    expect(history.activities.map((entry) => entry.summary)).to.deep.equal([
      'Alice created SUP-300 "Printer on fire"',
      'Bob renamed SUP-300 from "Ticket 300" to "Printer on fire"',
      'Alice deleted SUP-300',
    ]);
    const elsewhere = await harness.client.ListTicketHistory({
      project_id: 2,
      ticket_id: 300,
      page: { page: 1, per_page: 50 },
    });
    expect(elsewhere.activities).to.deep.equal([]);
  });

  it("streams a project's events in commit order as webhooks deliver them, comments only when allowed", async () => {
    const start = await harness.client.ListEvents({ project_id: 1, limit: 100 });
    const write = ticketWrite(
      ['ticket.updated', 'ticket.assigned'],
      { id: 400, projectId: 1, version: 2 },
      {
        actor: userActor(alice),
        changes: { assigned_to: { from: null, to: bob } },
      },
    );
    await record(write);
    await record(
      ticketWrite(['ticket.created'], { id: 401, projectId: 2, version: 1 }, { actor: userActor(alice) }),
    );
    await harness.activity.record(
      commentEvent(
        'comment.created',
        { id: 7, ticketId: 400, projectId: 1, content: 'x', isInternal: true },
        userActor(alice),
      ),
    );
    const all = await harness.client.ListEvents({
      project_id: 1,
      after_id: start.cursor_id,
      limit: 100,
      include_comments: true,
    });
    expect(all.events.map((event) => event.type)).to.deep.equal([
      'ticket.updated',
      'ticket.assigned',
      'comment.created',
    ]);
    expect(all.events[0]!.id).to.equal(write[0]!.id);
    expect(JSON.parse(all.events[0]!.body_json)).to.deep.equal({
      event: 'ticket.updated',
      timestamp: Math.floor(Date.parse(write[0]!.occurred_at) / 1000),
      data: write[0]!.data,
    });
    const withoutComments = await harness.client.ListEvents({
      project_id: 1,
      after_id: start.cursor_id,
      limit: 100,
    });
    expect(withoutComments.events.map((event) => event.type)).to.deep.equal([
      'ticket.updated',
      'ticket.assigned',
    ]);
    const assigned = await harness.client.ListEvents({
      project_id: 1,
      after_id: start.cursor_id,
      limit: 100,
      types: ['ticket.assigned'],
    });
    expect(assigned.events.map((event) => event.type)).to.deep.equal(['ticket.assigned']);
  });
});

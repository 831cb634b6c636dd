import { expect } from 'chai';
import amqp from 'amqplib';
import { createTestVhost, eventually, type TestVhost } from '@tix/kit/testing';
import {
  EVENTS_DEAD_LETTER_EXCHANGE,
  EVENTS_EXCHANGE,
  type activity,
  type DomainEvent,
  type EventActor,
} from '@tix/protos';
import { ACTIVITY_EVENTS_QUEUE } from '../../src/log/event-consumer.js';
import {
  assistantAction,
  assistantEvent,
  startHarness,
  ticketWrite,
  untilEventsConsumed,
  userActor,
  type Harness,
} from './support.js';

const SYSTEM: EventActor = { kind: 'system', user_id: null, api_key_id: null };

describe("the activity log of the assistant's autonomy (ai.*)", function () {
  this.timeout(90_000);
  let vhost: TestVhost;
  let harness: Harness;
  let ada: number;
  let lee: number;
  let assistant: number;

  before(async () => {
    vhost = await createTestVhost('activity_ai');
    // A deployment from before ai.* was bound: activity.events exists with its old bindings.
    const connection = await amqp.connect(vhost.url);
    const channel = await connection.createChannel();
    await channel.assertExchange(EVENTS_EXCHANGE, 'topic', { durable: true });
    await channel.assertExchange(EVENTS_DEAD_LETTER_EXCHANGE, 'direct', { durable: true });
    const queue = ACTIVITY_EVENTS_QUEUE;
    await channel.assertQueue(queue.name, { durable: true, arguments: queue.arguments });
    for (const pattern of queue.bindings.filter((binding) => binding !== 'ai.*'))
      await channel.bindQueue(queue.name, EVENTS_EXCHANGE, pattern);
    await connection.close();

    harness = await startHarness({ amqpUrl: vhost.url, label: 'activity_ai' });
    ada = (
      await harness.lookupClient.CreateUser({ name: 'Ada Admin', email: 'ada@example.com', role: 'admin' })
    ).id;
    lee = (
      await harness.lookupClient.CreateUser({ name: 'Lee Lead', email: 'lee@example.com', role: 'team_lead' })
    ).id;
    assistant = (await harness.lookupClient.GetAssistantUser({})).id;
  });
  after(async () => {
    await harness?.stop();
    await vhost?.drop();
  });
  beforeEach(() =>
    harness.activity.pool.query('TRUNCATE activities, events, ticket_subjects, retention_floors'),
  );

  const list = async (filter: Partial<activity.ActivityFilter> = {}) =>
    (
      await harness.client.ListActivities({
        filter,
        page: { page: 1, per_page: 50 },
        include_comment_text: true,
      })
    ).activities;
  const summaries = async (filter: Partial<activity.ActivityFilter> = {}) =>
    (await list(filter)).map((entry) => entry.summary).reverse();

  const guardrailsUpdated = (projectId: number) =>
    assistantEvent('ai.guardrails_updated', {
      projectId,
      actor: userActor(ada),
      data: { project_id: projectId, version: 2, guardrails: {}, updated_at: new Date().toISOString() },
      changes: {
        'actions.set_priority.mode': { from: 'off', to: 'auto' },
        'scope.statuses': { from: null, to: ['open'] },
      },
    });
  const killSwitch = (
    type: 'ai.kill_switch_activated' | 'ai.kill_switch_cleared',
    projectId: number | null,
    reason: string,
  ) =>
    assistantEvent(type, {
      projectId,
      actor: userActor(ada),
      data:
        type === 'ai.kill_switch_activated'
          ? { scope: projectId === null ? 'global' : 'project', project_id: projectId, active: true, reason }
          : {
              scope: projectId === null ? 'global' : 'project',
              project_id: projectId,
              active: false,
              clear_reason: reason,
            },
      changes: {
        active: { from: type === 'ai.kill_switch_cleared', to: type === 'ai.kill_switch_activated' },
      },
    });
  const priorityRaised = (ticketId: number, actionId: number) =>
    ticketWrite(
      ['ticket.updated'],
      { id: ticketId, projectId: 1, version: 2 },
      {
        actor: { kind: 'ai', user_id: assistant, api_key_id: null, via: { type: 'ai_action', id: actionId } },
        changes: { priority: { from: 'medium', to: 'high' } },
      },
    );

  it('records each happening once, with its summary, subject and the actor by name', async () => {
    for (const event of ticketWrite(
      ['ticket.created'],
      { id: 7, projectId: 1, version: 1 },
      { actor: userActor(ada) },
    ))
      await harness.activity.record(event);
    const action = { id: 981, projectId: 1, ticketId: 7, actionType: 'set_priority' };
    const events: DomainEvent[] = [
      guardrailsUpdated(1),
      assistantEvent('ai.action_executed', {
        projectId: 1,
        actor: { kind: 'ai', user_id: assistant, api_key_id: null, via: { type: 'ai_action', id: 981 } },
        data: { action: assistantAction({ ...action, status: 'pending_review' }) },
      }),
      ...priorityRaised(7, 981),
      assistantEvent('ai.action_acknowledged', {
        projectId: 1,
        actor: userActor(lee),
        data: {
          action: assistantAction({
            ...action,
            status: 'acknowledged',
            reviewedBy: lee,
            reviewNote: 'Right call',
          }),
        },
        changes: { status: { from: 'pending_review', to: 'acknowledged' } },
      }),
      assistantEvent('ai.action_type_paused', {
        projectId: 1,
        actor: SYSTEM,
        data: {
          project_id: 1,
          action_type: 'set_priority',
          executed: 10,
          reverted: 3,
          revert_rate: 0.2,
          window_hours: 24,
        },
        changes: { 'auto_pause.paused': { from: false, to: true } },
      }),
      killSwitch('ai.kill_switch_activated', 1, 'Priorities look wrong'),
      killSwitch('ai.kill_switch_cleared', 1, 'Fixed'),
    ];
    const outcomes = [];
    for (const event of events) outcomes.push(await harness.activity.record(event));
    expect(outcomes).to.deep.equal([
      'recorded',
      'ignored',
      'recorded',
      'recorded',
      'recorded',
      'recorded',
      'recorded',
    ]);

    expect(await summaries()).to.deep.equal([
      'Ada Admin created SUP-7 "Ticket 7"',
      'Ada Admin changed the assistant\'s guardrails: actions.set_priority.mode from "off" to "auto" and scope.statuses from null to ["open"]',
      'Tix AI changed the priority of SUP-7 from Medium to High',
      'Lee Lead acknowledged the assistant\'s set priority action #981 on SUP-7, noting "Right call"',
      "Tix paused the assistant's set priority actions in this project: 3 of 10 reverted in the last 24 hours",
      'Ada Admin activated the assistant\'s kill switch for this project: "Priorities look wrong"',
      'Ada Admin cleared the assistant\'s kill switch for this project: "Fixed"',
    ]);
    const [cleared, , paused, acknowledged, , guardrails] = await list();
    expect(guardrails!.type).to.equal('ai.guardrails_updated');
    expect(guardrails!.subject).to.include({ type: 'project', id: 1 });
    expect(guardrails!.actor).to.include({ kind: 'user', user_id: ada, name: 'Ada Admin' });
    expect(JSON.parse(guardrails!.changes_json)).to.have.keys('actions.set_priority.mode', 'scope.statuses');
    // The review changed no field of the ticket: a `field` filter never finds it.
    expect(acknowledged!.subject).to.include({ type: 'ticket', id: 7, ticket_number: 'SUP-7' });
    expect(JSON.parse(acknowledged!.changes_json)).to.deep.equal({});
    expect(paused!.actor).to.include({ kind: 'system' });
    expect(paused!.actor?.user_id).to.equal(undefined);
    expect(cleared!.project_id).to.equal(1);
  });

  it('adds no entry for an executed or reverted action: the write it made is the entry', async () => {
    const action = { id: 982, projectId: 1, ticketId: 8, actionType: 'set_priority' };
    const reverted = assistantEvent('ai.action_reverted', {
      projectId: 1,
      actor: { ...userActor(lee), via: { type: 'ai_revert', id: 982 } },
      data: {
        action: { ...assistantAction({ ...action, status: 'reverted' }), reverted_by: lee, forced: false },
      },
    });
    const revertWrite = ticketWrite(
      ['ticket.updated'],
      { id: 8, projectId: 1, version: 3 },
      {
        actor: { ...userActor(lee), via: { type: 'ai_revert', id: 982 } },
        changes: { priority: { from: 'high', to: 'medium' } },
      },
    );
    expect(await harness.activity.record(reverted)).to.equal('ignored');
    expect(await harness.activity.record(revertWrite[0]!)).to.equal('recorded');
    const entries = await list();
    expect(entries.map((entry) => entry.type)).to.deep.equal(['ticket.updated']);
    expect(entries[0]!.actor?.via).to.deep.include({ type: 'ai_revert' });
    expect(entries[0]!.summary).to.equal('Lee Lead changed the priority of SUP-8 from High to Medium');
  });

  it('records a redelivered ai event once, and never streams ai events to /v1/events', async () => {
    const start = await harness.client.ListEvents({ project_id: 1, limit: 100 });
    const event = guardrailsUpdated(1);
    const outcomes = [];
    for (let copy = 0; copy < 3; copy += 1) outcomes.push(await harness.activity.record(event));
    expect(outcomes).to.deep.equal(['recorded', 'duplicate', 'duplicate']);
    expect(await list()).to.have.length(1);

    await harness.activity.record(killSwitch('ai.kill_switch_activated', null, 'Stop'));
    for (const write of ticketWrite(
      ['ticket.created'],
      { id: 9, projectId: 1, version: 1 },
      { actor: userActor(ada) },
    ))
      await harness.activity.record(write);
    const streamed = await harness.client.ListEvents({
      project_id: 1,
      after_id: start.cursor_id,
      limit: 100,
      types: [],
    });
    expect(streamed.events.map((streamedEvent) => streamedEvent.type)).to.deep.equal(['ticket.created']);
    const ai = await harness.client.ListEvents({
      project_id: 1,
      after_id: start.cursor_id,
      limit: 100,
      types: ['ai.*'],
    });
    expect(ai.events).to.deep.equal([]);
  });

  it("shows a global kill switch in the feed of every project active before it, a project's only in its own", async () => {
    for (const projectId of [1, 2])
      for (const event of ticketWrite(
        ['ticket.created'],
        { id: 30 + projectId, projectId, version: 1 },
        { actor: userActor(ada) },
      ))
        await harness.activity.record(event);
    await harness.activity.record(killSwitch('ai.kill_switch_activated', null, 'Everything stops'));
    await harness.activity.record(killSwitch('ai.kill_switch_activated', 2, 'Project 2 only'));
    // Project 3's first entry comes after the global switch: it was never stopped by it.
    await harness.activity.record(guardrailsUpdated(3));

    const globalSummary =
      'Ada Admin activated the assistant\'s kill switch for every project: "Everything stops"';
    const assistantSummaries = async (projectIds: number[]) =>
      summaries({ project_ids: projectIds, types: ['ai.*'] });
    expect(await assistantSummaries([1])).to.deep.equal([globalSummary]);
    expect(await assistantSummaries([2])).to.deep.equal([
      globalSummary,
      'Ada Admin activated the assistant\'s kill switch for this project: "Project 2 only"',
    ]);
    expect(await assistantSummaries([3])).to.deep.equal([
      'Ada Admin changed the assistant\'s guardrails: actions.set_priority.mode from "off" to "auto" and scope.statuses from null to ["open"]',
    ]);
    expect(await assistantSummaries([3, 1])).to.have.length(2);
    expect(await assistantSummaries([4])).to.deep.equal([]);
    expect(await summaries({ types: ['ai.*'] })).to.have.length(3);
    const [global] = await list({ project_ids: [1], types: ['ai.kill_switch_activated'] });
    expect(global!.project_id).to.equal(undefined);
    expect(global!.subject).to.include({ type: 'all_projects', id: 0 });

    // The poll of one project sees it too.
    const cursor = (await harness.client.PollActivities({ filter: { project_ids: [1] }, limit: 100 }))
      .cursor_id;
    await harness.activity.record(killSwitch('ai.kill_switch_cleared', null, 'Resumed'));
    const polled = await harness.client.PollActivities({
      filter: { project_ids: [1] },
      after_id: cursor,
      limit: 100,
    });
    expect(polled.activities.map((entry) => entry.type)).to.deep.equal(['ai.kill_switch_cleared']);
  });

  it('filters the new entries by type, ticket, actor and actor kind; the ticket history shows the acknowledgement', async () => {
    for (const event of ticketWrite(
      ['ticket.created'],
      { id: 20, projectId: 1, version: 1 },
      { actor: userActor(ada) },
    ))
      await harness.activity.record(event);
    for (const event of priorityRaised(20, 990)) await harness.activity.record(event);
    await harness.activity.record(guardrailsUpdated(1));
    await harness.activity.record(
      assistantEvent('ai.action_acknowledged', {
        projectId: 1,
        actor: userActor(lee),
        data: {
          action: assistantAction({
            id: 990,
            projectId: 1,
            ticketId: 20,
            actionType: 'set_priority',
            status: 'acknowledged',
            reviewedBy: lee,
          }),
        },
      }),
    );
    await harness.activity.record(
      assistantEvent('ai.action_type_paused', {
        projectId: 1,
        actor: SYSTEM,
        data: {
          project_id: 1,
          action_type: 'assign',
          executed: 12,
          reverted: 4,
          revert_rate: 0.2,
          window_hours: 24,
        },
      }),
    );
    const types = async (filter: Partial<activity.ActivityFilter>) =>
      (await list(filter)).map((entry) => entry.type).reverse();

    expect(await types({ types: ['ai.*'] })).to.deep.equal([
      'ai.guardrails_updated',
      'ai.action_acknowledged',
      'ai.action_type_paused',
    ]);
    expect(await types({ types: ['ai.action_acknowledged', 'ticket.created'] })).to.deep.equal([
      'ticket.created',
      'ai.action_acknowledged',
    ]);
    expect(await types({ ticket_id: 20 })).to.deep.equal([
      'ticket.created',
      'ticket.updated',
      'ai.action_acknowledged',
    ]);
    expect(await types({ actor_id: lee })).to.deep.equal(['ai.action_acknowledged']);
    expect(await types({ actor_id: ada })).to.deep.equal(['ticket.created', 'ai.guardrails_updated']);
    expect(await types({ actor_kind: 'system' })).to.deep.equal(['ai.action_type_paused']);
    expect(await types({ actor_kind: 'ai' })).to.deep.equal(['ticket.updated']);
    expect(await types({ field: 'priority' })).to.deep.equal(['ticket.updated']);

    const history = await harness.client.ListTicketHistory({
      project_id: 1,
      ticket_id: 20,
      page: { page: 1, per_page: 50 },
      include_comment_text: true,
    });
    expect(history.activities.map((entry) => entry.summary)).to.deep.equal([
      'Ada Admin created SUP-20 "Ticket 20"',
      'Tix AI changed the priority of SUP-20 from Medium to High',
      "Lee Lead acknowledged the assistant's set priority action #990 on SUP-20",
    ]);
  });

  it('takes ai.* from RabbitMQ on a queue declared before the binding existed, once per event', async () => {
    const connection = await amqp.connect(vhost.url);
    const channel = await connection.createConfirmChannel();
    const event = killSwitch('ai.kill_switch_activated', 5, 'Through the broker');
    for (let copy = 0; copy < 2; copy += 1)
      channel.publish(EVENTS_EXCHANGE, event.type, Buffer.from(JSON.stringify(event)), {
        persistent: true,
        messageId: event.id,
      });
    await channel.waitForConfirms();
    await connection.close();

    const count = async () =>
      (
        await harness.activity.pool.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM activities WHERE type = 'ai.kill_switch_activated'",
        )
      ).rows[0]!.n;
    await eventually(async () => (await count()) === 1, 30_000);
    await untilEventsConsumed(vhost.url);
    expect(await count()).to.equal(1);
  });
});

/**
 * CompareAndSetTicket and UnmergeTicket (docs/decisions.md, "Exact reverts"): the exact revert as a
 * property over seeded random tickets and actions, conflicts with a person's edit, force, position
 * tokens, events.
 */
import { expect } from 'chai';
import { seededRandom as corpusRandom } from '@tix/support-corpus';
import type { OutgoingContext } from '@tix/kit';
import { ROLE_SCOPES, type EventActor, type Principal, type ticket, type TicketJson } from '@tix/protos';
import {
  outboxMark,
  type OutboxRow,
  outboxSince,
  refusalOf,
  startTicketFixture,
  type TicketFixture,
  ticketOf,
  ticketsOf,
} from './support.js';

/** The seeded random of @tix/support-corpus (the same seed gives the same run), and subsets of it. */
function seededRandom(seed: number) {
  const random = corpusRandom(seed);
  return {
    ...random,
    subset: <T>(items: readonly T[], count: number): T[] => {
      const pool = [...items];
      const chosen: T[] = [];
      while (chosen.length < count && pool.length > 0)
        chosen.push(pool.splice(random.int(0, pool.length - 1), 1)[0]!);
      return chosen;
    },
  };
}

const PRIORITIES = ['low', 'medium', 'high', 'critical'];
const RESOLUTIONS = ['resolved', 'wont_fix', 'duplicate'];
const TAG_POOL = ['billing', 'login', 'export', 'mobile', 'vip', 'sso', 'api', 'slow'];
const CLOSED = new Set(['done', 'wont_do']);
const LANES = ['triage', 'todo', 'in_progress', 'in_review', 'done', 'wont_do'];

type Ticket = TicketJson;

/** The rank inside a position token (the test peeks into the opaque token to arrange a lane). */
function tokenRank(token: string): string {
  return (JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { r: string }).r;
}

/** A ticket as the API shows it. */
function shown(ticket: Ticket): Record<string, unknown> {
  return { ...ticket };
}

/**
 * A ticket as the API shows it, without what a revert may change (version, updated_at, updated_by;
 * closed_at only in time: a ticket moved out of a closed status and back is closed again from then).
 */
function unversioned(ticket: Ticket): Record<string, unknown> {
  const { version: _version, updated_at: _at, updated_by: _by, closed_at: closedAt, ...rest } = ticket;
  return { ...rest, closed: closedAt !== null };
}

describe('tickets: CompareAndSetTicket and UnmergeTicket', () => {
  let f: TicketFixture;
  let project: number;
  /** The assistant's system user (any user serves: the ticket service only stamps its id). */
  let aiUserId: number;
  let scopes: Principal['scopes'];

  /** The assistant acting on action `id`. */
  const ai = (id: number): OutgoingContext => ({
    principal: { kind: 'ai', user_id: aiUserId, role: 'agent', scopes, via: { type: 'ai_action', id } },
  });
  /** The team lead reverting action `id` from the app. */
  const reverter = (id: number): OutgoingContext => ({
    principal: {
      kind: 'session',
      user_id: f.demo.users.lead.id,
      role: 'team_lead',
      scopes,
      via: { type: 'ai_revert', id },
    },
  });
  const human = (): OutgoingContext => f.as(f.demo.users.admin, 'session');

  function cas(
    context: OutgoingContext,
    id: number,
    expected: object,
    set: object,
    options: { position_token?: string; force?: boolean; project_id?: number } = {},
  ) {
    return f.client.CompareAndSetTicket(
      {
        project_id: options.project_id ?? project,
        id,
        expected_json: JSON.stringify(expected),
        set_json: JSON.stringify(set),
        force: options.force ?? false,
        ...(options.position_token === undefined ? {} : { position_token: options.position_token }),
      },
      context,
    );
  }

  const get = async (id: number) => ticketOf(await f.client.GetTicket({ project_id: project, id }, human()));
  const board = () => f.client.GetBoard({ project_id: project, lane_limit: 500 }, human());
  const create = (title: string, extra: Partial<ticket.CreateTicketRequest> = {}) =>
    f.client.CreateTicket(
      { project_id: project, ticket_type_id: f.demo.types.task.id, title, custom_fields_json: '', ...extra },
      human(),
    );
  const move = (id: number, status: string, extra: Partial<ticket.MoveTicketRequest> = {}) =>
    f.client.MoveTicket({ project_id: project, id, status, ...extra }, human());
  const laneIds = async (status: string) =>
    ticketsOf((await board()).lanes.find((lane) => lane.status === status)).map((t) => t.id);

  /** GetTicket of `id` and GetBoard, with `id` unversioned wherever it appears. */
  async function snapshot(id: number) {
    const lanes = (await board()).lanes.map(({ tickets_json: _json, ...lane }) => ({
      ...lane,
      tickets: ticketsOf({ tickets_json: _json }).map((t) => (t.id === id ? unversioned(t) : shown(t))),
    }));
    return { ticket: unversioned(await get(id)), lanes };
  }

  async function written(operation: () => Promise<unknown>): Promise<OutboxRow[]> {
    const mark = await outboxMark(f.sql);
    await operation();
    return outboxSince(f.sql, mark);
  }

  before(async () => {
    f = await startTicketFixture();
    project = f.demo.platform.id;
    aiUserId = f.demo.users.agent.id;
    scopes = [...ROLE_SCOPES.agent];
  });
  after(() => f.stop());

  describe('exact revert (property)', () => {
    const rng = seededRandom(0x7ab15);
    const assignees = () => [null, f.demo.users.agent.id, f.demo.users.lead.id, f.demo.users.admin.id];

    /** Random tickets in every lane, in random order, some of them merged already. */
    async function seedBoard(count: number): Promise<void> {
      for (let index = 0; index < count; index++) {
        const assignee = rng.pick(assignees());
        const created = await create(`ticket ${index}`, {
          priority: rng.pick(PRIORITIES),
          ...(assignee === null ? {} : { assigned_to: assignee }),
          tags: rng.subset(TAG_POOL, rng.int(0, 3)),
        });
        const status = rng.pick(LANES);
        if (status === 'triage') continue;
        const peers = await laneIds(status);
        const placeAfter = peers.length > 0 && rng.chance(0.5) ? { after_id: rng.pick(peers) } : {};
        const resolution =
          CLOSED.has(status) && rng.chance(0.7) ? { resolution_type: rng.pick(RESOLUTIONS) } : {};
        await move(created.id, status, { ...placeAfter, ...resolution });
      }
      // Two tickets merged by a person (they stay merged: neither source nor target of an action).
      const open = (await board()).lanes.filter((lane) => !lane.is_closed).flatMap((lane) => ticketsOf(lane));
      for (let index = 0; index < 2; index++) {
        const [source, target] = [open[index * 2]!, open[index * 2 + 1]!];
        await f.client.MergeTicket({ project_id: project, id: source.id, target_id: target.id }, human());
      }
    }

    /** The live tickets, excluding merged ones and the targets of a merge. */
    async function actionable(): Promise<Ticket[]> {
      const all = (await board()).lanes.flatMap((lane) => ticketsOf(lane));
      const targets = new Set(all.map((t) => t.merged_into_id).filter((id) => id !== null));
      return all.filter((t) => t.merged_into_id === null && !targets.has(t.id));
    }

    type Action = 'priority' | 'assign' | 'tags' | 'move' | 'merge';

    /** Acts on `subject` as the assistant would, reverts, and returns what the action was. */
    async function actAndRevert(actionId: number, subject: Ticket, kind: Action, open: Ticket[]) {
      const id = subject.id;
      if (kind === 'priority') {
        const to = rng.pick(PRIORITIES.filter((p) => p !== subject.priority));
        await cas(ai(actionId), id, { priority: subject.priority }, { priority: to });
        await cas(reverter(actionId), id, { priority: to }, { priority: subject.priority });
      } else if (kind === 'assign') {
        const from = subject.assigned_to ?? null;
        const to = rng.pick(assignees().filter((a) => a !== from));
        await cas(ai(actionId), id, { assigned_to: from }, { assigned_to: to });
        await cas(reverter(actionId), id, { assigned_to: to }, { assigned_to: from });
      } else if (kind === 'tags') {
        const adding = rng.subset(TAG_POOL, rng.int(1, 3));
        const result = await cas(ai(actionId), id, { tags: subject.tags }, { tags_add: adding });
        const added = adding.filter((tag) => !subject.tags.includes(tag));
        await cas(reverter(actionId), id, { tags: ticketOf(result.ticket).tags }, { tags_remove: added });
      } else if (kind === 'move') {
        const to = rng.pick(LANES.filter((lane) => lane !== subject.status));
        const resolution =
          CLOSED.has(to) && rng.chance(0.7) ? { resolution_type: rng.pick(RESOLUTIONS) } : {};
        const expected = { status: subject.status, resolution_type: subject.resolution_type ?? null };
        const result = await cas(ai(actionId), id, expected, { status: to, ...resolution });
        const after = result.ticket!;
        await cas(
          reverter(actionId),
          id,
          { status: ticketOf(after).status, resolution_type: ticketOf(after).resolution_type ?? null },
          { status: subject.status, resolution_type: subject.resolution_type ?? null },
          { position_token: result.previous_position_token },
        );
      } else {
        const older = open.filter((t) => t.id < id);
        const target = rng.pick(older);
        const result = await cas(
          ai(actionId),
          id,
          { merged_into_id: null, status: subject.status },
          { merged_into_id: target.id },
        );
        expect(ticketOf(result.ticket)).to.deep.include({
          merged_into_id: target.id,
          resolution_type: 'duplicate',
        });
        await f.client.UnmergeTicket(
          {
            project_id: project,
            id,
            expected_merged_into_id: target.id,
            restore_status: subject.status,
            ...(subject.resolution_type === null ? {} : { restore_resolution_type: subject.resolution_type }),
            position_token: result.previous_position_token,
            force: false,
          },
          reverter(actionId),
        );
      }
    }

    it('act then revert leaves GetTicket and GetBoard as they were but version, updated_at, updated_by', async () => {
      await seedBoard(24);
      const tried = new Map<Action, number>();
      for (let actionId = 1; actionId <= 60; actionId++) {
        const candidates = await actionable();
        const open = candidates.filter((t) => !CLOSED.has(t.status));
        const subject = rng.pick(candidates);
        const kinds: Action[] = ['priority', 'assign', 'tags', 'move'];
        if (open.some((t) => t.id < subject.id)) kinds.push('merge');
        const kind = rng.pick(kinds);
        tried.set(kind, (tried.get(kind) ?? 0) + 1);

        const before = await snapshot(subject.id);
        await actAndRevert(actionId, subject, kind, open);
        const after = await snapshot(subject.id);
        expect(after, `action ${actionId}: ${kind} on ${subject.id}`).to.deep.equal(before);
        expect((await get(subject.id)).version).to.equal(subject.version + 2);

        // A person reorders some lane between actions, so tokens meet lanes that changed before them.
        if (rng.chance(0.5)) {
          const mover = rng.pick(await actionable());
          const peers = (await laneIds(mover.status)).filter((peer) => peer !== mover.id);
          if (peers.length > 0) await move(mover.id, mover.status, { before_id: rng.pick(peers) });
        }
      }
      // Every kind of action was exercised several times.
      for (const kind of ['priority', 'assign', 'tags', 'move', 'merge'] as const)
        expect(tried.get(kind) ?? 0, kind).to.be.at.least(5);
    });
  });

  describe('conflicts and force', () => {
    it('refuses a revert when a person changed the touched field since, and writes nothing', async () => {
      const t = await create('conflict', { priority: 'medium' });
      await cas(ai(101), t.id, { priority: 'medium' }, { priority: 'high' });
      await f.client.UpdateTicket({ project_id: project, id: t.id, priority: 'critical' }, human());
      const edited = await get(t.id);
      expect(
        await refusalOf(cas(reverter(101), t.id, { priority: 'high' }, { priority: 'medium' })),
      ).to.deep.equal({
        kind: 'conflict',
        message: 'Ticket was changed after this action',
        validation_errors: { priority: ['is critical, expected high'] },
      });
      expect(await get(t.id)).to.deep.equal(edited);
    });

    it('names every touched field that changed (status and resolution_type after a move)', async () => {
      const t = await create('moved');
      const acted = await cas(
        ai(102),
        t.id,
        { status: 'triage' },
        { status: 'done', resolution_type: 'resolved' },
      );
      await move(t.id, 'todo');
      const edited = await get(t.id);
      const refused = await refusalOf(
        cas(
          reverter(102),
          t.id,
          { status: 'done', resolution_type: 'resolved' },
          { status: 'triage', resolution_type: null },
          { position_token: acted.previous_position_token },
        ),
      );
      expect(refused).to.deep.equal({
        kind: 'conflict',
        message: 'Ticket was changed after this action',
        validation_errors: {
          status: ['is todo, expected done'],
          resolution_type: ['is null, expected resolved'],
        },
      });
      expect(await get(t.id)).to.deep.equal(edited);
    });

    it('checks the action itself too: tags as a set, assigned_to null as unassigned', async () => {
      const t = await create('tags', { tags: ['b', 'a'] });
      // The same set in another order and case matches; an unassigned ticket matches null and 0.
      await cas(ai(103), t.id, { tags: ['A', 'b'], assigned_to: null }, { tags_add: ['c'] });
      await cas(ai(104), t.id, { assigned_to: 0 }, { priority: 'low' });
      expect(await refusalOf(cas(ai(105), t.id, { tags: ['a', 'b'] }, { priority: 'high' }))).to.deep.equal({
        kind: 'conflict',
        message: 'Ticket was changed after this action',
        validation_errors: { tags: ['is [a, b, c], expected [a, b]'] },
      });
      expect((await get(t.id)).priority).to.equal('low');
    });

    it("keeps a person's edit of an untouched field through the revert", async () => {
      const t = await create('untouched', { priority: 'low' });
      await cas(ai(106), t.id, { priority: 'low' }, { priority: 'high' });
      await f.client.UpdateTicket(
        {
          project_id: project,
          id: t.id,
          title: 'renamed by a person',
          assigned_to: { value: f.demo.users.lead.id },
          tags: { values: ['kept'] },
        },
        human(),
      );
      const reverted = await cas(reverter(106), t.id, { priority: 'high' }, { priority: 'low' });
      expect(ticketOf(reverted.ticket)).to.deep.include({
        priority: 'low',
        title: 'renamed by a person',
        assigned_to: f.demo.users.lead.id,
        tags: ['kept'],
        updated_by: f.demo.users.lead.id,
      });
    });

    it('force writes anyway, as a new version', async () => {
      const t = await create('forced', { priority: 'medium' });
      await cas(ai(107), t.id, { priority: 'medium' }, { priority: 'high' });
      await f.client.UpdateTicket({ project_id: project, id: t.id, priority: 'critical' }, human());
      const edited = await get(t.id);
      const forced = await cas(
        reverter(107),
        t.id,
        { priority: 'high' },
        { priority: 'medium' },
        { force: true },
      );
      expect(ticketOf(forced.ticket)).to.deep.include({ priority: 'medium', version: edited.version + 1 });
    });

    it('refuses an unmerge when the ticket left its target or its merged status, unless forced', async () => {
      const [target, source] = [await create('target'), await create('source')];
      const merged = await cas(ai(108), source.id, { merged_into_id: null }, { merged_into_id: target.id });
      await move(source.id, 'wont_do');
      const edited = await get(source.id);
      const unmerge = (expected: number, force: boolean) =>
        f.client.UnmergeTicket(
          {
            project_id: project,
            id: source.id,
            expected_merged_into_id: expected,
            restore_status: 'triage',
            position_token: merged.previous_position_token,
            force,
          },
          reverter(108),
        );
      expect(await refusalOf(unmerge(target.id, false))).to.deep.equal({
        kind: 'conflict',
        message: 'Ticket was changed after this action',
        validation_errors: { status: ['is wont_do, expected done'] },
      });
      expect(await refusalOf(unmerge(target.id + 1000, false))).to.deep.equal({
        kind: 'conflict',
        message: 'Ticket was changed after this action',
        validation_errors: {
          merged_into_id: [`is ${target.id}, expected ${target.id + 1000}`],
          status: ['is wont_do, expected done'],
        },
      });
      expect(await get(source.id)).to.deep.equal(edited);
      const forced = await unmerge(target.id, true);
      expect(ticketOf(forced.ticket)).to.deep.include({ status: 'triage', version: edited.version + 1 });
      expect(ticketOf(forced.ticket).merged_into_id).to.equal(null);
      expect(ticketOf(forced.ticket).resolution_type).to.equal(null);
      expect(await laneIds('triage')).to.include(source.id);
    });
  });

  describe('position tokens', () => {
    /** Four new tickets at the end of lane `status`, in order (t is the one acted on). */
    async function lane(status: string) {
      const [a, t, b, c] = [await create('a'), await create('t'), await create('b'), await create('c')];
      for (const id of [a.id, t.id, b.id, c.id]) await move(id, status);
      const ids = [a.id, t.id, b.id, c.id];
      /** The order of these four in the lane (other tests' tickets left out). */
      const order = async () => (await laneIds(status)).filter((id) => ids.includes(id));
      return { a: a.id, t: t.id, b: b.id, c: c.id, order };
    }
    const rankOf = async (id: number) =>
      (await f.sql.query<{ r: string }>('SELECT lane_rank AS r FROM tickets WHERE id = $1', [id])).rows[0]!.r;
    /** Gives ticket `id` the exact rank `rank` (nothing the service does makes this; a token must survive it). */
    const takeRank = (id: number, rank: string) =>
      f.sql.query('UPDATE tickets SET lane_rank = $2 WHERE id = $1', [id, rank]);
    const moveBack = (actionId: number, t: number, status: string, token: string) =>
      cas(reverter(actionId), t, { status: 'triage' }, { status }, { position_token: token });

    it('restores the exact rank when it is free, even after the neighbours moved', async () => {
      const { a, t, b, c, order } = await lane('in_progress');
      const rank = await rankOf(t);
      const acted = await cas(ai(201), t, { status: 'in_progress' }, { status: 'triage' });
      await move(a, 'done');
      await move(c, 'in_progress', { before_id: b });
      await moveBack(201, t, 'in_progress', acted.previous_position_token);
      expect(await rankOf(t)).to.equal(rank);
      expect((await order()).indexOf(t)).to.be.below((await order()).indexOf(b));
    });

    it('when another ticket holds the rank: directly after the previous neighbour', async () => {
      const { a, t, b, c, order } = await lane('in_review');
      const acted = await cas(ai(202), t, { status: 'in_review' }, { status: 'triage' });
      await takeRank(c, tokenRank(acted.previous_position_token));
      expect(await order()).to.deep.equal([a, c, b]);
      await moveBack(202, t, 'in_review', acted.previous_position_token);
      expect(await order()).to.deep.equal([a, t, c, b]);
    });

    it('when the rank is held and the previous neighbour left: directly before the next one', async () => {
      const { a, t, b, c, order } = await lane('todo');
      const acted = await cas(ai(203), t, { status: 'todo' }, { status: 'triage' });
      await move(a, 'in_review');
      await takeRank(c, tokenRank(acted.previous_position_token));
      expect(await order()).to.deep.equal([c, b]);
      await moveBack(203, t, 'todo', acted.previous_position_token);
      expect(await order()).to.deep.equal([c, t, b]);
    });

    it('when the rank is held and both neighbours left: directly after the holder', async () => {
      const { a, t, b, c, order } = await lane('wont_do');
      const acted = await cas(ai(204), t, { status: 'wont_do' }, { status: 'triage' });
      await move(a, 'done');
      await move(b, 'done');
      await takeRank(c, tokenRank(acted.previous_position_token));
      await moveBack(204, t, 'wont_do', acted.previous_position_token);
      expect(await order()).to.deep.equal([c, t]);
    });

    it('refuses a token that is not one, or is for another lane (422, nothing written)', async () => {
      const t = await create('token');
      const moved = await cas(ai(205), t.id, {}, { status: 'todo' });
      const bad = await refusalOf(
        cas(ai(206), t.id, {}, { status: 'todo' }, { position_token: 'bm90IGEgdG9rZW4' }),
      );
      expect(bad).to.deep.equal({
        kind: 'validation_failed',
        message: 'Validation failed',
        validation_errors: { position_token: ['Invalid position token'] },
      });
      const other = await refusalOf(
        cas(ai(206), t.id, {}, { status: 'in_review' }, { position_token: moved.previous_position_token }),
      );
      expect(other).to.deep.equal({
        kind: 'validation_failed',
        message: 'Validation failed',
        validation_errors: { position_token: ['The position token is for the triage lane, not in_review'] },
      });
      expect((await get(t.id)).version).to.equal(moved.ticket!.version);
    });
  });

  describe('events', () => {
    const aiActor = (id: number): EventActor => ({
      kind: 'ai',
      user_id: aiUserId,
      api_key_id: null,
      via: { type: 'ai_action', id },
    });

    it('carry the assistant with its action, and the reverting person with the action they revert', async () => {
      const t = await create('events', { priority: 'low' });
      const acted = await written(() =>
        cas(ai(301), t.id, { priority: 'low' }, { priority: 'high', assigned_to: aiUserId }),
      );
      expect(acted.map((row) => row.event_type)).to.deep.equal(['ticket.updated', 'ticket.assigned']);
      for (const row of acted) {
        expect(row.payload.actor).to.deep.equal(aiActor(301));
        expect(row.payload.changes).to.deep.equal({
          priority: { from: 'low', to: 'high' },
          assigned_to: { from: null, to: aiUserId },
        });
        expect(row.payload.data).to.deep.include({ updated_by: aiUserId, source_type: 'web' });
      }
      const reverted = await written(() =>
        cas(
          reverter(301),
          t.id,
          { priority: 'high', assigned_to: aiUserId },
          { priority: 'low', assigned_to: null },
        ),
      );
      expect(reverted.map((row) => row.event_type)).to.deep.equal(['ticket.updated', 'ticket.assigned']);
      for (const row of reverted) {
        expect(row.payload.actor).to.deep.equal({
          kind: 'user',
          user_id: f.demo.users.lead.id,
          api_key_id: null,
          via: { type: 'ai_revert', id: 301 },
        });
        expect(row.payload.changes).to.deep.equal({
          priority: { from: 'high', to: 'low' },
          assigned_to: { from: aiUserId, to: null },
        });
      }
    });

    it('a merge writes ticket.merged; an unmerge ticket.updated and ticket.status_changed, not touching the target', async () => {
      const [target, source] = [await create('target'), await create('source')];
      const merged = await written(() => cas(ai(302), source.id, {}, { merged_into_id: target.id }));
      expect(merged.map((row) => row.event_type)).to.deep.equal([
        'ticket.updated',
        'ticket.status_changed',
        'ticket.merged',
      ]);
      expect(merged[0]!.payload.actor).to.deep.equal(aiActor(302));
      const unmerged = await written(() =>
        f.client.UnmergeTicket(
          {
            project_id: project,
            id: source.id,
            expected_merged_into_id: target.id,
            restore_status: 'triage',
            force: false,
          },
          reverter(302),
        ),
      );
      expect(unmerged.map((row) => row.event_type)).to.deep.equal([
        'ticket.updated',
        'ticket.status_changed',
      ]);
      expect(unmerged[0]!.payload.changes).to.deep.equal({
        status: { from: 'done', to: 'triage' },
        resolution_type: { from: 'duplicate', to: null },
        merged_into_id: { from: target.id, to: null },
      });
      expect((await get(target.id)).version).to.equal(1);
    });
  });

  describe('refusals', () => {
    it('validates values as UpdateTicket does, and refuses unknown fields and an empty set (422)', async () => {
      const t = await create('refusals');
      expect(
        await refusalOf(
          cas(
            ai(401),
            t.id,
            { priority: 5, colour: 'red' },
            { status: 'nope', priority: 'urgent', tags: 'x', size: 1 },
          ),
        ),
      ).to.deep.equal({
        kind: 'validation_failed',
        message: 'Validation failed',
        validation_errors: {
          'expected.priority': ['must be a string'],
          'expected.colour': [
            'Unknown field: must be one of priority, assigned_to, status, resolution_type, tags, merged_into_id',
          ],
          status: [
            "Status must be one of the project's statuses: triage, todo, in_progress, in_review, done, wont_do",
          ],
          priority: ['Priority must be one of low, medium, high, critical'],
          tags: ['tags must be an array of strings'],
          size: [
            'Unknown field: must be one of priority, assigned_to, status, resolution_type, tags, merged_into_id, tags_add, tags_remove',
          ],
        },
      });
      expect((await refusalOf(cas(ai(401), t.id, {}, {}))).validation_errors).to.deep.equal({
        body: ['At least one field to update is required'],
      });
      expect(
        (await refusalOf(cas(ai(401), t.id, {}, { resolution_type: 'resolved' }))).validation_errors,
      ).to.deep.equal({
        resolution_type: ['resolution_type is only allowed when moving to a closed status'],
      });
      expect(
        (await refusalOf(cas(ai(401), t.id, {}, { merged_into_id: t.id }))).validation_errors,
      ).to.deep.equal({
        merged_into_id: ['A ticket cannot be merged into itself'],
      });
      expect(
        (await refusalOf(cas(ai(401), t.id, {}, { merged_into_id: null }))).validation_errors,
      ).to.deep.equal({
        merged_into_id: ['merged_into_id can only be cleared by UnmergeTicket'],
      });
      expect(
        (await refusalOf(cas(ai(401), t.id, {}, { assigned_to: 999_999 }))).validation_errors,
      ).to.deep.equal({
        assigned_to: ['User 999999 does not exist'],
      });
      expect((await get(t.id)).version).to.equal(1);
    });

    it('needs a principal of agent or above, and a ticket of the project (404 otherwise)', async () => {
      const t = await create('scoped');
      expect((await refusalOf(cas({}, t.id, {}, { priority: 'low' }))).kind).to.equal('unauthenticated');
      const viewer = f.as(f.demo.users.viewer, 'session');
      expect(await refusalOf(cas(viewer, t.id, {}, { priority: 'low' }))).to.deep.equal({
        kind: 'permission_denied',
        message: 'This operation requires the agent role or above',
      });
      expect(
        await refusalOf(cas(ai(402), t.id, {}, { priority: 'low' }, { project_id: f.demo.support.id })),
      ).to.deep.equal({ kind: 'not_found', message: 'Ticket not found' });
      expect(
        await refusalOf(
          f.client.UnmergeTicket(
            {
              project_id: f.demo.support.id,
              id: t.id,
              expected_merged_into_id: 1,
              restore_status: 'open',
              force: false,
            },
            ai(402),
          ),
        ),
      ).to.deep.equal({ kind: 'not_found', message: 'Ticket not found' });
      expect((await get(t.id)).version).to.equal(1);
    });
  });
});

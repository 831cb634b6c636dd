import { expect } from 'chai';
import { type ticket } from '@tix/protos';
import { refusalOf, startTicketFixture, type TicketFixture, ticketOf, ticketsOf } from './support.js';

/** The seeded lanes after triage, whole (two tickets or fewer each): what every board shows of them. */
const AFTER_TRIAGE = [
  ['todo', 2, ['todo 1', 'todo 2']],
  ['in_progress', 0, []],
  ['in_review', 0, []],
  ['done', 1, ['done 1']],
  ['wont_do', 0, []],
];

describe('tickets: GetBoard', () => {
  let f: TicketFixture;
  let platform: number;
  const board = (request: Omit<ticket.GetBoardRequest, 'project_id'> = {}, projectId = platform) =>
    f.client.GetBoard({ project_id: projectId, ...request }, f.agent);
  const summary = (b: ticket.Board__Output) =>
    b.lanes.map((lane) => [lane.status, lane.count, ticketsOf(lane).map((t) => t.title)]);

  before(async () => {
    f = await startTicketFixture();
    platform = f.demo.platform.id;
    const create = (title: string, priority: string, assigned_to?: number) =>
      f.client.CreateTicket(
        {
          project_id: platform,
          ticket_type_id: f.demo.types.task.id,
          title,
          priority,
          assigned_to,
          custom_fields_json: '',
        },
        f.agent,
      );
    const agent = f.demo.users.agent.id;
    for (let index = 1; index <= 5; index++)
      await create(`triage ${index}`, index % 2 ? 'high' : 'low', agent);
    const todo = [await create('todo 1', 'high'), await create('todo 2', 'low', agent)];
    for (const t of todo)
      await f.client.MoveTicket({ project_id: platform, id: t.id, status: 'todo' }, f.agent);
    const done = await create('done 1', 'critical');
    await f.client.MoveTicket({ project_id: platform, id: done.id, status: 'done' }, f.agent);
  });
  after(() => f.stop());

  it('has one lane per status in workflow order, empty lanes included, with labels and exact counts', async () => {
    const b = await board();
    expect(b.lanes.map((lane) => [lane.status, lane.label, lane.is_closed])).to.deep.equal([
      ['triage', 'Triage', false],
      ['todo', 'To do', false],
      ['in_progress', 'In progress', false],
      ['in_review', 'In review', false],
      ['done', 'Done', true],
      ['wont_do', "Won't do", true],
    ]);
    expect(summary(b)).to.deep.equal([
      ['triage', 5, ['triage 1', 'triage 2', 'triage 3', 'triage 4', 'triage 5']],
      ...AFTER_TRIAGE,
    ]);
    expect(b.total).to.equal(8);
    const first = ticketsOf(b.lanes[0])[0]!;
    expect(first).to.deep.equal(
      ticketOf(await f.client.GetTicket({ project_id: platform, id: first.id }, f.agent)),
    );
  });

  it('caps the tickets per lane with lane_limit while counts stay exact', async () => {
    const b = await board({ lane_limit: 2 });
    expect(summary(b)).to.deep.equal([['triage', 5, ['triage 1', 'triage 2']], ...AFTER_TRIAGE]);
    expect(b.total).to.equal(8);
  });

  it('follows lane order after placements', async () => {
    const lane = ticketsOf((await board()).lanes[0]);
    await f.client.MoveTicket(
      { project_id: platform, id: lane[4]!.id, status: 'triage', before_id: lane[0]!.id },
      f.agent,
    );
    expect(ticketsOf((await board({ lane_limit: 3 })).lanes[0]).map((t) => t.title)).to.deep.equal([
      'triage 5',
      'triage 1',
      'triage 2',
    ]);
  });

  it('filters lanes and counts by priority and assignee', async () => {
    const agent = f.demo.users.agent.id;
    const high = await board({ priority: 'high' });
    expect(high.lanes.map((lane) => lane.count)).to.deep.equal([3, 1, 0, 0, 0, 0]);
    expect(high.total).to.equal(4);
    const mine = await board({ assignee: agent, priority: 'low' });
    expect(summary(mine).filter(([, count]) => count)).to.deep.equal([
      ['triage', 2, ['triage 2', 'triage 4']],
      ['todo', 1, ['todo 2']],
    ]);
    expect(mine.total).to.equal(3);
  });

  it('an empty project has every lane, all zero; a bad priority is 400', async () => {
    const created = await f.lookup.CreateProject({ name: 'Empty', slug: 'empty', prefix: 'EMP' });
    const empty = await board({}, created.id);
    expect(summary(empty)).to.deep.equal([
      ['open', 0, []],
      ['work_in_progress', 0, []],
      ['waiting', 0, []],
      ['closed', 0, []],
    ]);
    expect(empty.total).to.equal(0);
    expect(await refusalOf(board({ priority: 'urgent' }))).to.deep.include({
      kind: 'bad_request',
      message: 'Invalid priority',
    });
  });

  it('answers each lane as one JSON array of its tickets, each byte for byte as GetTicket answers it', async () => {
    const json = await board({ lane_limit: 3 });
    for (const lane of json.lanes) {
      const single = await Promise.all(
        ticketsOf(lane).map((t) => f.client.GetTicket({ project_id: platform, id: t.id }, f.agent)),
      );
      expect(lane.tickets_json.toString('utf8')).to.equal(
        `[${single.map((answer) => answer.json.toString('utf8')).join(',')}]`,
      );
    }
  });
});

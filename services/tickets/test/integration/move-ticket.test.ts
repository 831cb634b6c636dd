import { expect } from 'chai';
import { type ticket } from '@tix/protos';
import { refusalOf, startTicketFixture, type TicketFixture, ticketOf, ticketsOf } from './support.js';

describe('tickets: MoveTicket (status, lane placement, resolution)', () => {
  let f: TicketFixture;
  let project: number;

  const create = (title: string) =>
    f.client.CreateTicket(
      { project_id: project, ticket_type_id: type, title, custom_fields_json: '' },
      f.agent,
    );
  const move = (request: Omit<ticket.MoveTicketRequest, 'project_id'>) =>
    f.client.MoveTicket({ project_id: project, ...request }, f.agent);
  const lane = async (status: string) => {
    const board = await f.client.GetBoard({ project_id: project, lane_limit: 500 }, f.agent);
    return ticketsOf(board.lanes.find((l) => l.status === status)).map((t) => t.title);
  };
  /** Creates tickets with these titles and moves them, in order, to the end of `status`. */
  const fill = async (status: string, titles: string[]) => {
    const made: Record<string, ticket.ApiTicket__Output> = {};
    for (const title of titles) made[title] = await move({ id: (await create(title)).id, status });
    return made;
  };

  before(async () => {
    f = await startTicketFixture();
  });
  after(() => f.stop());

  // Each test works in a project of its own (default workflow), so lanes start empty.
  let type: number;
  beforeEach(async () => {
    const slug = `moves-${Math.random().toString(36).slice(2, 10)}`;
    const created = await f.lookup.CreateProject({
      name: slug,
      slug,
      prefix: 'MV' + Math.floor(Math.random() * 1e6),
    });
    project = created.id;
    type = (await f.lookup.CreateTicketType({ project_id: project, name: 'Task', slug: 'task' })).id;
  });

  it('moves to another status at the end of that lane, version +1, status label', async () => {
    const t = await fill('waiting', ['A', 'B']);
    const c = await create('C');
    const moved = await move({ id: c.id, status: 'waiting' });
    expect(ticketOf(moved)).to.deep.include({ status: 'waiting', status_label: 'Waiting', version: 2 });
    expect(await lane('waiting')).to.deep.equal(['A', 'B', 'C']);
    expect(t.A!.version).to.equal(2);
  });

  it('places directly after after_id in the target lane', async () => {
    const t = await fill('waiting', ['A', 'B', 'C']);
    const d = await create('D');
    await move({ id: d.id, status: 'waiting', after_id: t.A!.id });
    expect(await lane('waiting')).to.deep.equal(['A', 'D', 'B', 'C']);
    await move({ id: d.id, status: 'waiting', after_id: t.C!.id });
    expect(await lane('waiting')).to.deep.equal(['A', 'B', 'C', 'D']);
  });

  it('places directly before before_id, also at the head of the lane', async () => {
    const t = await fill('waiting', ['A', 'B', 'C']);
    const d = await create('D');
    await move({ id: d.id, status: 'waiting', before_id: t.A!.id });
    expect(await lane('waiting')).to.deep.equal(['D', 'A', 'B', 'C']);
    await move({ id: d.id, status: 'waiting', before_id: t.C!.id });
    expect(await lane('waiting')).to.deep.equal(['A', 'B', 'D', 'C']);
  });

  it('with both, places between two neighbours; the moving ticket itself does not count as one', async () => {
    const t = await fill('waiting', ['A', 'B', 'C']);
    await move({ id: t.C!.id, status: 'waiting', after_id: t.A!.id, before_id: t.B!.id });
    expect(await lane('waiting')).to.deep.equal(['A', 'C', 'B']);
    // B follows C now, and A..B are neighbours once C (the ticket being moved) is set aside.
    await move({ id: t.C!.id, status: 'waiting', after_id: t.A!.id, before_id: t.B!.id });
    expect(await lane('waiting')).to.deep.equal(['A', 'C', 'B']);
  });

  it('reorders within the same lane; a move without placement keeps the place', async () => {
    const t = await fill('waiting', ['A', 'B', 'C']);
    await move({ id: t.C!.id, status: 'waiting', before_id: t.A!.id });
    expect(await lane('waiting')).to.deep.equal(['C', 'A', 'B']);
    const again = await move({ id: t.C!.id, status: 'waiting' });
    expect(again.version).to.equal(4);
    expect(await lane('waiting')).to.deep.equal(['C', 'A', 'B']);
  });

  it('writes one row per move: the neighbours keep their positions and versions', async () => {
    const t = await fill('waiting', ['A', 'B', 'C']);
    const ranks = async () =>
      (
        await f.sql.query<{ id: number; lane_rank: string; version: number }>(
          'SELECT id, lane_rank, version FROM tickets WHERE id = ANY($1) ORDER BY id',
          [[t.A!.id, t.C!.id]],
        )
      ).rows;
    const before = await ranks();
    await move({ id: t.B!.id, status: 'waiting', after_id: t.C!.id });
    expect(await ranks()).to.deep.equal(before);
  });

  it('refuses anchors that are not in the target lane, deleted, unknown, or the ticket itself', async () => {
    const t = await fill('waiting', ['A', 'B']);
    const open = await create('Open one');
    const gone = await fill('waiting', ['Gone']);
    await f.client.DeleteTicket({ project_id: project, id: gone.Gone!.id }, f.agent);
    const cases: [Omit<ticket.MoveTicketRequest, 'project_id'>, Record<string, string[]>][] = [
      [
        { id: t.A!.id, status: 'waiting', after_id: open.id },
        { after_id: [`Ticket ${open.id} is not in the waiting lane`] },
      ],
      [
        { id: t.A!.id, status: 'waiting', before_id: gone.Gone!.id },
        { before_id: [`Ticket ${gone.Gone!.id} is not in the waiting lane`] },
      ],
      [
        { id: t.A!.id, status: 'waiting', after_id: 999_999 },
        { after_id: ['Ticket 999999 is not in the waiting lane'] },
      ],
      [
        { id: t.A!.id, status: 'waiting', after_id: t.A!.id },
        { after_id: ['A ticket cannot be placed relative to itself'] },
      ],
      // The anchor must be in the TARGET lane, not the ticket's current one.
      [
        { id: open.id, status: 'closed', after_id: t.A!.id },
        { after_id: [`Ticket ${t.A!.id} is not in the closed lane`] },
      ],
    ];
    for (const [request, errors] of cases)
      expect(await refusalOf(move(request)), JSON.stringify(request)).to.deep.equal({
        kind: 'validation_failed',
        message: 'Validation failed',
        validation_errors: errors,
      });
  });

  it('refuses after_id and before_id that are not neighbours, or in the wrong order', async () => {
    const t = await fill('waiting', ['A', 'B', 'C']);
    const d = await create('D');
    for (const [after_id, before_id] of [
      [t.A!.id, t.C!.id],
      [t.B!.id, t.A!.id],
      [t.A!.id, t.A!.id],
    ] as const)
      expect(await refusalOf(move({ id: d.id, status: 'waiting', after_id, before_id }))).to.deep.equal({
        kind: 'validation_failed',
        message: 'Validation failed',
        validation_errors: {
          before_id: [`Ticket ${before_id} does not directly follow ticket ${after_id} in the lane`],
        },
      });
    expect(await lane('waiting')).to.deep.equal(['A', 'B', 'C']);
  });

  it('accepts resolution_type only for a closed target, stores it, and clears it when reopened', async () => {
    const t = await create('T');
    expect(await refusalOf(move({ id: t.id, status: 'waiting', resolution_type: 'resolved' }))).to.deep.equal(
      {
        kind: 'validation_failed',
        message: 'Validation failed',
        validation_errors: {
          resolution_type: ['resolution_type is only allowed when moving to a closed status'],
        },
      },
    );
    expect(await refusalOf(move({ id: t.id, status: 'closed', resolution_type: 'fixed' }))).to.deep.include({
      validation_errors: {
        resolution_type: ['resolution_type must be one of resolved, wont_fix, duplicate'],
      },
    });
    const closed = await move({ id: t.id, status: 'closed', resolution_type: 'wont_fix' });
    expect(ticketOf(closed)).to.deep.include({
      status: 'closed',
      resolution_type: 'wont_fix',
      version: 2,
    });
    const reordered = await move({ id: t.id, status: 'closed' });
    expect(ticketOf(reordered).resolution_type).to.equal('wont_fix');
    const reopened = await move({ id: t.id, status: 'open' });
    expect(ticketOf(reopened)).to.deep.include({ status: 'open', resolution_type: null, version: 4 });
  });

  it('refuses an unknown status (422) and unknown or deleted tickets (404)', async () => {
    const t = await create('T');
    expect(await refusalOf(move({ id: t.id, status: 'triage' }))).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: {
        status: ["Status must be one of the project's statuses: open, work_in_progress, waiting, closed"],
      },
    });
    await f.client.DeleteTicket({ project_id: project, id: t.id }, f.agent);
    for (const id of [t.id, 999_999])
      expect(await refusalOf(move({ id, status: 'closed' }))).to.deep.equal({
        kind: 'not_found',
        message: 'Ticket not found',
      });
  });

  it('keeps a lane consistent under many simultaneous moves to its end', async () => {
    const made = await Promise.all(Array.from({ length: 20 }, (_, index) => create(`M${index}`)));
    const moved = await Promise.all(made.map((t) => move({ id: t.id, status: 'work_in_progress' })));
    expect(moved.every((t) => t.version === 2)).to.be.true;
    const titles = await lane('work_in_progress');
    expect(titles).to.have.length(20);
    expect(new Set(titles).size).to.equal(20);
  });

  it('simultaneous moves of one ticket all apply, one after another (PATCH has no 409)', async () => {
    const t = await create('T');
    const statuses = [
      'work_in_progress',
      'waiting',
      'closed',
      'open',
      'waiting',
      'closed',
      'work_in_progress',
      'open',
    ];
    const moved = await Promise.all(statuses.map((status) => move({ id: t.id, status })));
    expect(moved.map((m) => m.version).sort((a, b) => a - b)).to.deep.equal(
      statuses.map((_, index) => index + 2),
    );
    const final = await f.client.GetTicket({ project_id: project, id: t.id }, f.agent);
    expect(final.version).to.equal(statuses.length + 1);
    expect(ticketOf(final).status).to.equal(ticketOf(moved.find((m) => m.version === final.version)).status);
  });
});

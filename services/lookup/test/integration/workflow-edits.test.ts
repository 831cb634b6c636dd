/**
 * Editing a project and its workflow (UpdateProject, AddProjectStatus, UpdateProjectStatus,
 * RemoveProjectStatus): admin only, the rules of creation on the edited workflow, dense positions
 * under concurrent edits, project.updated in the same transaction, and removal asking a real ticket
 * service how many live tickets are in the status.
 */
import { expect } from 'chai';
import pg from 'pg';
import { createServiceClient, type OutgoingContext, type ServiceClient, type ServiceParts } from '@tix/kit';
import { freePort, startTestService, type TestService } from '@tix/kit/testing';
import type { lookup, Principal } from '@tix/protos';
// The ticket service as its own tests start it (a workspace sibling; lookup's tests only).
import { startTestTicketServer, type TestTicketServer } from '../../../tickets/src/testing.js';
import { lookupService } from '../../src/server.js';
import { newEventsReader, refusalOf } from './support.js';

function as(role: Principal['role'], userId = 1): OutgoingContext {
  return { principal: { kind: 'session', user_id: userId, role, scopes: [] } };
}

interface OutboxEvent {
  type: string;
  project_id?: number;
  data: Record<string, unknown>;
}

describe('lookup: editing projects and workflows', function () {
  this.timeout(60_000);
  let lookupServer: TestService<ServiceParts>;
  let ticketServer: TestTicketServer;
  let client: ServiceClient<'lookup'>;
  let tickets: ServiceClient<'tickets'>;
  let sql: pg.Pool;
  let admin: OutgoingContext;
  let adminId: number;
  let counter = 0;

  before(async () => {
    const lookupPort = await freePort();
    // Each calls the other: the ticket service's lookup client connects on first use.
    ticketServer = await startTestTicketServer({ lookupAddress: `127.0.0.1:${lookupPort}` });
    lookupServer = await startTestService(lookupService(), {
      label: 'lookup_workflow',
      config: { grpcPort: lookupPort, peers: { tickets: ticketServer.address } },
    });
    client = createServiceClient('lookup', lookupServer.address, { deadlineMs: 10_000 });
    tickets = createServiceClient('tickets', ticketServer.address, { deadlineMs: 10_000 });
    sql = new pg.Pool({ connectionString: lookupServer.databaseUrl, max: 2 });
    const user = await client.CreateUser({ name: 'Ada', email: 'ada@example.com', role: 'admin' });
    adminId = user.id;
    admin = as('admin', adminId);
  });
  after(async () => {
    client?.close();
    tickets?.close();
    await sql?.end();
    await lookupServer?.stop();
    await ticketServer?.stop();
  });

  /** A fresh project: open, review ("In review"), done (closed). */
  async function newProject(): Promise<lookup.Project__Output> {
    counter += 1;
    return client.CreateProject({
      name: `Flow ${counter}`,
      slug: `flow-${counter}`,
      prefix: `FL${counter}`,
      statuses: [
        { slug: 'open', label: 'Open' },
        { slug: 'review', label: 'In review' },
        { slug: 'done', label: 'Done', is_closed: true },
      ],
    });
  }

  const slugs = (project: lookup.Project__Output) => project.statuses.map((status) => status.slug);

  /** project.updated events written since the last call. */
  const newEvents = newEventsReader<OutboxEvent>(() => sql, 'project.updated');

  it('refuses every edit to a principal that is not an admin (403), before looking at the request', async () => {
    const project = await newProject();
    for (const role of ['viewer', 'agent', 'team_lead'] as const) {
      const caller = as(role);
      for (const call of [
        client.UpdateProject({ id: project.id, name: 'X' }, caller),
        client.AddProjectStatus({ project_id: project.id, status: { slug: 'qa', label: 'QA' } }, caller),
        client.UpdateProjectStatus({ project_id: 999_999, slug: 'open', label: 'X' }, caller),
        client.RemoveProjectStatus({ project_id: project.id, slug: 'review' }, caller),
      ]) {
        expect(await refusalOf(call)).to.deep.equal({
          kind: 'permission_denied',
          message: 'This operation requires the admin role',
        });
      }
    }
    await newEvents();
  });

  it('UpdateProject changes name and description, writes project.updated with what changed, and nothing for no change', async () => {
    const project = await newProject();
    await newEvents();
    const updated = await client.UpdateProject(
      { id: project.id, name: '  Renamed ', description: 'Hi' },
      admin,
    );
    expect(updated).to.deep.include({ name: 'Renamed', description: 'Hi', slug: project.slug });
    const [event, ...more] = await newEvents();
    expect(more).to.deep.equal([]);
    expect(event).to.deep.include({ type: 'project.updated', project_id: project.id });
    expect(event!.data).to.deep.equal({
      id: project.id,
      name: 'Renamed',
      slug: project.slug,
      prefix: project.prefix,
      description: 'Hi',
      statuses: updated.statuses,
      changed: ['name', 'description'],
      statuses_removed: [],
      actor_id: adminId,
    });
    // The CLI (no principal) may; the same values again are no change: no event.
    await client.UpdateProject({ id: project.id, name: 'Renamed' });
    expect(await newEvents()).to.deep.equal([]);
  });

  it('UpdateProject refuses an unknown project (404), nothing to change and bad values (422)', async () => {
    expect(await refusalOf(client.UpdateProject({ id: 999_999, name: 'X' }, admin))).to.deep.equal({
      kind: 'not_found',
      message: 'Project not found',
    });
    const project = await newProject();
    expect(await refusalOf(client.UpdateProject({ id: project.id }, admin))).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: { body: ['Give at least one field to change: name or description'] },
    });
    expect(
      await refusalOf(
        client.UpdateProject({ id: project.id, name: ' ', description: 'x'.repeat(2001) }, admin),
      ),
    ).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: {
        name: ['Name is required'],
        description: ['Description must be at most 2000 characters'],
      },
    });
  });

  it('AddProjectStatus inserts at a position (default last) and keeps positions dense', async () => {
    const project = await newProject();
    await newEvents();
    const last = await client.AddProjectStatus(
      { project_id: project.id, status: { slug: 'archived', label: 'Archived', is_closed: true } },
      admin,
    );
    expect(slugs(last)).to.deep.equal(['open', 'review', 'done', 'archived']);
    const inserted = await client.AddProjectStatus(
      { project_id: project.id, status: { slug: 'triage', label: ' Triage ' }, position: 1 },
      admin,
    );
    expect(inserted.statuses).to.deep.equal([
      { slug: 'open', label: 'Open', is_closed: false, position: 0 },
      { slug: 'triage', label: 'Triage', is_closed: false, position: 1 },
      { slug: 'review', label: 'In review', is_closed: false, position: 2 },
      { slug: 'done', label: 'Done', is_closed: true, position: 3 },
      { slug: 'archived', label: 'Archived', is_closed: true, position: 4 },
    ]);
    const events = await newEvents();
    expect(events.map((event) => event.data.changed)).to.deep.equal([['statuses'], ['statuses']]);
    expect((await client.ResolveProject({ id: project.id })).statuses).to.deep.equal(inserted.statuses);
  });

  it('AddProjectStatus refuses a taken, reserved or malformed slug, a bad label or position, and a closed first status', async () => {
    const project = await newProject();
    const add = (status: lookup.StatusSpec, position?: number) =>
      refusalOf(
        client.AddProjectStatus(
          { project_id: project.id, status, ...(position === undefined ? {} : { position }) },
          admin,
        ),
      );
    expect((await add({ slug: 'review', label: 'Again' })).validation_errors).to.deep.equal({
      slug: ['Status slug "review" is already used in this project'],
    });
    expect((await add({ slug: 'total', label: 'Total' })).validation_errors).to.deep.equal({
      slug: ['Status slug "total" is reserved'],
    });
    expect((await add({ slug: 'Bad Slug', label: '' }, 4)).validation_errors).to.deep.equal({
      slug: ['Status slug must be 1-64 lowercase letters, digits or underscores, starting with a letter'],
      label: ['Status label is required'],
      position: ['Position must be from 0 to 3'],
    });
    expect((await add({ slug: 'shut', label: 'Shut', is_closed: true }, 0)).validation_errors).to.deep.equal({
      position: ['The first status is where new tickets start, so it cannot be closed'],
    });
    expect(
      await refusalOf(
        client.AddProjectStatus({ project_id: 999_999, status: { slug: 'x', label: 'X' } }, admin),
      ),
    ).to.deep.include({ kind: 'not_found', message: 'Project not found' });
    expect(slugs(await client.ResolveProject({ id: project.id }))).to.deep.equal(['open', 'review', 'done']);
  });

  it('UpdateProjectStatus relabels, closes and moves a status; the others keep their order', async () => {
    const project = await newProject();
    const relabelled = await client.UpdateProjectStatus(
      { project_id: project.id, slug: 'review', label: 'Peer review' },
      admin,
    );
    expect(relabelled.statuses[1]).to.deep.equal({
      slug: 'review',
      label: 'Peer review',
      is_closed: false,
      position: 1,
    });
    const moved = await client.UpdateProjectStatus(
      { project_id: project.id, slug: 'done', position: 1 },
      admin,
    );
    expect(moved.statuses.map((s) => [s.slug, s.position])).to.deep.equal([
      ['open', 0],
      ['done', 1],
      ['review', 2],
    ]);
    const closed = await client.UpdateProjectStatus(
      { project_id: project.id, slug: 'review', is_closed: true, position: 1 },
      admin,
    );
    expect(closed.statuses.map((s) => [s.slug, s.is_closed, s.position])).to.deep.equal([
      ['open', false, 0],
      ['review', true, 1],
      ['done', true, 2],
    ]);
  });

  it('UpdateProjectStatus refuses an unknown status (404) and a workflow creation would refuse (422)', async () => {
    const project = await newProject();
    const update = (request: Omit<lookup.UpdateProjectStatusRequest, 'project_id'>) =>
      refusalOf(client.UpdateProjectStatus({ project_id: project.id, ...request }, admin));
    expect(await update({ slug: 'nope', label: 'X' })).to.deep.equal({
      kind: 'not_found',
      message: 'Status not found',
    });
    expect((await update({ slug: 'review' })).validation_errors).to.deep.equal({
      body: ['Give at least one field to change: label, is_closed or position'],
    });
    expect((await update({ slug: 'open', is_closed: true })).validation_errors).to.deep.equal({
      is_closed: ['The first status is where new tickets start, so it cannot be closed'],
    });
    expect((await update({ slug: 'done', is_closed: false })).validation_errors).to.deep.equal({
      is_closed: ['At least one status must be closed (where tickets are resolved)'],
    });
    expect((await update({ slug: 'done', position: 0 })).validation_errors).to.deep.equal({
      position: ['The first status is where new tickets start, so it cannot be closed'],
    });
    expect((await update({ slug: 'done', position: 3 })).validation_errors).to.deep.equal({
      position: ['Position must be from 0 to 2'],
    });
  });

  it('serialises concurrent edits of one workflow: every one applies, positions stay 0..n-1', async () => {
    const project = await newProject();
    const adds = Array.from({ length: 8 }, (_, n) =>
      client.AddProjectStatus(
        { project_id: project.id, status: { slug: `step_${n}`, label: `Step ${n}` }, position: 1 },
        admin,
      ),
    );
    const moves = [
      client.UpdateProjectStatus({ project_id: project.id, slug: 'review', position: 1 }, admin),
      client.UpdateProjectStatus({ project_id: project.id, slug: 'done', position: 2 }, admin),
    ];
    await Promise.all([...adds, ...moves]);
    const after = await client.ResolveProject({ id: project.id });
    expect(after.statuses).to.have.length(11);
    expect(after.statuses.map((s) => s.position)).to.deep.equal([...Array(11).keys()]);
    expect(after.statuses[0]!.slug).to.equal('open');
  });

  describe('RemoveProjectStatus', () => {
    let project: lookup.Project__Output;
    let typeId: number;

    beforeEach(async () => {
      project = await newProject();
      typeId = (await client.CreateTicketType({ project_id: project.id, name: 'Task', slug: 'task' })).id;
      await newEvents();
    });

    async function ticketInReview(): Promise<number> {
      const created = await tickets.CreateTicket(
        { project_id: project.id, ticket_type_id: typeId, title: 'Check this', custom_fields_json: '' },
        admin,
      );
      await tickets.MoveTicket({ project_id: project.id, id: created.id, status: 'review' }, admin);
      return created.id;
    }

    it('refuses with 409 naming the count and the status while live tickets are in it and no move_to is given', async () => {
      await ticketInReview();
      expect(
        await refusalOf(client.RemoveProjectStatus({ project_id: project.id, slug: 'review' }, admin)),
      ).to.deep.equal({
        kind: 'conflict',
        message: '1 ticket is in "In review"; choose a status to move them to (move_to)',
      });
      await ticketInReview();
      await ticketInReview();
      expect(
        (await refusalOf(client.RemoveProjectStatus({ project_id: project.id, slug: 'review' }, admin)))
          .message,
      ).to.equal('3 tickets are in "In review"; choose a status to move them to (move_to)');
      expect(slugs(await client.ResolveProject({ id: project.id }))).to.deep.equal([
        'open',
        'review',
        'done',
      ]);
      expect(await newEvents()).to.deep.equal([]);
    });

    it('with move_to removes it and says where its tickets go (project.updated statuses_removed)', async () => {
      await ticketInReview();
      const removed = await client.RemoveProjectStatus(
        { project_id: project.id, slug: 'review', move_to: 'done' },
        admin,
      );
      expect(removed.statuses).to.deep.equal([
        { slug: 'open', label: 'Open', is_closed: false, position: 0 },
        { slug: 'done', label: 'Done', is_closed: true, position: 1 },
      ]);
      const [event] = await newEvents();
      expect(event!.data).to.deep.include({
        changed: ['statuses'],
        statuses_removed: [{ slug: 'review', moved_to: 'done' }],
        actor_id: adminId,
      });
    });

    it('without live tickets needs no move_to: moved_to is null (soft-deleted ones go to the first status)', async () => {
      const id = await ticketInReview();
      await tickets.DeleteTicket({ project_id: project.id, id }, admin);
      await client.RemoveProjectStatus({ project_id: project.id, slug: 'review' }, admin);
      const [event] = await newEvents();
      expect(event!.data.statuses_removed).to.deep.equal([{ slug: 'review', moved_to: null }]);
    });

    it('refuses an unknown status (404), a bad move_to and a workflow creation would refuse (422)', async () => {
      expect(
        await refusalOf(client.RemoveProjectStatus({ project_id: project.id, slug: 'nope' }, admin)),
      ).to.deep.equal({
        kind: 'not_found',
        message: 'Status not found',
      });
      expect(
        await refusalOf(client.RemoveProjectStatus({ project_id: 999_999, slug: 'review' }, admin)),
      ).to.deep.include({ kind: 'not_found', message: 'Project not found' });
      for (const moveTo of ['review', 'nope']) {
        expect(
          (
            await refusalOf(
              client.RemoveProjectStatus({ project_id: project.id, slug: 'review', move_to: moveTo }, admin),
            )
          ).validation_errors,
        ).to.deep.equal({ move_to: ['move_to must be another status of the project: open, done'] });
      }
      expect(
        (
          await refusalOf(
            client.RemoveProjectStatus({ project_id: project.id, slug: 'done', move_to: 'open' }, admin),
          )
        ).validation_errors,
      ).to.deep.equal({ slug: ['At least one status must be closed (where tickets are resolved)'] });
      await client.RemoveProjectStatus({ project_id: project.id, slug: 'review' }, admin);
      expect(
        (
          await refusalOf(
            client.RemoveProjectStatus({ project_id: project.id, slug: 'open', move_to: 'done' }, admin),
          )
        ).validation_errors,
      ).to.deep.equal({ slug: ['The first status is where new tickets start, so it cannot be closed'] });
    });
  });
});

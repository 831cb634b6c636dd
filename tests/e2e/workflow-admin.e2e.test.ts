/**
 * Admins edit a project and its workflow on the session host, through the real fleet: rename, add,
 * relabel, reorder and close statuses (the board's lanes follow), and remove a status — refused with
 * the live ticket count without `move_to`, and with it the tickets land in the target lane once the
 * ticket service has heard lookup's project.updated. Agents and team leads are refused (403).
 */
import { expect } from 'chai';
import { eventually, expectError } from '@tix/kit/testing';
import {
  createProject,
  createTicketType,
  createUser,
  type ProjectFixture,
  type Role,
} from '../support/fixtures.js';
import type { ApiResponse } from '../support/http.js';
import { signIn, type BrowserSession } from '../support/session.js';

const PASSWORD = 'correct horse battery staple';

describe('the session host: admins edit projects and workflows', function () {
  this.timeout(60_000);
  let project: ProjectFixture;
  let inProject: string;
  let typeId: number;
  const as = {} as Record<Role, BrowserSession>;

  before(async () => {
    project = await createProject({ statuses: 'open:Open,review:In review,done:Done:closed' });
    inProject = `project=${project.slug}`;
    typeId = (await createTicketType(project.slug)).id;
    for (const role of ['agent', 'team_lead', 'admin'] as const) {
      const user = await createUser(role, { password: PASSWORD });
      as[role] = await signIn(user.email, PASSWORD);
    }
  });

  const statusPath = (slug: string) => `/projects/${project.id}/statuses/${slug}`;
  const slugsOf = (response: ApiResponse): string[] =>
    (response.body.data.project as ProjectFixture).statuses.map((status) => status.slug);

  /** The board's lanes, in the order it answers them, with their ticket ids. */
  async function board(): Promise<Record<string, number[]>> {
    const response = await as.agent.call('GET', `/board?${inProject}`);
    expect(response.status, response.text).to.equal(200);
    const lanes = response.body.data.lanes as Record<string, { id: number }[]>;
    return Object.fromEntries(
      Object.entries(lanes).map(([slug, tickets]) => [slug, tickets.map((t) => t.id)]),
    );
  }

  it('an agent or a team lead is refused every edit (403)', async () => {
    for (const role of ['agent', 'team_lead'] as const) {
      const refusal = `Your role (${role}) does not allow this; it needs admin or higher`;
      const session = as[role];
      expectError(await session.call('PATCH', `/projects/${project.id}`, { name: 'Mine' }), 403, refusal);
      expectError(
        await session.call('POST', `/projects/${project.id}/statuses`, { slug: 'qa', label: 'QA' }),
        403,
        refusal,
      );
      expectError(await session.call('PATCH', statusPath('review'), { label: 'Mine' }), 403, refusal);
      expectError(await session.call('DELETE', `${statusPath('review')}?move_to=open`), 403, refusal);
    }
    const unchanged = await as.agent.call('GET', '/projects');
    const mine = unchanged.body.data.projects.find((each: { id: number }) => each.id === project.id);
    expect(mine.name).to.equal(`Project ${project.slug}`);
    expect(mine.statuses.map((status: { slug: string }) => status.slug)).to.deep.equal([
      'open',
      'review',
      'done',
    ]);
  });

  it('renames the project (slug and prefix stay)', async () => {
    const renamed = await as.admin.call('PATCH', `/projects/${project.id}`, {
      name: 'Customer support',
      description: 'Questions from customers',
    });
    expect(renamed.status, renamed.text).to.equal(200);
    expect(renamed.body.data.project).to.deep.include({
      id: project.id,
      name: 'Customer support',
      description: 'Questions from customers',
      slug: project.slug,
      prefix: project.prefix,
    });
    expectError(await as.admin.call('PATCH', `/projects/${project.id}`, {}), 422, 'Validation failed', {
      body: ['Give at least one field to change: name or description'],
    });
    expectError(await as.admin.call('PATCH', '/projects/999999', { name: 'X' }), 404, 'Project not found');
    expectError(await as.admin.call('PATCH', '/projects/abc', { name: 'X' }), 400, 'Invalid project id');
  });

  it('adds, relabels, reorders and closes statuses; the board lanes follow the new order', async () => {
    // Read once first, so the ticket service holds the old workflow in its cache (30 s): the new
    // order shows within the wait below only because project.updated makes it forget it.
    expect(Object.keys(await board())).to.deep.equal(['open', 'review', 'done']);
    const added = await as.admin.call('POST', `/projects/${project.id}/statuses`, {
      slug: 'qa',
      label: 'QA',
      position: 1,
    });
    expect(added.status, added.text).to.equal(201);
    expect(slugsOf(added)).to.deep.equal(['open', 'qa', 'review', 'done']);
    expectError(
      await as.admin.call('POST', `/projects/${project.id}/statuses`, { slug: 'qa', label: 'Again' }),
      422,
      'Validation failed',
      { slug: ['Status slug "qa" is already used in this project'] },
    );

    const relabelled = await as.admin.call('PATCH', statusPath('qa'), {
      label: 'Quality check',
      position: 2,
    });
    expect(relabelled.status, relabelled.text).to.equal(200);
    expect(relabelled.body.data.project.statuses).to.deep.equal([
      { slug: 'open', label: 'Open', is_closed: false, position: 0 },
      { slug: 'review', label: 'In review', is_closed: false, position: 1 },
      { slug: 'qa', label: 'Quality check', is_closed: false, position: 2 },
      { slug: 'done', label: 'Done', is_closed: true, position: 3 },
    ]);
    const closed = await as.admin.call('PATCH', statusPath('done'), { is_closed: true, position: 1 });
    expect(closed.status, closed.text).to.equal(200);
    expect(slugsOf(closed)).to.deep.equal(['open', 'done', 'review', 'qa']);
    expectError(
      await as.admin.call('PATCH', statusPath('open'), { is_closed: true }),
      422,
      'Validation failed',
      {
        is_closed: ['The first status is where new tickets start, so it cannot be closed'],
      },
    );
    expectError(await as.admin.call('PATCH', statusPath('nope'), { label: 'X' }), 404, 'Status not found');

    // The board shows the new lane order once the ticket service has heard project.updated.
    await eventually(
      async () =>
        JSON.stringify(Object.keys(await board())) === JSON.stringify(['open', 'done', 'review', 'qa']),
      15_000,
    );
  });

  it('removing a status with tickets needs move_to (409 with the count); with it they land in the target lane', async () => {
    const ids: number[] = [];
    for (const title of ['Printer jammed', 'Screen flickers']) {
      const created = await as.agent.call('POST', `/tickets?${inProject}`, { ticket_type_id: typeId, title });
      expect(created.status, created.text).to.equal(201);
      const id = created.body.data.ticket.id as number;
      const moved = await as.agent.call('PATCH', `/tickets/${id}/status?${inProject}`, { status: 'review' });
      expect(moved.status, moved.text).to.equal(200);
      ids.push(id);
    }

    expectError(
      await as.admin.call('DELETE', statusPath('review')),
      409,
      '2 tickets are in "In review"; choose a status to move them to (move_to)',
    );
    expectError(
      await as.admin.call('DELETE', `${statusPath('review')}?move_to=nope`),
      422,
      'Validation failed',
      {
        move_to: ['move_to must be another status of the project: open, done, qa'],
      },
    );
    expectError(await as.admin.call('DELETE', `${statusPath('nope')}?move_to=open`), 404, 'Status not found');

    const removed = await as.admin.call('DELETE', `${statusPath('review')}?move_to=qa`);
    expect(removed.status, removed.text).to.equal(200);
    expect(slugsOf(removed)).to.deep.equal(['open', 'done', 'qa']);

    // The tickets appear in the qa lane.
    await eventually(async () => {
      const lanes = await board();
      return !('review' in lanes) && ids.every((id) => lanes.qa?.includes(id));
    }, 15_000);
    const ticket = await as.agent.call('GET', `/tickets/${ids[0]}?${inProject}`);
    expect(ticket.body.data.ticket).to.include({ status: 'qa', status_label: 'Quality check', version: 3 });

    // The moved tickets count in their new status; a status no live ticket is in goes without move_to.
    expectError(
      await as.admin.call('DELETE', statusPath('qa')),
      409,
      '2 tickets are in "Quality check"; choose a status to move them to (move_to)',
    );
    const spare = await as.admin.call('POST', `/projects/${project.id}/statuses`, {
      slug: 'spare',
      label: 'Spare',
    });
    expect(spare.status, spare.text).to.equal(201);
    const gone = await as.admin.call('DELETE', statusPath('spare'));
    expect(gone.status, gone.text).to.equal(200);
    expect(slugsOf(gone)).to.deep.equal(['open', 'done', 'qa']);
  });
});

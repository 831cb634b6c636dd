/**
 * GET /api/me/data-export through the real fleet: a signed-in user downloads one JSON document of
 * everything they authored or are assigned to (tickets of two projects, comments, attachment
 * metadata), each item exactly as the API presents it and nobody else's; the download headers; a
 * viewer exports their own (empty) data; no session is 401; the 4th export within the hour is 429.
 */
import { expect } from 'chai';
import { expectError } from '@tix/kit/testing';
import { createProject, createTicketType, createUser, type ProjectFixture } from '../support/fixtures.js';
import { request } from '../support/http.js';
import { appUrl, signIn, type BrowserSession } from '../support/session.js';

const PASSWORD = 'export passphrase 42';
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
    '1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082',
  'hex',
);

describe('the data export (GET /api/me/data-export)', function () {
  this.timeout(60_000);
  let alpha: ProjectFixture;
  let beta: ProjectFixture;
  const typeOf: Record<string, number> = {};
  let me: BrowserSession;
  let other: BrowserSession;
  let admin: BrowserSession;

  const inProject = (project: ProjectFixture) => `project=${project.slug}`;

  async function newTicket(
    session: BrowserSession,
    project: ProjectFixture,
    body: Record<string, unknown> = {},
  ): Promise<any> {
    const response = await session.call('POST', `/tickets?${inProject(project)}`, {
      ticket_type_id: typeOf[project.slug],
      title: 'Printer on fire',
      ...body,
    });
    expect(response.status, response.text).to.equal(201);
    return response.body.data.ticket;
  }

  async function newComment(
    session: BrowserSession,
    project: ProjectFixture,
    ticketId: number,
    body: object,
  ) {
    const response = await session.call('POST', `/tickets/${ticketId}/comments?${inProject(project)}`, body);
    expect(response.status, response.text).to.equal(201);
    return response.body.data.comment as Record<string, unknown>;
  }

  async function upload(
    session: BrowserSession,
    project: ProjectFixture,
    ticketId: number,
    filename: string,
  ) {
    const form = new FormData();
    form.append('file', new Blob([PNG], { type: 'image/png' }), filename);
    const response = await fetch(`${appUrl()}/api/tickets/${ticketId}/attachments?${inProject(project)}`, {
      method: 'POST',
      headers: session.headers(),
      body: form,
    });
    const text = await response.text();
    expect(response.status, text).to.equal(201);
    return (JSON.parse(text) as { data: { attachment: Record<string, unknown> } }).data.attachment;
  }

  const exportOf = (session: BrowserSession) => session.call('GET', '/me/data-export');

  before(async () => {
    [alpha, beta] = await Promise.all([createProject(), createProject()]);
    typeOf[alpha.slug] = (await createTicketType(alpha.slug)).id;
    typeOf[beta.slug] = (await createTicketType(beta.slug)).id;
    const [mine, others, admins] = await Promise.all([
      createUser('agent', { password: PASSWORD }),
      createUser('agent', { password: PASSWORD }),
      createUser('admin', { password: PASSWORD }),
    ]);
    [me, other, admin] = await Promise.all([
      signIn(mine.email, PASSWORD),
      signIn(others.email, PASSWORD),
      signIn(admins.email, PASSWORD),
    ]);
  });

  it("answers one document of the user's tickets, comments and attachments, as the API presents them, and nobody else's", async () => {
    const created = await newTicket(me, alpha, { title: 'Mine, in alpha' });
    const assigned = await newTicket(other, beta, { title: 'Given to me, in beta', assigned_to: me.user.id });
    const theirs = await newTicket(other, alpha, { title: 'Not mine' });
    const deleted = await newTicket(me, alpha, { title: 'Deleted since' });
    const removal = await admin.call('DELETE', `/tickets/${deleted.id}?${inProject(alpha)}`);
    expect(removal.status, removal.text).to.equal(200);

    const onMine = await newComment(me, alpha, created.id, { content: 'A public reply', is_internal: false });
    const onTheirs = await newComment(me, alpha, theirs.id, { content: 'An internal note' });
    await newComment(other, alpha, created.id, { content: 'Not my comment' });
    const attachment = await upload(me, alpha, created.id, 'screenshot.png');
    await upload(other, alpha, created.id, 'not-mine.png');

    const response = await exportOf(me);
    expect(response.status, response.text).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^application\/json/);
    const day = new Date().toISOString().slice(0, 10);
    expect(response.headers.get('content-disposition')).to.match(
      new RegExp(`^attachment; filename="tix-export-${me.user.id}-${day}\\.json"`),
    );
    expect(response.headers.get('cache-control')).to.equal('no-store');
    expect(response.headers.get('x-ratelimit-limit')).to.equal('3');

    const { ok, data } = JSON.parse(response.text);
    expect(ok).to.equal(true);
    expect(Date.parse(data.exported_at)).to.be.closeTo(Date.now(), 60_000);
    expect(data.user).to.include({ ...me.user, is_active: true });
    // Exactly as GET /tickets/{id} shows them (the assigned one read in its own project).
    const shown = async (ticketId: number, project: ProjectFixture): Promise<unknown> =>
      (await me.call('GET', `/tickets/${ticketId}?${inProject(project)}`)).body.data.ticket;
    expect(data.tickets).to.deep.equal([await shown(created.id, alpha), await shown(assigned.id, beta)]);
    expect(data.comments).to.deep.equal([onMine, onTheirs]);
    expect(data.attachments).to.deep.equal([attachment]);
  });

  it('lets a viewer export their own data (none yet)', async () => {
    const viewer = await createUser('viewer', { password: PASSWORD });
    const session = await signIn(viewer.email, PASSWORD);
    const response = await exportOf(session);
    expect(response.status, response.text).to.equal(200);
    expect(response.body.data.user.id).to.equal(viewer.id);
    expect([
      response.body.data.tickets,
      response.body.data.comments,
      response.body.data.attachments,
    ]).to.deep.equal([[], [], []]);
  });

  it('answers 401 without a signed-in session', async () => {
    expectError(await request('/api/me/data-export', { host: 'app' }), 401, 'Not signed in');
  });

  it('allows 3 exports per hour; the 4th is refused with 429 and the rate-limit headers', async () => {
    const user = await createUser('agent', { password: PASSWORD });
    const session = await signIn(user.email, PASSWORD);
    for (let i = 1; i <= 3; i += 1) {
      const response = await exportOf(session);
      expect(response.status, `export ${i}: ${response.text}`).to.equal(200);
      expect(response.headers.get('x-ratelimit-remaining')).to.equal(String(3 - i));
    }
    const refused = await exportOf(session);
    expectError(refused, 429, /./);
    expect(refused.headers.get('x-ratelimit-limit')).to.equal('3');
    expect(refused.headers.get('x-ratelimit-remaining')).to.equal('0');
    expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 3600);
    expect(refused.headers.get('content-disposition')).to.equal(null);
  });
});

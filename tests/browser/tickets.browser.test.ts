/**
 * The console's ticket list and ticket view in Debian's Chromium against the real fleet: creating a
 * ticket with custom fields (client-side checks from the type's field_schema and the server's 422
 * beside its field), the list's filters, sort, pages and search against what the API answers,
 * internal and public comments (the server's sanitised HTML only), comment edit and delete by role,
 * an upload with progress whose download has the same bytes, a second browser's edit opening the
 * conflict dialog with both values and re-applying, a status change with a resolution, the history,
 * a viewer without write controls whose forged write is 403, axe on every screen, screenshots.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import type { Page, Response } from 'playwright-core';
import {
  consoleSuite,
  expectAccessible,
  type PageOptions,
  screenshot,
  type WatchedPage,
} from '../support/browser.js';
import {
  createComment,
  createKey,
  createProject,
  createTicket,
  createTicketType,
  createUser,
  type ProjectFixture,
  type Role,
} from '../support/fixtures.js';
import { fleet } from '../support/fleet.js';
import { request } from '../support/http.js';

const PASSWORD = 'a ticket console passphrase';
const STATUSES = 'new:New,doing:Doing,done:Done:closed';
const FIELDS = [
  {
    name: 'severity',
    label: 'Severity',
    type: 'select',
    required: true,
    constraints: { allowed_values: ['minor', 'major'] },
    order: 1,
  },
  { name: 'customer_email', label: 'Customer email', type: 'email', order: 2 },
  {
    name: 'affected_users',
    label: 'Affected users',
    type: 'number',
    constraints: { min_value: 1 },
    order: 3,
  },
];
type SignInRole = Role | 'agent2';
const ROLES: SignInRole[] = ['admin', 'team_lead', 'agent', 'agent2', 'viewer'];

interface SeededTicket {
  id: number;
  title: string;
  priority: string;
  tags: string[];
  assigned_to: number | null;
  version: number;
}

describe('the ticket list and ticket view in a browser', function () {
  this.timeout(120_000);
  const { signIn } = consoleSuite();
  let project: ProjectFixture;
  let key: string;
  const users = {} as Record<SignInRole, { id: number; email: string }>;
  const seeded: SeededTicket[] = [];

  const signInAs = (role: SignInRole, path: string, options?: PageOptions) =>
    signIn({ email: users[role].email, password: PASSWORD }, path, options);

  const ticketPath = (id: number) => `/tickets/${id}?project=${project.slug}`;
  const listPath = (query = '') => `/tickets?project=${project.slug}${query}`;

  async function openTicket(role: SignInRole, id: number, options?: PageOptions): Promise<WatchedPage> {
    const watched = await signInAs(role, ticketPath(id), options);
    await watched.page.locator('[data-ticket-ready]').waitFor();
    return watched;
  }

  /** Runs `action` and waits for the list request it causes and the list drawn from it. */
  async function listReloads(page: Page, action: () => Promise<unknown>): Promise<URL> {
    const loaded = page.waitForResponse(
      (response) => /\/api\/tickets\?/.test(response.url()) && response.request().method() === 'GET',
    );
    await action();
    const response = await loaded;
    expect(response.status()).to.equal(200);
    await page.locator('[data-tickets-ready]').waitFor();
    return new URL(response.url());
  }

  /** A session API call made by the page itself (its cookie and CSRF token), as a forger would. */
  function sessionCall(page: Page, method: string, path: string, body?: unknown) {
    return page.evaluate(
      async ({ method, path, body }) => {
        const token = ((await (await fetch('/api/csrf-token')).json()) as { data: { token: string } }).data
          .token;
        const response = await fetch(path, {
          method,
          headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': token },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return { status: response.status, body: (await response.json()) as { data?: any; error?: any } };
      },
      { method, path, body },
    );
  }

  async function ticketOnServer(id: number): Promise<SeededTicket & Record<string, any>> {
    const response = await request(`/v1/tickets/${id}`, { key });
    expect(response.status, response.text).to.equal(200);
    return response.body.data.ticket;
  }

  async function commentsOnServer(
    id: number,
  ): Promise<{ id: number; content: string; is_internal: boolean }[]> {
    const response = await request(`/v1/tickets/${id}/comments`, { key });
    expect(response.status, response.text).to.equal(200);
    return response.body.data.comments;
  }

  /** The rows' values of one column of the list, as shown. */
  function column(page: Page, label: string): Promise<string[]> {
    return page.locator(`.tickets-table tbody td[data-label="${label}"]`).allTextContents();
  }

  before(async () => {
    project = await createProject({ statuses: STATUSES });
    await createTicketType(project.slug, { isDefault: true, name: 'Bug', slug: 'bug', fields: FIELDS });
    for (const role of ROLES) {
      users[role] = await createUser(role === 'agent2' ? 'agent' : role, { password: PASSWORD });
    }
    key = (await createKey({ project: project.slug, role: 'admin' })).key;
    const typeId = (
      (await request('/v1/ticket-types', { key })).body.data.ticket_types as { id: number; slug: string }[]
    ).find((type) => type.slug === 'bug')!.id;
    const rows: [string, string, string[], number | null][] = [
      ['Printer on fire', 'critical', ['hardware'], users.agent.id],
      ['Printer jams on page two', 'high', ['hardware', 'office'], users.agent2.id],
      ['VPN drops hourly', 'high', ['network'], users.agent.id],
      ['Invoice missing', 'low', ['billing'], null],
      ['Password reset loops', 'medium', [], users.agent2.id],
      ['Export times out', 'critical', ['billing'], null],
      ['Login page slow', 'medium', ['network'], users.agent.id],
    ];
    for (const [title, priority, tags, assignee] of rows) {
      seeded.push(
        await createTicket(key, {
          ticket_type_id: typeId,
          title,
          priority,
          tags,
          description: `${title}: reported by a customer.`,
          ...(assignee === null ? {} : { assigned_to: assignee }),
          custom_fields: { severity: 'minor' },
        }),
      );
    }
  });

  it('creates a ticket with custom fields from the list: checked from the schema, then by the server', async () => {
    const { page } = await signInAs('agent', listPath());
    await page.locator('[data-tickets-ready]').waitFor();
    await page.getByRole('button', { name: 'New ticket' }).click();
    const form = page.getByRole('form', { name: 'New ticket' });
    await form.getByLabel('Title').fill('Scanner smokes after update');
    await form.getByLabel('Customer email').fill('not an address');
    await form.getByLabel('Affected users').fill('0');
    let posted = false;
    const watchPosts = (response: Response) => {
      if (response.url().includes('/api/tickets') && response.request().method() === 'POST') posted = true;
    };
    page.on('response', watchPosts);
    await form.getByRole('button', { name: 'Create ticket' }).click();
    await form.getByText('Severity is required').waitFor();
    await form.getByText('Customer email must be a valid email address').waitFor();
    await form.getByText('Affected users must be at least 1').waitFor();
    expect(posted, 'no request while the form has client-side errors').to.equal(false);
    page.off('response', watchPosts);
    expect(await form.getByLabel('Customer email').getAttribute('aria-invalid')).to.equal('true');
    await expectAccessible(page);
    await screenshot(page, 'tickets-new-client-errors');

    // The server's 422 (more than 20 tags: not checked here) lands beside its field.
    await form.getByLabel('Severity (required)').selectOption('major');
    await form.getByLabel('Customer email').fill('ops@example.com');
    await form.getByLabel('Affected users').fill('12');
    await form.getByLabel('Tags').fill(Array.from({ length: 21 }, (_, index) => `tag${index}`).join(', '));
    const refused = page.waitForResponse(
      (response) => response.url().includes('/api/tickets') && response.request().method() === 'POST',
    );
    await form.getByRole('button', { name: 'Create ticket' }).click();
    expect((await refused).status()).to.equal(422);
    const tagsErrors = form.locator('.field', { has: page.getByLabel('Tags') }).locator('.field-errors');
    await tagsErrors.waitFor();
    expect(await tagsErrors.textContent()).to.match(/20/);
    await screenshot(page, 'tickets-new-server-errors');

    await form.getByLabel('Tags').fill('Hardware, urgent');
    const created = page.waitForResponse(
      (response) => response.url().includes('/api/tickets') && response.request().method() === 'POST',
    );
    await form.getByRole('button', { name: 'Create ticket' }).click();
    const answer = (await (await created).json()) as { data: { ticket: { id: number } } };
    await page.locator('[data-ticket-ready]').waitFor();
    expect(new URL(page.url()).pathname).to.equal(`/tickets/${answer.data.ticket.id}`);
    await page.getByRole('heading', { level: 1, name: /Scanner smokes after update/ }).waitFor();
    const onServer = await ticketOnServer(answer.data.ticket.id);
    expect(onServer.custom_fields).to.deep.equal({
      severity: 'major',
      customer_email: 'ops@example.com',
      affected_users: 12,
    });
    expect(onServer.tags).to.have.members(['hardware', 'urgent']);
    const customPanel = page.getByRole('region', { name: 'Bug fields' });
    expect(await customPanel.locator('.ticket-field-value').allTextContents()).to.deep.equal([
      'major',
      'ops@example.com',
      '12',
    ]);
    await expectAccessible(page);
    await screenshot(page, 'ticket-view');
  });

  it('filters, sorts, pages and searches the list as the API answers, keeping it all in the URL', async () => {
    const { page } = await signInAs('agent', listPath());
    await page.locator('[data-tickets-ready]').waitFor();

    // Pages: 2 per page, totals from the server.
    const all = (await request('/v1/tickets?per_page=100', { key })).body.data;
    let sent = await listReloads(page, () => page.goto(listPath('&per_page=2')));
    expect(sent.searchParams.get('per_page')).to.equal('2');
    const pages = Math.ceil(all.pagination.total / 2);
    await page.getByText(`Page 1 of ${pages} · ${all.pagination.total} tickets`).waitFor();
    const firstPage = await column(page, 'Number');
    expect(firstPage).to.have.length(2);
    sent = await listReloads(page, () => page.getByRole('button', { name: 'Next page' }).click());
    expect(sent.searchParams.get('page')).to.equal('2');
    const secondPage = await column(page, 'Number');
    expect(secondPage).to.have.length(2);
    expect(secondPage).to.not.include.members(firstPage);
    expect(new URL(page.url()).searchParams.get('page')).to.equal('2');
    await page.getByText(`Page 2 of ${pages}`).waitFor();

    // A filter goes back to page 1: priority, then assignee, then status, each as the API answers.
    await listReloads(page, () => page.goto(listPath()));
    await listReloads(page, () => page.getByLabel('Priority', { exact: true }).selectOption('critical'));
    expect(new URL(page.url()).searchParams.get('page')).to.equal(null);
    const critical = (await request('/v1/tickets?priority=critical', { key })).body.data
      .tickets as SeededTicket[];
    expect(await column(page, 'Number')).to.have.length(critical.length);
    expect(new Set(await column(page, 'Priority'))).to.deep.equal(new Set(['Critical']));
    await listReloads(page, () => page.getByLabel('Priority', { exact: true }).selectOption(''));
    await listReloads(page, () =>
      page.getByLabel('Assignee', { exact: true }).selectOption(String(users.agent2.id)),
    );
    const ofAgent2 = (await request(`/v1/tickets?assignee=${users.agent2.id}`, { key })).body.data.tickets;
    expect(await column(page, 'Number')).to.have.members(ofAgent2.map((t: any) => t.ticket_number));
    await listReloads(page, () => page.getByLabel('Assignee', { exact: true }).selectOption(''));
    await listReloads(page, () => page.getByLabel('Status', { exact: true }).selectOption('new'));
    expect(new URL(page.url()).searchParams.get('status')).to.equal('new');
    const inNew = (await request('/v1/tickets?status=new&per_page=100', { key })).body.data.tickets;
    expect(await column(page, 'Number')).to.have.members(inNew.map((t: any) => t.ticket_number));
    expect(new Set(await column(page, 'Status'))).to.deep.equal(new Set(['New']));

    // Tag and sort: hardware tickets, titles A to Z.
    await listReloads(page, () => page.getByRole('button', { name: 'Clear filters' }).click());
    await page.getByLabel('Tag', { exact: true }).fill('hardware');
    await listReloads(page, () => page.getByRole('button', { name: 'Search' }).click());
    await listReloads(page, () => page.getByLabel('Sort', { exact: true }).selectOption('+title'));
    const hardware = (await request('/v1/tickets?tag=hardware&sort=%2Btitle', { key })).body.data.tickets;
    const titles = await column(page, 'Title');
    expect(titles).to.deep.equal(hardware.map((t: any) => t.title));
    expect(titles).to.deep.equal([...titles].sort((a, b) => a.localeCompare(b)));
    expect(titles.length).to.be.greaterThan(1);
    await screenshot(page, 'tickets-filtered');

    // Search: every match, no pages (the spec), even with 2 per page.
    await listReloads(page, () => page.goto(listPath('&per_page=2')));
    await page.getByLabel('Search', { exact: true }).fill('printer');
    sent = await listReloads(page, () => page.getByRole('button', { name: 'Search' }).click());
    expect(sent.searchParams.get('q')).to.equal('printer');
    expect(sent.searchParams.has('page')).to.equal(false);
    const matches = (await request('/v1/tickets?q=printer', { key })).body.data.tickets;
    expect(matches.length).to.be.greaterThan(1);
    expect(await column(page, 'Title')).to.have.length(matches.length);
    await page.getByText(`${matches.length} matches for “printer”`).waitFor();
    expect(await page.getByRole('navigation', { name: 'Pages' }).count()).to.equal(0);

    // The URL carries it all: a reload shows the same.
    await listReloads(page, () => page.reload());
    expect(await page.getByLabel('Search', { exact: true }).inputValue()).to.equal('printer');
    expect(await column(page, 'Title')).to.have.length(matches.length);
    await expectAccessible(page);
    await screenshot(page, 'tickets-search');
  });

  it('comments internally and publicly; shows only the HTML the server sanitised', async () => {
    const ticket = seeded[0]!;
    await createComment(key, ticket.id, {
      content: 'Formatted note',
      content_html:
        '<p><strong>Bold</strong> text<script>window.injected = 1</script><img src="x" onerror="window.injected = 2"></p>',
    });
    const { page } = await openTicket('agent', ticket.id);
    const thread = page.getByRole('region', { name: /Comments/ });
    await thread.getByText('Bold').waitFor();
    expect(await thread.locator('.ticket-comment-html strong').count()).to.equal(1);
    expect(await thread.locator('.ticket-comment-html script, .ticket-comment-html img').count()).to.equal(0);
    expect(await page.evaluate('window.injected')).to.equal(undefined);

    const composer = page.getByRole('form', { name: 'Add a comment' });
    expect(await composer.getByLabel(/Internal note \(team only\)/).isChecked()).to.equal(true);
    await composer.getByLabel('Internal note', { exact: true }).fill('Checked the fuse box: internal');
    await composer.getByRole('button', { name: 'Add internal note' }).click();
    await thread
      .getByRole('listitem', { name: /Internal note by/ })
      .getByText('Checked the fuse box')
      .waitFor();

    await composer.getByLabel(/Public reply \(the customer sees it\)/).check();
    await composer.getByLabel('Public reply', { exact: true }).fill('We are sending a technician today.');
    await composer.getByRole('button', { name: 'Send public reply' }).click();
    await thread
      .getByRole('listitem', { name: /Public reply by/ })
      .getByText('sending a technician')
      .waitFor();

    const stored = await commentsOnServer(ticket.id);
    expect(
      stored.find((comment) => comment.content.startsWith('Checked the fuse box'))?.is_internal,
    ).to.equal(true);
    expect(stored.find((comment) => comment.content.startsWith('We are sending'))?.is_internal).to.equal(
      false,
    );
    await expectAccessible(page);
    await screenshot(page, 'ticket-comments');
  });

  it("shows a comment's image of one of the ticket's attachments (the form of mail's inline images)", async () => {
    const ticket = seeded[1]!;
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
      'base64',
    );
    const form = new FormData();
    form.append('file', new Blob([png], { type: 'image/png' }), 'smoke.png');
    const uploaded = await fetch(`${fleet().apiUrl}/v1/tickets/${ticket.id}/attachments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: form,
    });
    expect(uploaded.status).to.equal(201);
    const attachment = ((await uploaded.json()) as { data: { attachment: { id: number } } }).data.attachment;
    await createComment(key, ticket.id, {
      content: 'See the smoke',
      content_html: `<p>See the smoke</p><img src="/attachments/${attachment.id}/download" alt="the smoke">`,
      is_internal: false,
    });
    const { page } = await openTicket('agent', ticket.id);
    const image = page.getByRole('region', { name: /Comments/ }).getByRole('img', { name: 'the smoke' });
    await image.waitFor();
    expect(await image.getAttribute('src')).to.equal(
      `/api/attachments/${attachment.id}/download?project_id=${project.id}`,
    );
    // Loaded through the session: a broken image has no natural size.
    await page.waitForFunction(
      "[...document.images].some((img) => img.alt === 'the smoke' && img.complete && img.naturalWidth === 1)",
      undefined,
      { timeout: 10_000 },
    );
  });

  it('offers comment edit to the author and team leads, delete to the author and admins; the server agrees', async () => {
    const ticket = seeded[1]!;
    const author = await signInAs('agent', ticketPath(ticket.id));
    const created = await sessionCall(
      author.page,
      'POST',
      `/api/tickets/${ticket.id}/comments?project_id=${project.id}`,
      { content: 'Written by the agent', is_internal: true },
    );
    expect(created.status).to.equal(201);
    const commentId = created.body.data.comment.id as number;

    const expected: Record<SignInRole, { edit: boolean; delete: boolean }> = {
      agent: { edit: true, delete: true },
      agent2: { edit: false, delete: false },
      team_lead: { edit: true, delete: false },
      admin: { edit: true, delete: true },
      viewer: { edit: false, delete: false },
    };
    for (const role of ROLES) {
      const { page } = await openTicket(role, ticket.id);
      const comment = page.locator(`[data-comment-id="${commentId}"]`);
      await comment.waitFor();
      const shown = {
        edit: (await comment.getByRole('button', { name: /^Edit comment/ }).count()) === 1,
        delete: (await comment.getByRole('button', { name: /^Delete comment/ }).count()) === 1,
      };
      expect(shown, role).to.deep.equal(expected[role]);
    }

    // Another agent's forged edit and delete are refused.
    const other = await signInAs('agent2', ticketPath(ticket.id));
    const forgedEdit = await sessionCall(
      other.page,
      'PUT',
      `/api/comments/${commentId}?project_id=${project.id}`,
      {
        content: 'forged',
      },
    );
    expect(forgedEdit.status).to.equal(403);
    const forgedDelete = await sessionCall(
      other.page,
      'DELETE',
      `/api/comments/${commentId}?project_id=${project.id}`,
    );
    expect(forgedDelete.status).to.equal(403);

    // A team lead edits it; an admin deletes it.
    const lead = await openTicket('team_lead', ticket.id);
    const leadComment = lead.page.locator(`[data-comment-id="${commentId}"]`);
    await leadComment.getByRole('button', { name: /^Edit comment/ }).click();
    await leadComment.getByRole('textbox', { name: 'Comment' }).fill('Clarified by the team lead');
    await leadComment.getByRole('button', { name: 'Save comment' }).click();
    await leadComment.getByText('Clarified by the team lead').waitFor();
    await leadComment.getByText('(edited)').waitFor();
    await screenshot(lead.page, 'ticket-comment-edited');

    const admin = await openTicket('admin', ticket.id);
    await admin.page
      .locator(`[data-comment-id="${commentId}"]`)
      .getByRole('button', { name: /^Delete comment/ })
      .click();
    const dialog = admin.page.getByRole('dialog', { name: 'Delete this comment?' });
    await dialog.getByRole('button', { name: 'Delete comment' }).click();
    await admin.page.locator(`[data-comment-id="${commentId}"]`).waitFor({ state: 'detached' });
    expect((await commentsOnServer(ticket.id)).map((comment) => comment.id)).to.not.include(commentId);
  });

  it('uploads a file with a progress bar, and its download has the same bytes', async () => {
    const ticket = seeded[2]!;
    const { page, context } = await openTicket('agent', ticket.id);
    const bytes = Buffer.from(
      Array.from({ length: 40_000 }, (_, index) => `line ${index} ${randomBytes(12).toString('hex')}\n`).join(
        '',
      ),
    );
    // A slow uplink, so that the upload takes a few seconds and reports its progress on the way.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: 512 * 1024,
    });
    const name = `trace-${randomBytes(3).toString('hex')}.txt`;
    await page.getByLabel('File to attach').setInputFiles({ name, mimeType: 'text/plain', buffer: bytes });
    const uploaded = page.waitForResponse(
      (response) =>
        /\/api\/tickets\/\d+\/attachments/.test(response.url()) && response.request().method() === 'POST',
    );
    await page.getByRole('button', { name: 'Upload' }).click();
    const bar = page.getByRole('progressbar', { name: 'Upload progress' });
    await bar.waitFor();
    const seen = new Set<number>();
    let finished = false;
    void uploaded.then(() => (finished = true));
    while (!finished) {
      const value = await bar.getAttribute('value', { timeout: 1000 }).catch(() => null);
      if (value !== null) seen.add(Number(value));
      await page.waitForTimeout(100);
    }
    expect((await uploaded).status()).to.equal(201);
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: -1,
    });
    const between = [...seen].filter((value) => value > 0 && value < 100);
    expect(between.length, `progress values seen: ${[...seen].join(', ')}`).to.be.greaterThan(0);

    const link = page.getByRole('link', { name });
    await link.waitFor();
    await screenshot(page, 'ticket-attachment');
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).to.equal(name);
    const downloaded = await readFile(await download.path());
    expect(downloaded.equals(bytes), 'the downloaded bytes equal the uploaded ones').to.equal(true);
  });

  it('opens the conflict dialog when a second browser saved first, with both values, and re-applies', async () => {
    const ticket = seeded[3]!;
    const before = await ticketOnServer(ticket.id);
    const mine = await openTicket('agent', ticket.id);
    const theirs = await openTicket('team_lead', ticket.id);

    // Mine starts editing the title; theirs saves another title first.
    await mine.page.getByRole('button', { name: 'Edit Title' }).click();
    await mine.page
      .getByRole('form', { name: 'Edit Title' })
      .getByLabel('Title')
      .fill('Invoice missing (mine)');
    await theirs.page.getByRole('button', { name: 'Edit Title' }).click();
    await theirs.page
      .getByRole('form', { name: 'Edit Title' })
      .getByLabel('Title')
      .fill('Invoice missing (theirs)');
    await theirs.page.getByRole('button', { name: 'Save' }).click();
    await theirs.page.getByRole('heading', { level: 1, name: /\(theirs\)/ }).waitFor();

    const refused = mine.page.waitForResponse(
      (response) => /\/api\/tickets\/\d+\?/.test(response.url()) && response.request().method() === 'PUT',
    );
    await mine.page.getByRole('button', { name: 'Save' }).click();
    expect((await refused).status()).to.equal(409);
    const dialog = mine.page.getByRole('dialog', { name: /was changed/ });
    await dialog.waitFor();
    const row = dialog.getByRole('row', { name: /Title/ });
    expect(await row.locator('td').allTextContents()).to.deep.equal([
      'Invoice missing (mine)',
      'Invoice missing (theirs)',
    ]);
    await expectAccessible(mine.page);
    await screenshot(mine.page, 'ticket-conflict');

    const reapplied = mine.page.waitForResponse(
      (response) => /\/api\/tickets\/\d+\?/.test(response.url()) && response.request().method() === 'PUT',
    );
    await dialog.getByRole('button', { name: 'Apply mine on top' }).click();
    expect((await reapplied).status()).to.equal(200);
    await mine.page.getByRole('heading', { level: 1, name: /\(mine\)/ }).waitFor();
    const after = await ticketOnServer(ticket.id);
    expect(after.title).to.equal('Invoice missing (mine)');
    expect(after.version).to.equal(before.version + 2);
  });

  it('changes the status with a resolution and a field inline; the history shows both changes', async () => {
    const ticket = seeded[4]!;
    const { page } = await openTicket('agent', ticket.id);
    const status = page.getByRole('region', { name: 'Status', exact: true });
    await status.getByLabel('New status').selectOption('doing');
    expect(await status.getByLabel('Resolution').count(), 'an open status takes no resolution').to.equal(0);
    await status.getByLabel('New status').selectOption('done');
    await status.getByLabel('Resolution').selectOption('wont_fix');
    await status.getByRole('button', { name: 'Change status' }).click();
    await status.locator('.ticket-status-current').getByText("Won't fix").waitFor();

    await page.getByRole('button', { name: 'Edit Priority' }).click();
    await page.getByRole('form', { name: 'Edit Priority' }).getByLabel('Priority').selectOption('high');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('button', { name: 'Edit Priority' }).waitFor();
    expect(await page.evaluate('document.activeElement?.getAttribute("aria-label")')).to.equal(
      'Edit Priority',
    );

    const onServer = await ticketOnServer(ticket.id);
    expect([onServer.status, onServer.resolution_type, onServer.priority]).to.deep.equal([
      'done',
      'wont_fix',
      'high',
    ]);
    const history = page.getByRole('region', { name: 'History' });
    await history.getByText(/status: new → done/i).waitFor();
    await history.getByText(/priority: medium → high/i).waitFor();
    const recorded = await sessionCall(
      page,
      'GET',
      `/api/tickets/${ticket.id}/history?project_id=${project.id}`,
    );
    expect(await history.locator('.ticket-history-entry').count()).to.equal(
      recorded.body.data.activities.length,
    );
    await screenshot(page, 'ticket-history');
  });

  it('shows a viewer no write controls, and the server refuses a forged write (403)', async () => {
    const ticket = seeded[5]!;
    const list = await signInAs('viewer', listPath());
    await list.page.locator('[data-tickets-ready]').waitFor();
    expect(await list.page.getByRole('button', { name: 'New ticket' }).count()).to.equal(0);
    await expectAccessible(list.page);
    await screenshot(list.page, 'tickets-viewer');

    const { page } = await openTicket('viewer', ticket.id);
    await page.getByRole('region', { name: 'Attachments' }).waitFor();
    await page
      .getByRole('region', { name: /Comments/ })
      .locator('.ticket-comment, .empty-state')
      .first()
      .waitFor();
    expect(await page.getByRole('button', { name: /^Edit/ }).count()).to.equal(0);
    expect(await page.getByRole('button', { name: /^(Delete|Remove)/ }).count()).to.equal(0);
    expect(
      await page
        .getByRole('button', { name: /Change status|Upload|Add internal note|Send public reply/ })
        .count(),
    ).to.equal(0);
    expect(await page.getByRole('form', { name: 'Add a comment' }).count()).to.equal(0);
    expect(await page.locator('main').locator('input, textarea, select').count()).to.equal(0);
    await expectAccessible(page);
    await screenshot(page, 'ticket-viewer');

    const forged = await sessionCall(page, 'PUT', `/api/tickets/${ticket.id}?project_id=${project.id}`, {
      title: 'Forged by a viewer',
    });
    expect(forged.status).to.equal(403);
    expect(forged.body.error?.message).to.not.equal('Invalid CSRF token');
    const forgedComment = await sessionCall(
      page,
      'POST',
      `/api/tickets/${ticket.id}/comments?project_id=${project.id}`,
      {
        content: 'Forged note',
      },
    );
    expect(forgedComment.status).to.equal(403);
    expect((await ticketOnServer(ticket.id)).title).to.equal(ticket.title);
  });

  it('fits the ticket view and the list on a 375 px phone in the dark theme, accessibly', async () => {
    const ticket = seeded[6]!;
    const { page } = await openTicket('agent', ticket.id, { width: 375, height: 740, colorScheme: 'dark' });
    await page.getByRole('region', { name: 'History' }).locator('.ticket-history-entry').first().waitFor();
    const overflow = () => page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    expect(await overflow(), 'no sideways scrolling on the ticket').to.be.at.most(0);
    await expectAccessible(page);
    await screenshot(page, 'ticket-phone-dark');

    await listReloads(page, () => page.goto(listPath()));
    expect(await overflow(), 'no sideways scrolling on the list').to.be.at.most(0);
    await expectAccessible(page);
    await screenshot(page, 'tickets-phone-dark');
  });
  it('opens a ticket from a board opened by its URL: the project in the URL carries on and is remembered', async () => {
    // The switcher remembers another project; the board is then opened by a link naming this one.
    const other = await createProject();
    const { page } = await signInAs('agent', `/board?project=${project.slug}`);
    const switcher = page.locator('.project-switcher select');
    await switcher.selectOption(other.slug);
    await page.goto(`/board?project=${project.slug}`);
    const ticket = seeded[4]!;
    const card = page.locator(
      `a.card-title[href="/tickets/${ticket.id}"], a.card-title[href^="/tickets/${ticket.id}?"]`,
    );
    await card.click();
    const notFound = page.getByRole('heading', { name: 'Ticket not found' });
    await page.locator('[data-ticket-ready]').or(notFound).waitFor();
    expect(await notFound.count(), 'the ticket of the board, not "not found"').to.equal(0);
    expect(await page.locator('[data-ticket-ready]').textContent()).to.contain(
      (await ticketOnServer(ticket.id)).title,
    );
    // Every screen reached from it works in the same project, which is now the remembered one.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Activity' }).click();
    expect(new URL(page.url()).searchParams.get('project')).to.equal(project.slug);
    await page.goto('/tickets');
    await page.locator('[data-tickets-ready]').waitFor();
    expect(await switcher.inputValue()).to.equal(project.slug);
  });
});

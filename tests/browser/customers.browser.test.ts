/**
 * The console's customer and mail screens in Debian's Chromium against the real fleet: a customer's
 * page with their tickets and notes edited inline; merge and delete only for the roles the server
 * allows, delete behind a dialog that says it anonymises; setting a ticket's requester by a new
 * address and adding a CC by search, checked through the API; the new ticket form's requester; an
 * organization's page with its customers; an admin adding an SMTP mailbox, the mail it then receives
 * listed with its state, testing and pausing it. Axe on every screen; no page error or
 * CSP violation; a screenshot per scenario.
 */
import { expect } from 'chai';
import nodemailer from 'nodemailer';
import type { Page } from 'playwright-core';
import { consoleSuite, expectAccessible, screenshot } from '../support/browser.js';
import {
  createKey,
  createComment,
  createProject,
  createTicket,
  createTicketType,
  createUser,
  unique,
  type ProjectFixture,
  type Role,
} from '../support/fixtures.js';
import { fleetSmtpPort } from '../support/fleet.js';
import { request } from '../support/http.js';

const PASSWORD = 'a customer console passphrase';
const KEY_SCOPES = 'tickets:read,tickets:write,comments:read,comments:write,customers:read,customers:write';

interface Customer {
  id: number;
  name: string;
  emails: string[];
  organization_id: number | null;
  notes: string;
}

describe('the customer and mailbox screens in a browser', function () {
  this.timeout(120_000);
  const { signIn } = consoleSuite();
  let project: ProjectFixture;
  let key: string;
  let typeId: number;
  const users = {} as Record<Role, { id: number; email: string }>;

  const signInAs = (role: Role, path: string) =>
    signIn({ email: users[role].email, password: PASSWORD }, path);
  const withProject = (path: string) =>
    `${path}${path.includes('?') ? '&' : '?'}project=${encodeURIComponent(project.slug)}`;

  async function api<T = any>(path: string, method = 'GET', body?: unknown): Promise<T> {
    const response = await request(path, { key, method, body });
    expect(response.status, `${method} ${path}: ${response.text}`).to.be.within(200, 299);
    return response.body.data as T;
  }

  async function createCustomer(name: string, extra: Record<string, unknown> = {}): Promise<Customer> {
    const email = `${unique(name.toLowerCase().replace(/\W+/g, '-'))}@example.com`;
    return (await api<{ customer: Customer }>('/v1/customers', 'POST', { name, emails: [email], ...extra }))
      .customer;
  }

  const fileTicket = <T>(body: Record<string, unknown>) =>
    createTicket<T>(key, { ticket_type_id: typeId, ...body });

  async function ticketOf(id: number): Promise<{ requester_id: number | null; cc: number[] }> {
    return (await api<{ ticket: { requester_id: number | null; cc: number[] } }>(`/v1/tickets/${id}`)).ticket;
  }

  /** Waits until the ticket view shows the ticket at a version newer than `version`. */
  async function savedPast(page: Page, version: number): Promise<void> {
    await page
      .locator('[data-ticket-ready]')
      .and(page.locator(`:not([data-version="${version}"])`))
      .waitFor();
    const now = Number(await page.locator('[data-ticket-ready]').getAttribute('data-version'));
    expect(now).to.be.above(version);
  }

  before(async () => {
    project = await createProject({ statuses: 'open:Open,done:Done:closed' });
    typeId = (await createTicketType(project.slug, { isDefault: true })).id;
    for (const role of ['admin', 'team_lead', 'agent', 'viewer'] as Role[]) {
      users[role] = await createUser(role, { password: PASSWORD });
    }
    key = (await createKey({ project: project.slug, scopes: KEY_SCOPES })).key;
  });

  it("shows a customer's page with their tickets, and saves the notes", async () => {
    const grace = await createCustomer('Grace Hopper');
    const other = await createCustomer('Ada Lovelace');
    const asked = await fileTicket<{ id: number; ticket_number: string }>({
      title: 'The compiler stops at line 3',
      requester_id: grace.id,
    });
    const copied = await fileTicket<{ id: number; ticket_number: string }>({
      title: 'Ada asks, Grace is copied',
      requester_id: other.id,
      cc: [grace.id],
    });
    const elsewhere = await fileTicket<{ ticket_number: string }>({
      title: 'Nothing to do with Grace',
      requester_id: other.id,
    });

    const { page } = await signInAs('agent', withProject(`/customers/${grace.id}`));
    await page.getByRole('heading', { level: 1, name: 'Grace Hopper' }).waitFor();
    await page.getByText(grace.emails[0]!).waitFor();
    const tickets = page.getByRole('table', { name: 'Tickets of Grace Hopper' });
    await tickets.getByRole('link', { name: asked.ticket_number }).waitFor();
    const rows = tickets.locator('tbody tr');
    expect(await rows.count()).to.equal(2);
    expect(
      await tickets.getByRole('row', { name: new RegExp(copied.ticket_number) }).textContent(),
    ).to.contain('CC');
    expect(await tickets.getByText(elsewhere.ticket_number).count()).to.equal(0);
    // An agent edits; merging (team lead) and deleting (admin) are not theirs.
    expect(await page.getByRole('heading', { name: 'Merge into another customer' }).count()).to.equal(0);
    expect(await page.getByRole('button', { name: 'Delete customer' }).count()).to.equal(0);
    await expectAccessible(page);

    await page.getByRole('button', { name: 'Edit Notes' }).click();
    await page.getByRole('textbox', { name: 'Notes' }).fill('Calls before nine.');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Calls before nine.').waitFor();
    expect((await api<{ customer: Customer }>(`/v1/customers/${grace.id}`)).customer.notes).to.equal(
      'Calls before nine.',
    );

    await tickets.getByRole('link', { name: asked.ticket_number }).click();
    await page.locator('[data-ticket-ready]').waitFor();
    const people = page.getByRole('region', { name: 'People' });
    await people.getByRole('link', { name: 'Grace Hopper' }).waitFor();
    await screenshot(page, 'customer-page');
  });

  it("sets a ticket's requester by a new address and adds a CC found by search", async () => {
    const ticket = await fileTicket<{ id: number; version: number }>({ title: 'Who asked?' });
    const colleague = await createCustomer('Margaret Hamilton');
    const address = `${unique('new-requester')}@example.com`;

    const { page } = await signInAs('agent', withProject(`/tickets/${ticket.id}`));
    const people = page.getByRole('region', { name: 'People' });
    await people.getByText('No requester').waitFor();
    await people.getByRole('button', { name: 'Set requester' }).click();
    await people.getByLabel('Find the requester').fill(address);
    await people.getByRole('button', { name: `Use ${address}` }).click();
    await savedPast(page, ticket.version);
    await people.getByText(address).waitFor();

    const found = await api<{ customers: Customer[] }>(`/v1/customers?email=${encodeURIComponent(address)}`);
    expect(found.customers).to.have.length(1);
    expect((await ticketOf(ticket.id)).requester_id).to.equal(found.customers[0]!.id);

    const before = Number(await page.locator('[data-ticket-ready]').getAttribute('data-version'));
    await people.getByLabel('Add to CC').fill('Margaret');
    await people
      .getByRole('button', { name: new RegExp(`Margaret Hamilton <${colleague.emails[0]}>`) })
      .click();
    await savedPast(page, before);
    await people
      .getByRole('list', { name: 'Copied customers' })
      .getByRole('link', { name: 'Margaret Hamilton' })
      .waitFor();
    expect((await ticketOf(ticket.id)).cc).to.deep.equal([colleague.id]);
    await expectAccessible(page);
    await screenshot(page, 'ticket-requester-and-cc');

    const afterCc = Number(await page.locator('[data-ticket-ready]').getAttribute('data-version'));
    await people.getByRole('button', { name: 'Remove Margaret Hamilton from CC' }).click();
    await savedPast(page, afterCc);
    await people.getByText('Nobody copied').waitFor();
    expect((await ticketOf(ticket.id)).cc).to.deep.equal([]);
  });

  it('files a new ticket with a requester found by search', async () => {
    const requester = await createCustomer('Katherine Johnson');
    const { page } = await signInAs('agent', withProject('/tickets'));
    await page.getByRole('button', { name: 'New ticket' }).click();
    const form = page.getByRole('form', { name: 'New ticket' });
    await form.getByLabel('Title', { exact: true }).fill('Orbit numbers look off');
    await form.getByLabel('Requester').fill(requester.emails[0]!);
    await form
      .getByRole('button', { name: new RegExp(`Katherine Johnson <${requester.emails[0]}>`) })
      .click();
    await form.getByText('Requester: ').waitFor();
    await form.getByRole('button', { name: 'Create ticket' }).click();
    await page.waitForURL(/\/tickets\/\d+/);
    const id = Number(new URL(page.url()).pathname.split('/').pop());
    expect((await ticketOf(id)).requester_id).to.equal(requester.id);
    await page
      .getByRole('region', { name: 'People' })
      .getByRole('link', { name: 'Katherine Johnson' })
      .waitFor();
  });

  it('lets a team lead merge and an admin delete, behind a dialog that says it anonymises', async () => {
    const duplicate = await createCustomer('Grace H.');
    const kept = await createCustomer('Grace Brewster Hopper');
    const ticket = await fileTicket<{ id: number }>({
      title: 'Asked twice',
      requester_id: duplicate.id,
    });

    const lead = await signInAs('team_lead', `/customers/${duplicate.id}`);
    expect(await lead.page.getByRole('button', { name: 'Delete customer' }).count()).to.equal(0);
    await lead.page.getByLabel('Customer to merge into').fill(kept.emails[0]!);
    await lead.page
      .getByRole('button', { name: new RegExp(`Grace Brewster Hopper <${kept.emails[0]}>`) })
      .click();
    const mergeDialog = lead.page.getByRole('dialog', { name: /Merge Grace H\. into Grace Brewster Hopper/ });
    await mergeDialog.waitFor();
    await mergeDialog.getByRole('button', { name: 'Merge customers' }).click();
    await lead.page.waitForURL(new RegExp(`/customers/${kept.id}$`));
    await lead.page.getByRole('heading', { level: 1, name: 'Grace Brewster Hopper' }).waitFor();
    // The duplicate's address now belongs to the one that remains.
    const requester = (await ticketOf(ticket.id)).requester_id;
    expect(
      (
        await api<{ customers: Customer[] }>(
          `/v1/customers?email=${encodeURIComponent(duplicate.emails[0]!)}`,
        )
      ).customers[0]?.id,
    ).to.equal(kept.id);

    const admin = await signInAs('admin', `/customers/${kept.id}`);
    await admin.page.getByRole('button', { name: 'Delete customer' }).click();
    const dialog = admin.page.getByRole('dialog', { name: 'Delete Grace Brewster Hopper?' });
    expect(await dialog.textContent()).to.match(/anonymises/);
    await expectAccessible(admin.page);
    await screenshot(admin.page, 'customer-delete-dialog');
    await dialog.getByRole('button', { name: 'Delete and anonymise' }).click();
    await admin.page.waitForURL(/\/customers$/);
    // Gone from lookups (its address finds nobody); the ticket stays.
    expect((await request(`/v1/customers/${kept.id}`, { key })).status).to.equal(404);
    const byAddress = await api<{ customers: Customer[] }>(
      `/v1/customers?email=${encodeURIComponent(kept.emails[0]!)}`,
    );
    expect(byAddress.customers).to.deep.equal([]);
    expect((await ticketOf(ticket.id)).requester_id).to.equal(requester);
  });

  it('lists and searches customers, and shows an organization with its customers', async () => {
    const domain = `${unique('org')}.example`;
    const organization = (
      await api<{ organization: { id: number; name: string } }>('/v1/organizations', 'POST', {
        name: `Acme ${domain}`,
        domains: [domain],
      })
    ).organization;
    const member = (
      await api<{ customer: Customer }>('/v1/customers', 'POST', {
        name: 'Road Runner',
        emails: [`beep@${domain}`],
      })
    ).customer;
    expect(member.organization_id).to.equal(organization.id);

    const { page } = await signInAs('viewer', '/board');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Customers' }).click();
    await page.getByRole('heading', { level: 1, name: 'Customers' }).waitFor();
    // A viewer reads, and writes nothing.
    expect(await page.getByRole('form', { name: 'New customer' }).count()).to.equal(0);
    await page.getByLabel('Search customers').fill(`beep@${domain}`);
    await page.getByRole('button', { name: 'Search' }).click();
    const table = page.getByRole('table', { name: 'Customers' });
    await table.getByRole('link', { name: 'Road Runner' }).waitFor();
    expect(await table.locator('tbody tr').count()).to.equal(1);
    await expectAccessible(page);
    await table.getByRole('link', { name: organization.name }).click();
    await page.getByRole('heading', { level: 1, name: organization.name }).waitFor();
    await page
      .getByRole('table', { name: `Customers of ${organization.name}` })
      .getByRole('link', { name: 'Road Runner' })
      .waitFor();
    expect(await page.getByRole('button', { name: 'Edit Notes' }).count()).to.equal(0);
    await expectAccessible(page);
    await screenshot(page, 'organization-page');

    // An admin renames and annotates it, deletes it (its customers stay), and its page is then gone.
    const admin = await signInAs('admin', `/organizations/${organization.id}`);
    await admin.page.getByRole('button', { name: 'Edit Name' }).click();
    await admin.page.getByRole('textbox', { name: 'Name' }).fill(`Acme Corp ${domain}`);
    await admin.page.getByRole('button', { name: 'Save' }).click();
    await admin.page.getByRole('heading', { level: 1, name: `Acme Corp ${domain}` }).waitFor();
    await admin.page.getByRole('button', { name: 'Edit Notes' }).click();
    await admin.page.getByRole('textbox', { name: 'Notes' }).fill('Pays by cheque.');
    await admin.page.getByRole('button', { name: 'Save' }).click();
    await admin.page.getByText('Pays by cheque.').waitFor();
    await admin.page.getByRole('button', { name: 'Delete organization' }).click();
    const dialog = admin.page.getByRole('dialog', { name: `Delete Acme Corp ${domain}?` });
    expect(await dialog.textContent()).to.contain('Its customers stay, without an organization.');
    await dialog.getByRole('button', { name: 'Delete organization' }).click();
    await admin.page.waitForURL(/\/organizations$/);
    expect(
      (await api<{ customer: Customer }>(`/v1/customers/${member.id}`)).customer.organization_id,
    ).to.equal(null);
    await admin.page.goto(admin.page.url().replace(/\/organizations$/, `/organizations/${organization.id}`));
    await admin.page.getByRole('heading', { level: 1, name: 'Organization not found' }).waitFor();
    await admin.page.getByRole('link', { name: 'Back to the organizations' }).waitFor();
  });

  it('lets an admin add an SMTP mailbox, see what it received, test and pause it', async () => {
    const address = `${unique('support')}@example.com`;
    const { page } = await signInAs('admin', withProject('/admin/mailboxes'));
    await page.getByRole('heading', { level: 1, name: /Mailboxes/ }).waitFor();
    await page.getByText('No mailboxes in this project.').waitFor();
    await expectAccessible(page);

    const form = page.getByRole('form', { name: 'New mailbox' });
    await form.getByLabel('Address').fill('not an address');
    await form.getByRole('button', { name: 'Add mailbox' }).click();
    await form.locator('.field-errors').first().waitFor();
    await form.getByLabel('Address').fill(address);
    await form.getByRole('button', { name: 'Add mailbox' }).click();
    const table = page.getByRole('table', { name: 'Mailboxes' });
    const row = table.getByRole('row', { name: new RegExp(address) });
    await row.waitFor();
    expect(await row.textContent()).to.contain('SMTP');

    const transport = nodemailer.createTransport({
      host: '127.0.0.1',
      port: fleetSmtpPort(),
      secure: false,
      ignoreTLS: true,
    });
    const customer = `${unique('writer')}@example.com`;
    const messageId = `<${unique('console')}@example.com>`;
    try {
      await transport.sendMail({
        from: customer,
        to: address,
        subject: 'The printer is on fire',
        text: 'Help.',
        messageId,
      });
    } finally {
      transport.close();
    }
    await row.getByRole('button', { name: `Messages received by ${address}` }).click();
    const messages = page.getByRole('table', { name: `Messages received by ${address}` });
    // Stored durably before the SMTP answer: listed at once, with its state.
    await page.getByRole('button', { name: 'Refresh' }).click();
    const received = messages.locator('tbody tr').filter({ hasText: messageId });
    await received.waitFor();
    expect(await received.getAttribute('data-state')).to.be.oneOf([
      'received',
      'processing',
      'processed',
      'ignored',
      'refused',
      'failed',
    ]);
    expect(await received.textContent()).to.contain('SMTP');

    await row.getByRole('button', { name: `Test connection of ${address}` }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `${address} is ready` })
      .waitFor();
    await row.getByRole('button', { name: `Pause ${address}` }).click();
    await row.getByRole('button', { name: `Resume ${address}` }).waitFor();
    expect(await row.getAttribute('data-paused')).to.equal('true');
    const listed = await request<{ data: { mailboxes: { address: string; paused: boolean }[] } }>(
      `/api/mailboxes?project_id=${project.id}`,
      { host: 'app', headers: { cookie: await cookieHeader(page) } },
    );
    expect(listed.body.data.mailboxes.find((mailbox) => mailbox.address === address)?.paused).to.equal(true);
    await expectAccessible(page);
    await screenshot(page, 'mailboxes');
  });

  it('lets an admin add an IMAP mailbox with an OAuth2 client, its secrets never shown, and renew its refresh token', async () => {
    const address = `${unique('oauth')}@example.com`;
    const { page } = await signInAs('admin', withProject('/admin/mailboxes'));
    const form = page.getByRole('form', { name: 'New mailbox' });
    await form.getByLabel('Kind').selectOption('imap');
    await form.getByLabel('Address').fill(address);
    await form.getByLabel('IMAP host').fill('imap.gmail.com');
    await form.getByLabel('IMAP user').fill(address);
    await form.getByLabel('Sign-in').selectOption('xoauth2');
    await form.getByLabel('Provider').selectOption('google');
    expect(await form.getByLabel('Token URL').inputValue()).to.equal('https://oauth2.googleapis.com/token');
    expect(await form.getByLabel('Scope').inputValue()).to.equal('https://mail.google.com/');
    // A token endpoint on a loopback port fetch refuses: the fleet's mail service never goes online.
    await form.getByLabel('Token URL').fill('http://127.0.0.1:9/token');
    await form.getByLabel('Client ID').fill('console-client');
    await form.getByLabel('Client secret').fill('console client secret');
    await form.getByRole('button', { name: 'Add mailbox' }).click();
    // No refresh token: refused beside its field.
    await form.locator('.field-errors').filter({ hasText: 'required for OAuth2' }).first().waitFor();
    await form.getByLabel('Refresh token').fill('console refresh token');
    await form.getByRole('button', { name: 'Add mailbox' }).click();
    const row = page
      .getByRole('table', { name: 'Mailboxes' })
      .getByRole('row', { name: new RegExp(address) });
    await row.waitFor();

    const listed = await request<{ data: { mailboxes: { address: string; oauth2: unknown }[] } }>(
      `/api/mailboxes?project_id=${project.id}`,
      { host: 'app', headers: { cookie: await cookieHeader(page) } },
    );
    expect(JSON.stringify(listed.body))
      .to.not.contain('console client secret')
      .and.not.contain('refresh token');
    expect(listed.body.data.mailboxes.find((mailbox) => mailbox.address === address)?.oauth2).to.deep.include(
      {
        token_url: 'http://127.0.0.1:9/token',
        client_id: 'console-client',
        scope: 'https://mail.google.com/',
      },
    );

    await row.getByRole('button', { name: `Change sign-in of ${address}` }).click();
    const signIn = page.getByRole('form', { name: `Sign-in of ${address}` });
    await signIn.getByLabel('Refresh token').fill('a renewed refresh token');
    await signIn.getByRole('button', { name: 'Change sign-in' }).click();
    await page
      .locator('.toast')
      .filter({ hasText: `Sign-in of ${address} changed.` })
      .first()
      .waitFor();
    await expectAccessible(page);
  });

  it("saves the project's mail settings (a bad address refused beside its field) and shows them again", async () => {
    const { page } = await signInAs('admin', withProject('/admin/mailboxes'));
    const form = page.getByRole('form', { name: 'Mail settings' });
    await form.getByLabel('From name').waitFor();
    const name = unique('Support team ');
    await form.getByLabel('From name').fill(name);
    await form.getByLabel('From address').fill('not an address');
    await form.getByLabel('Reopen window (days)').fill('30');
    await form.getByLabel('Acknowledge new tickets opened by mail').check();
    await form.getByLabel('Acknowledgement subject').fill('We got it [#{{ticket.number}}]');
    await form.getByRole('button', { name: 'Save mail settings' }).click();
    const refused = form.locator('.field-errors').filter({ hasText: /email/i });
    await refused.waitFor();
    expect(await refused.count()).to.equal(1);

    const address = `${unique('help')}@example.com`;
    await form.getByLabel('From address').fill(address);
    await form.getByRole('button', { name: 'Save mail settings' }).click();
    await page.locator('.toast').filter({ hasText: 'Mail settings saved.' }).first().waitFor();

    await page.reload();
    await form.getByLabel('From name').waitFor();
    expect(await form.getByLabel('From name').inputValue()).to.equal(name);
    expect(await form.getByLabel('From address').inputValue()).to.equal(address);
    expect(await form.getByLabel('Reopen window (days)').inputValue()).to.equal('30');
    expect(await form.getByLabel('Acknowledge new tickets opened by mail').isChecked()).to.equal(true);
    expect(await form.getByLabel('Acknowledgement subject').inputValue()).to.equal(
      'We got it [#{{ticket.number}}]',
    );
    const saved = await request<{ data: { settings: { from_name: string; reopen_window_days: number } } }>(
      `/api/mail-settings?project_id=${project.id}`,
      { host: 'app', headers: { cookie: await cookieHeader(page) } },
    );
    expect(saved.body.data.settings).to.include({ from_name: name, reopen_window_days: 30 });
    await expectAccessible(page);
    await screenshot(page, 'mail-settings');
  });

  it('shows under a public reply the mail it produced, and a deleted requester as Deleted customer', async () => {
    const gone = await createCustomer('Gone Customer');
    const ticket = await fileTicket<{ id: number; ticket_number: string }>({
      title: 'Mail for a customer who leaves',
      requester_id: gone.id,
    });
    const reply = await createComment<{ id: number }>(key, ticket.id, {
      content: 'We are on it.',
      is_internal: false,
    });
    // The reply is queued by the mail service once it hears of the comment, then sent to the folder.
    let states: string[] = [];
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      const mail = await api<{ messages: { comment_id: number; state: string }[] }>(
        `/v1/tickets/${ticket.id}/mail?project_id=${project.id}`,
      );
      states = mail.messages.filter((m) => m.comment_id === reply.id).map((m) => m.state);
      if (states.includes('sent')) break;
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    expect(states, "the reply's mail").to.include('sent');

    const { page } = await signInAs('agent', withProject(`/tickets/${ticket.id}`));
    const sent = page.getByRole('list', { name: `Mail sent for comment ${reply.id}` });
    await sent.waitFor();
    expect(await sent.textContent())
      .to.contain(`Mailed to ${gone.emails[0]}`)
      .and.contain('Sent');
    await expectAccessible(page);
    await screenshot(page, 'comment-mail');

    const adminKey = (await createKey({ project: project.slug, scopes: KEY_SCOPES, role: 'admin' })).key;
    const deleted = await request(`/v1/customers/${gone.id}`, { key: adminKey, method: 'DELETE' });
    expect(deleted.status, deleted.text).to.be.within(200, 299);
    await page.reload();
    await page.getByText('Deleted customer').first().waitFor();
    expect(await page.getByRole('link', { name: 'Gone Customer' }).count()).to.equal(0);
  });

  it('shows mailboxes to admins only', async () => {
    const { page } = await signInAs('team_lead', '/board');
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    expect(await page.getByRole('link', { name: 'Mailboxes' }).count()).to.equal(0);
    await page.goto(new URL('/admin/mailboxes', page.url()).href);
    await page.getByText('Your role does not give access to this page.').waitFor();
  });
});

/** The page's cookies as a Cookie header, to ask the session host what the console was told. */
async function cookieHeader(page: Page): Promise<string> {
  const cookies = await page.context().cookies();
  return cookies.map((cookie) => `${cookie.name}=${cookie.value}`).join('; ');
}

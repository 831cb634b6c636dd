/**
 * The console's administration screens in Debian's Chromium against the real fleet: users (create,
 * change role, deactivate and reactivate, then the new user signs in), projects (a new project with
 * custom statuses becomes board lanes; statuses added, renamed, moved and removed, with the 409 for
 * tickets still in one), ticket types (the field editor, a 422 on the right field, a ticket filed
 * through the API with the new fields), API keys (shown once, usable as a Bearer key, revoked), and
 * webhooks (a delivery in the log, redelivered). Non-admins see none of it. Axe on every screen; no
 * page error or CSP violation; a screenshot per scenario.
 */
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { SCOPES } from '@tix/protos';
import { consoleSuite, expectAccessible, type PageOptions, screenshot } from '../support/browser.js';
import {
  createKey,
  createProject,
  createTicket,
  createTicketType,
  createUser,
  unique,
  type ProjectFixture,
  type Role,
} from '../support/fixtures.js';
import { request } from '../support/http.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';

const PASSWORD = 'an admin console passphrase';
const ADMIN_SCREENS = [
  { path: '/admin/users', nav: 'Users', title: 'Users' },
  { path: '/admin/projects', nav: 'Projects', title: 'Projects and statuses' },
  { path: '/admin/ticket-types', nav: 'Ticket types', title: 'Ticket types' },
  { path: '/admin/api-keys', nav: 'API keys', title: 'API keys' },
  { path: '/admin/webhooks', nav: 'Webhooks', title: 'Webhooks' },
  { path: '/admin/mailboxes', nav: 'Mailboxes', title: 'Mailboxes' },
];

/** Polls `check` until it holds (deliveries and projections settle shortly after the answer). */
async function eventually(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('the console administration screens in a browser', function () {
  this.timeout(120_000);
  const { signIn: signInWith } = consoleSuite();
  let project: ProjectFixture;
  let agentKey: string;
  let typeId: number;
  const users = {} as Record<Role, { id: number; email: string }>;

  const signIn = (email: string, path = '/', options?: PageOptions) =>
    signInWith({ email, password: PASSWORD }, path, options);

  const signInAs = (role: Role, path = '/', options?: PageOptions) =>
    signIn(users[role].email, path, options);

  /** The toast region's text once it holds `text`. */
  async function toastSays(page: Page, text: string | RegExp): Promise<void> {
    await page.locator('.toast').filter({ hasText: text }).first().waitFor();
  }

  before(async () => {
    project = await createProject({ statuses: 'open:Open,doing:Doing,done:Done:closed' });
    typeId = (await createTicketType(project.slug, { isDefault: true })).id;
    for (const role of ['admin', 'team_lead', 'agent', 'viewer'] as Role[]) {
      users[role] = await createUser(role, { password: PASSWORD });
    }
    agentKey = (await createKey({ project: project.slug })).key;
  });

  it('lists the admin screens for an admin, each accessible', async () => {
    const { page } = await signInAs('admin', `/board?project=${project.slug}`);
    const nav = page.getByRole('list', { name: 'Administration' });
    for (const screen of ADMIN_SCREENS) {
      await nav.getByRole('link', { name: screen.nav, exact: true }).click();
      await page.getByRole('heading', { level: 1, name: new RegExp(`^${screen.title}`) }).waitFor();
      await page.locator('.loading').first().waitFor({ state: 'detached' });
      expect(new URL(page.url()).pathname).to.equal(screen.path);
      await expectAccessible(page);
    }
  });

  for (const role of ['team_lead', 'agent', 'viewer'] as Role[]) {
    it(`shows a ${role} none of the admin screens or their controls`, async () => {
      const { page } = await signInAs(role, `/board?project=${project.slug}`);
      const nav = page.getByRole('navigation', { name: 'Main' });
      for (const screen of ADMIN_SCREENS) {
        expect(await nav.getByRole('link', { name: screen.nav, exact: true }).count()).to.equal(0);
      }
      for (const screen of ADMIN_SCREENS) {
        await page.goto(`${screen.path}?project=${project.slug}`);
        await page.getByText('Your role does not give access to this page.').waitFor();
        expect(await page.locator('main form, main table, main button').count()).to.equal(0);
      }
      await screenshot(page, `admin-refused-${role}`);
    });
  }

  it('creates a user, changes the role, deactivates and reactivates; the user then signs in', async () => {
    const { page } = await signInAs('admin', '/admin/users');
    await page.getByRole('table', { name: 'Users' }).waitFor();
    const email = `${unique('console-user')}@example.com`;

    // A 422 lands on its field.
    await page.getByLabel('Name', { exact: true }).fill('Grace Hopper');
    await page.getByLabel('Email', { exact: true }).fill('not an email');
    await page.getByRole('button', { name: 'Create user' }).click();
    const emailField = page.getByLabel('Email', { exact: true });
    await page.locator('input[name="email"][aria-invalid="true"]').waitFor();
    const describedBy = (await emailField.getAttribute('aria-describedby')) ?? '';
    expect(await page.locator(`[id="${describedBy.split(' ').pop()}"]`).textContent()).to.match(/email/i);

    await emailField.fill(email);
    await page.getByLabel('Role', { exact: true }).selectOption('agent');
    await page.getByLabel('Password (optional)').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create user' }).click();
    const row = page.getByRole('row').filter({ hasText: email });
    await row.waitFor();
    expect(await row.getByRole('cell').nth(2).textContent()).to.equal('Active');

    await row.getByLabel('Role of Grace Hopper').selectOption('team_lead');
    await row.getByRole('button', { name: 'Save role' }).click();
    await toastSays(page, 'Grace Hopper is now Team lead.');
    await row.getByRole('button', { name: 'Deactivate Grace Hopper', exact: true }).click();
    await row.getByRole('button', { name: 'Activate Grace Hopper', exact: true }).waitFor();
    expect(await row.getByRole('cell').nth(2).textContent()).to.equal('Deactivated');
    await expectAccessible(page);
    await screenshot(page, 'admin-users');

    const listed = await request('/v1/users', { key: agentKey });
    const created = (listed.body.data.users as { email: string; role: string; is_active: boolean }[]).find(
      (user) => user.email === email,
    );
    expect(created).to.include({ role: 'team_lead', is_active: false });

    await row.getByRole('button', { name: 'Activate Grace Hopper', exact: true }).click();
    await row.getByRole('button', { name: 'Deactivate Grace Hopper', exact: true }).waitFor();
    const { page: theirs } = await signIn(email, '/board');
    expect(await theirs.locator('.header .role').textContent()).to.equal('team lead');
  });

  it('creates a project with custom statuses that become board lanes, and edits its workflow', async () => {
    const { page } = await signInAs('admin', '/admin/projects');
    const form = page.getByRole('form', { name: 'New project' });
    const slug = unique('console-');
    const prefix = `C${Math.floor(Math.random() * 46655)
      .toString(36)
      .toUpperCase()}`;
    await form.getByLabel('Name', { exact: true }).fill('Console made');
    await form.getByLabel('Slug', { exact: true }).fill(slug);
    await form.getByLabel('Prefix', { exact: true }).fill(prefix);
    for (const [index, [statusSlug, label]] of [
      ['triage', 'Triage'],
      ['fixing', 'Fixing'],
      ['shipped', 'Shipped'],
    ].entries()) {
      await form.getByRole('button', { name: 'Add a status' }).click();
      await form.getByLabel(`Status ${index + 1} slug`).fill(statusSlug!);
      await form.getByLabel(`Status ${index + 1} label`).fill(label!);
    }
    // No closed status yet: the workflow rule comes back as a 422 on statuses.
    await form.getByRole('button', { name: 'Create project' }).click();
    await form.getByText('At least one status must be closed').waitFor();
    await form.getByLabel('Status 3 Closed').check();
    await form.getByRole('button', { name: 'Create project' }).click();
    await toastSays(page, 'Project Console made created.');

    await page.getByRole('link', { name: 'Console made' }).click();
    await page.getByRole('heading', { name: 'Edit Console made' }).waitFor();
    const workflow = page.getByRole('list', { name: 'Workflow of Console made' });
    expect(await workflow.locator('.admin-status-slug').allTextContents()).to.deep.equal([
      'triage',
      'fixing',
      'shipped',
    ]);

    // Add "In review" before Shipped, rename Fixing, move In review up.
    const add = page.getByRole('form', { name: 'Add a status' });
    await add.getByLabel('Status slug').fill('in_review');
    await add.getByLabel('Status label').fill('In review');
    await add.getByLabel('Place').selectOption({ label: 'Before Shipped' });
    await add.getByRole('button', { name: 'Add status' }).click();
    await toastSays(page, 'In review added to the workflow.');
    await workflow.getByLabel('Label of fixing').fill('Being fixed');
    await workflow.getByRole('button', { name: 'Rename' }).click();
    await toastSays(page, 'Renamed to Being fixed.');
    await workflow.getByRole('button', { name: 'Move In review up' }).click();
    await toastSays(page, 'In review moved up.');
    expect(await workflow.locator('.admin-status-slug').allTextContents()).to.deep.equal([
      'triage',
      'in_review',
      'fixing',
      'shipped',
    ]);
    await expectAccessible(page);
    await screenshot(page, 'admin-projects');

    // The board shows the lanes in that order.
    await page.getByRole('list', { name: 'Work' }).getByRole('link', { name: 'Board' }).click();
    await page.locator('[data-board-ready]').waitFor();
    const lanes = await page.locator('.lane-title').allTextContents();
    expect(lanes.map((text) => text.replace(/\d+$/, '').trim())).to.deep.equal([
      'Triage',
      'In review',
      'Being fixed',
      'Shipped',
    ]);

    // A ticket in Being fixed: removing it is refused (409) until a target is chosen.
    const fixingType = (await createTicketType(slug, { isDefault: true })).id;
    const key = (await createKey({ project: slug })).key;
    const ticket = await createTicket<{ id: number }>(key, {
      title: 'Stuck in fixing',
      ticket_type_id: fixingType,
    });
    const moved = await request(`/v1/tickets/${ticket.id}/status`, {
      method: 'PATCH',
      key,
      body: { status: 'fixing' },
    });
    expect(moved.status, moved.text).to.equal(200);
    await page.goto(`/admin/projects?project=${slug}`);
    await workflow.getByRole('button', { name: 'Remove Being fixed' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove Being fixed?' });
    await dialog.getByRole('button', { name: 'Remove status' }).click();
    await dialog
      .getByRole('alert')
      .filter({ hasText: /1 ticket/ })
      .waitFor();
    await screenshot(page, 'admin-projects-remove-refused');
    await dialog.getByLabel('Move its tickets to').selectOption({ label: 'In review' });
    await dialog.getByRole('button', { name: 'Remove status' }).click();
    await toastSays(page, 'Being fixed removed; its tickets move to In review.');
    expect(await workflow.locator('.admin-status-slug').allTextContents()).to.deep.equal([
      'triage',
      'in_review',
      'shipped',
    ]);
    await eventually(async () => {
      const response = await request(`/v1/tickets/${ticket.id}`, { key });
      return (response.body.data?.ticket as { status?: string } | undefined)?.status === 'in_review';
    }, 'the ticket to move to in_review');
  });

  it('creates a ticket type with the field editor (422s on the right field); a ticket of it is filed through the API', async () => {
    const { page } = await signInAs('admin', `/admin/ticket-types?project=${project.slug}`);
    await page.getByRole('button', { name: 'New ticket type' }).click();
    const form = page.getByRole('form', { name: 'New ticket type' });
    await form.getByLabel('Type name').fill('Incident');
    await form.getByLabel('Type slug').fill('incident');

    await form.getByRole('button', { name: 'Add a field' }).click();
    await form.getByLabel('Field 1 name').fill('severity');
    await form.getByLabel('Field 1 label').fill('Severity');
    await form.getByLabel('Field 1 type').selectOption('select');
    await form.getByLabel('Field 1 required').check();
    await form.getByRole('button', { name: 'Add a field' }).click();
    await form.getByLabel('Field 2 name').fill('affected_users');
    await form.getByLabel('Field 2 label').fill('Affected users');
    await form.getByLabel('Field 2 type').selectOption('number');
    await form.getByLabel('Field 2 minimum value').fill('0');
    await form.getByRole('button', { name: 'Add a field' }).click();
    await form.getByLabel('Field 3 name').fill('Bad Name');
    await form.getByLabel('Field 3 label').fill('Runbook');
    await form.getByLabel('Field 3 type').selectOption('url');

    // Options missing on the select and a bad name: each 422 lands on its own control.
    await form.getByRole('button', { name: 'Create ticket type' }).click();
    const options = form.getByLabel('Field 1 options');
    await form.locator('textarea[aria-invalid="true"]').waitFor();
    expect(await options.getAttribute('aria-invalid')).to.equal('true');
    expect(await form.getByLabel('Field 3 name').getAttribute('aria-invalid')).to.equal('true');
    expect(await form.getByLabel('Field 2 name').getAttribute('aria-invalid')).to.equal(null);
    await expectAccessible(page);
    await screenshot(page, 'admin-ticket-types-errors');

    await options.fill('minor\nmajor\noutage');
    await form.getByLabel('Field 3 name').fill('runbook');
    // Reorder: the runbook first.
    await form.getByRole('button', { name: 'Move Runbook up' }).click();
    await form.getByRole('button', { name: 'Move Runbook up' }).click();
    await form.getByRole('button', { name: 'Create ticket type' }).click();
    await toastSays(page, 'Incident saved.');
    await page.getByRole('form', { name: 'Edit Incident' }).waitFor();
    await expectAccessible(page);
    await screenshot(page, 'admin-ticket-types');

    const listed = await request(`/v1/ticket-types`, { key: agentKey });
    const incident = (
      listed.body.data.ticket_types as {
        id: number;
        slug: string;
        field_schema: {
          name: string;
          required: boolean;
          order: number;
          constraints: Record<string, unknown>;
        }[];
      }[]
    ).find((type) => type.slug === 'incident')!;
    expect(incident.field_schema.map((field) => field.name)).to.deep.equal([
      'runbook',
      'severity',
      'affected_users',
    ]);
    expect(incident.field_schema[1]).to.deep.include({
      required: true,
      constraints: { allowed_values: ['minor', 'major', 'outage'] },
    });

    const filed = await createTicket<{ custom_fields: Record<string, unknown> }>(agentKey, {
      title: 'Checkout down',
      ticket_type_id: incident.id,
      custom_fields: {
        severity: 'outage',
        affected_users: 1200,
        runbook: 'https://runbooks.example.com/checkout',
      },
    });
    expect(filed.custom_fields).to.deep.include({ severity: 'outage', affected_users: 1200 });
    const refused = await request('/v1/tickets', {
      method: 'POST',
      key: agentKey,
      body: { title: 'No severity', ticket_type_id: incident.id, custom_fields: { affected_users: 3 } },
    });
    expect(refused.status).to.equal(422);

    // Editing: a field removed and saved (the stored values still fit), then retired.
    const edit = page.getByRole('form', { name: 'Edit Incident' });
    await edit.getByRole('button', { name: 'Remove field Runbook' }).click();
    await edit.getByRole('button', { name: 'Save ticket type' }).click();
    await toastSays(page, 'Incident saved.');
    await page.getByRole('button', { name: 'Retire Incident' }).click();
    await page.getByRole('button', { name: 'Bring Incident back' }).waitFor();
    expect(await page.getByRole('row').filter({ hasText: 'incident' }).textContent()).to.contain('Retired');
  });

  it('creates an API key shown once, usable at once, and revokes it', async () => {
    const { page, context } = await signInAs('admin', '/admin/api-keys');
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    const form = page.getByRole('form', { name: 'New API key' });
    const name = unique('console-key-');
    await form.getByLabel('Key name').fill(name);
    await form.getByLabel('Acts as user').selectOption(String(users.agent.id));
    await form.getByLabel('Project').selectOption(String(project.id));
    // Every scope of the contract is offered, in its order (the screen takes the contract's list).
    const offered = await form.getByRole('group', { name: 'Scopes' }).getByRole('checkbox').all();
    expect(await Promise.all(offered.map((box) => box.getAttribute('value')))).to.deep.equal([...SCOPES]);
    await form.getByLabel('tickets:write').check();
    await form.getByLabel('customers:read').check();
    await form.getByRole('button', { name: 'Create API key' }).click();

    const shown = page.getByRole('region', { name: /Copy it now: API key/ });
    await shown.waitFor();
    expect(await shown.textContent()).to.contain('This is the only time it is shown');
    const value = await shown.getByLabel(`API key ${name}`).inputValue();
    expect(value).to.match(/^tix_/);
    await shown.getByRole('button', { name: 'Copy' }).click();
    await toastSays(page, `API key ${name} copied`);
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).to.equal(value);
    await expectAccessible(page);
    await screenshot(page, 'admin-api-key-shown-once');

    const used = await request(`/v1/tickets?project_id=${project.id}`, { key: value });
    expect(used.status, used.text).to.equal(200);
    const customers = await request('/v1/customers', { key: value });
    expect(customers.status, customers.text).to.equal(200);

    // Once: after a reload the value is nowhere on the page, only its prefix.
    await page.reload();
    const row = page.getByRole('row').filter({ hasText: name });
    await row.waitFor();
    expect(await page.content()).to.not.contain(value);
    expect(await row.textContent()).to.contain('tickets:read, tickets:write, customers:read');

    await row.getByRole('button', { name: `Revoke ${name}` }).click();
    await page
      .getByRole('dialog', { name: `Revoke ${name}?` })
      .getByRole('button', { name: 'Revoke key' })
      .click();
    await row.getByText(/^Revoked/).waitFor();
    const refused = await request(`/v1/tickets?project_id=${project.id}`, { key: value });
    expect(refused.status).to.equal(401);
    await screenshot(page, 'admin-api-keys');
  });

  it('creates a webhook, shows a delivery in its log, redelivers it, and deletes the webhook', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const { page } = await signInAs('admin', `/admin/webhooks?project=${project.slug}`);
      const form = page.getByRole('form', { name: 'New webhook' });
      // Every event type the server lets a webhook subscribe to (spec "Webhook events"), in its order.
      const boxes = form.getByRole('group', { name: 'Events' }).getByRole('checkbox');
      // evaluateAll does not wait: the screen renders its form once the session's facts are in.
      await boxes.first().waitFor();
      const offered = await boxes.evaluateAll((boxes) =>
        boxes.map((box) => (box as unknown as { value: string }).value),
      );
      expect(offered).to.deep.equal([
        'ticket.created',
        'ticket.updated',
        'ticket.status_changed',
        'ticket.assigned',
        'comment.created',
        'ticket.deleted',
        'ticket.merged',
        'ticket.restored',
      ]);
      await form.getByLabel('Payload URL').fill('not a url');
      await form.getByRole('button', { name: 'Create webhook' }).click();
      await form.locator('input[name="url"][aria-invalid="true"]').waitFor();

      await form.getByLabel('Payload URL').fill(receiver.url);
      await form.getByRole('button', { name: 'Create webhook' }).click();
      const shown = page.getByRole('region', { name: /Copy it now: Signing secret/ });
      await shown.waitFor();
      expect(await shown.getByLabel('Signing secret').inputValue()).to.match(/^whsec_/);
      await shown.getByRole('button', { name: 'I have stored it' }).click();

      const ticket = await createTicket<{ id: number }>(agentKey, {
        title: 'Webhook trigger',
        ticket_type_id: typeId,
      });
      await eventually(() => receiver.received.length === 1, 'the first delivery');
      await page.getByRole('button', { name: `Delivery log of ${receiver.url}` }).click();
      const log = page.getByRole('table', { name: `Deliveries to ${receiver.url}` });
      await eventually(async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        return (await log.getByText('delivered').count()) === 1;
      }, 'the delivered row');
      expect(await log.getByRole('row').nth(1).textContent()).to.contain('ticket.created');
      await expectAccessible(page);
      await screenshot(page, 'admin-webhooks-log');

      await log.getByRole('button', { name: /^Redeliver ticket\.created/ }).click();
      await toastSays(page, 'ticket.created queued again.');
      await eventually(() => receiver.received.length === 2, 'the redelivery');
      expect(receiver.received[1]!.headers['webhook-id']).to.equal(
        receiver.received[0]!.headers['webhook-id'],
      );
      await eventually(async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        return (await log.getByText('delivered').count()) === 2;
      }, 'two delivered rows');
      expect(ticket.id).to.be.a('number');

      await page.getByRole('button', { name: `Delete ${receiver.url}` }).click();
      await page
        .getByRole('dialog', { name: 'Delete this webhook?' })
        .getByRole('button', { name: 'Delete webhook' })
        .click();
      await page.getByText('No webhooks in this project.').waitFor();
      await screenshot(page, 'admin-webhooks-deleted');
    } finally {
      await receiver.close();
    }
  });

  it('fits the users screen on a 375 px phone, accessibly', async () => {
    const { page } = await signInAs('admin', '/admin/users', { width: 375, height: 740 });
    await page.getByRole('table', { name: 'Users' }).waitFor();
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    expect(overflow, 'no sideways scrolling of the page').to.be.at.most(0);
    await expectAccessible(page);
    await screenshot(page, 'admin-users-phone');
  });
});

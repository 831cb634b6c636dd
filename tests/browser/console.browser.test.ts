/**
 * The agent console in Debian's Chromium against the real fleet: sign-in and sign-out for every role,
 * the board of a custom-status project, moving tickets by drag and drop and by the keyboard menu
 * (still there after a reload), a viewer without write controls whose forged write is refused,
 * accessibility (axe), no CSP violation, and the first load's size and time for 200 tickets.
 */
import { expect } from 'chai';
import type { Locator, Page } from 'playwright-core';
import { consoleSuite, expectAccessible, type PageOptions, screenshot } from '../support/browser.js';
import {
  createKey,
  createProject,
  createTicket,
  createTicketType,
  createUser,
  type ProjectFixture,
  type Role,
} from '../support/fixtures.js';
import { request } from '../support/http.js';

const PASSWORD = 'a console passphrase';
const ROLES: Role[] = ['admin', 'team_lead', 'agent', 'viewer'];
const STATUSES = 'triage:Triage,doing:Doing,review:In review,done:Done:closed';

describe('the agent console in a browser', function () {
  this.timeout(120_000);
  const { newPage, signIn } = consoleSuite();
  let project: ProjectFixture;
  let agentKey: string;
  const users = {} as Record<Role, { id: number; email: string }>;

  const signInAs = (role: Role, path = '/', options?: PageOptions) =>
    signIn({ email: users[role].email, password: PASSWORD }, path, options);

  /** The ticket numbers of a lane as the page shows them, in order. */
  function laneNumbers(page: Page, lane: string): Promise<string[]> {
    return page.locator(`ol[data-lane="${lane}"] .card-number`).allTextContents();
  }

  /** The answer to the next move the page sends (wait for it to be registered before acting). */
  function moveSaved(page: Page) {
    return page.waitForResponse(
      (response) =>
        /\/api\/tickets\/\d+\/status/.test(response.url()) && response.request().method() === 'PATCH',
    );
  }

  /** Drags as a person does: press, move in steps (Sortable starts after a few pixels), release. */
  async function dragWithMouse(page: Page, from: Locator, to: Locator): Promise<void> {
    const start = (await from.boundingBox())!;
    const end = (await to.boundingBox())!;
    await page.mouse.move(start.x + start.width / 2, start.y + start.height / 2);
    await page.mouse.down();
    await page.mouse.move(start.x + start.width / 2 + 10, start.y + start.height / 2 + 10, { steps: 5 });
    await page.mouse.move(end.x + end.width / 2, end.y + 20, { steps: 20 });
    await page.mouse.up();
  }

  async function laneOfTicketOnServer(ticketId: number): Promise<string> {
    const response = await request(`/v1/tickets/${ticketId}`, { key: agentKey });
    return (response.body.data.ticket as { status: string }).status;
  }

  before(async () => {
    project = await createProject({ statuses: STATUSES });
    const typeId = (await createTicketType(project.slug, { isDefault: true })).id;
    for (const role of ROLES) users[role] = await createUser(role, { password: PASSWORD });
    agentKey = (await createKey({ project: project.slug })).key;
    for (const title of [
      'Printer on fire',
      'VPN drops hourly',
      'Invoice missing',
      'Password reset loops',
      'Export times out',
    ]) {
      await createTicket(agentKey, { ticket_type_id: typeId, title, priority: 'high' });
    }
  });

  it('opens sign-in at / when signed out, accessibly', async () => {
    const { page } = await newPage();
    const response = await page.goto('/');
    expect(response?.headers()['content-security-policy']).to.contain("script-src 'self'");
    await page.getByRole('heading', { name: 'Sign in to Tix' }).waitFor();
    expect(new URL(page.url()).pathname).to.equal('/sign-in');
    await expectAccessible(page);
    await screenshot(page, 'sign-in');
  });

  for (const role of ROLES) {
    it(`signs in as ${role}, shows the navigation of that role, and signs out`, async () => {
      const { page } = await signInAs(role);
      expect(new URL(page.url()).pathname).to.equal('/board');
      const nav = page.getByRole('navigation', { name: 'Main' });
      expect(await nav.getByRole('link', { name: 'Board' }).count()).to.equal(1);
      expect(await nav.getByRole('link', { name: 'Users' }).count()).to.equal(role === 'admin' ? 1 : 0);
      expect(await nav.getByRole('link', { name: 'Audit queue' }).count()).to.equal(
        role === 'admin' || role === 'team_lead' ? 1 : 0,
      );
      expect(await nav.getByRole('link', { name: 'Assistant' }).count()).to.equal(role === 'viewer' ? 0 : 1);
      await screenshot(page, `signed-in-${role}`);

      await page.getByRole('link', { name: 'Sign out' }).click();
      await page.getByRole('heading', { name: 'Signed out' }).waitFor();
      await page.goto('/board');
      await page.getByRole('heading', { name: 'Sign in to Tix' }).waitFor();
      expect(new URL(page.url()).searchParams.get('next')).to.equal('/board');
    });
  }

  it("renders the board of a custom-status project: the project's lanes in order, with counts", async () => {
    const { page } = await signInAs('agent', `/board?project=${project.slug}`);
    await page.locator('[data-board-ready]').waitFor();
    const headings = await page.locator('.lane-title').allTextContents();
    expect(headings.map((text) => text.replace(/\d+$/, '').trim())).to.deep.equal([
      'Triage',
      'Doing',
      'In review',
      'Done',
    ]);
    expect(await page.locator('.lane-title .count').allTextContents()).to.deep.equal(['5', '0', '0', '0']);
    expect(await laneNumbers(page, 'triage')).to.have.length(5);
    await expectAccessible(page);
    await screenshot(page, 'board');
  });

  it('fits a 375 px phone in the dark theme, accessibly', async () => {
    const { page } = await signInAs('agent', `/board?project=${project.slug}`, {
      width: 375,
      height: 740,
      colorScheme: 'dark',
    });
    await page.locator('[data-board-ready]').waitFor();
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    expect(overflow, 'no sideways scrolling').to.be.at.most(0);
    const background = await page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
    expect(background, 'the dark theme follows the system').to.equal('rgb(17, 20, 24)');
    await expectAccessible(page);
    await screenshot(page, 'board-phone-dark');
  });

  it('moves a ticket across lanes by drag and drop; after a reload it is still there', async () => {
    const { page } = await signInAs('agent', `/board?project=${project.slug}`);
    await page.locator('[data-board-ready]').waitFor();
    const card = page.locator('ol[data-lane="triage"] .card').first();
    const ticketId = Number(await card.getAttribute('data-id'));
    const number = await card.locator('.card-number').textContent();
    const saved = moveSaved(page);
    await dragWithMouse(page, card.locator('.card-number'), page.locator('ol[data-lane="doing"]'));
    expect((await saved).status()).to.equal(200);
    expect(await laneNumbers(page, 'doing')).to.deep.equal([number]);
    await screenshot(page, 'board-after-drag');

    await page.reload();
    await page.locator('[data-board-ready]').waitFor();
    expect(await laneNumbers(page, 'doing')).to.deep.equal([number]);
    expect(await laneOfTicketOnServer(ticketId)).to.equal('doing');
  });

  it('moves a ticket with the keyboard "Move" menu, and within a lane; both survive a reload', async () => {
    const { page } = await signInAs('agent', `/board?project=${project.slug}`);
    await page.locator('[data-board-ready]').waitFor();
    const before = await laneNumbers(page, 'triage');
    const number = before[0]!;
    await page.getByRole('button', { name: `Move ${number}` }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: `Move ${number} to…` });
    await dialog.waitFor();
    await screenshot(page, 'board-move-menu');
    await dialog.getByRole('button', { name: 'In review' }).focus();
    const moved = moveSaved(page);
    await page.keyboard.press('Enter');
    expect((await moved).status()).to.equal(200);
    expect(await laneNumbers(page, 'review')).to.deep.equal([number]);

    // Within a lane: the first of triage goes down one place.
    const [first, second] = await laneNumbers(page, 'triage');
    await page.getByRole('button', { name: `Move ${first}` }).click();
    const reordered = moveSaved(page);
    await page.getByRole('button', { name: 'Down in Triage' }).click();
    expect((await reordered).status()).to.equal(200);
    expect((await laneNumbers(page, 'triage')).slice(0, 2)).to.deep.equal([second, first]);

    await page.reload();
    await page.locator('[data-board-ready]').waitFor();
    expect(await laneNumbers(page, 'review')).to.deep.equal([number]);
    expect((await laneNumbers(page, 'triage')).slice(0, 2)).to.deep.equal([second, first]);
  });

  it('shows a viewer no write controls, and the server refuses a forged write (403)', async () => {
    const { page } = await signInAs('viewer', `/board?project=${project.slug}`);
    await page.locator('[data-board-ready]').waitFor();
    expect(await page.locator('.card').count()).to.be.greaterThan(0);
    expect(await page.getByRole('button', { name: /^Move / }).count()).to.equal(0);
    expect(await page.locator('.lane-cards[class*="sortable"], .card[draggable="true"]').count()).to.equal(0);
    await screenshot(page, 'board-viewer');

    const ticketId = Number(await page.locator('.card').first().getAttribute('data-id'));
    const forged = await page.evaluate(
      async ({ id, projectId }) => {
        const token = ((await (await fetch('/api/csrf-token')).json()) as { data: { token: string } }).data
          .token;
        const response = await fetch(`/api/tickets/${id}/status?project_id=${projectId}`, {
          method: 'PATCH',
          headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': token },
          body: JSON.stringify({ status: 'done' }),
        });
        return { status: response.status, body: (await response.json()) as { error?: { message: string } } };
      },
      { id: ticketId, projectId: project.id },
    );
    expect(forged.status).to.equal(403);
    expect(forged.body.error?.message).to.not.equal('Invalid CSRF token');
    expect(await laneOfTicketOnServer(ticketId)).to.not.equal('done');
  });

  it('first load: JavaScript and CSS under 150 KB compressed; reports the time to a board of 200 tickets', async () => {
    const big = await createProject({ statuses: STATUSES });
    const bigTypeId = (await createTicketType(big.slug, { isDefault: true })).id;
    const key = (await createKey({ project: big.slug })).key;
    for (let start = 0; start < 200; start += 20) {
      await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          createTicket(key, { ticket_type_id: bigTypeId, title: `Load ticket ${start + index + 1}` }),
        ),
      );
    }
    const { page } = await signInAs('agent');
    // A fresh context: nothing cached.
    const fresh = await newPage();
    await fresh.context.addCookies(await page.context().cookies());
    let assetBytes = 0;
    fresh.page.on('response', (response) => {
      if (!/\/assets\/app-[^/]+\.(js|css)$/.test(response.url())) return;
      assetBytes += Number(response.headers()['content-length'] ?? 0);
      expect(response.headers()['content-encoding']).to.equal('gzip');
    });
    const started = Date.now();
    await fresh.page.goto(`/board?project=${big.slug}`);
    await fresh.page.locator('[data-board-ready]').waitFor();
    await fresh.page.locator('.card').nth(199).waitFor();
    const elapsed = Date.now() - started;
    expect(await fresh.page.locator('.card').count()).to.equal(200);
    console.log(
      `      console first load: ${(assetBytes / 1024).toFixed(1)} KB of JS+CSS (gzip); ` +
        `board with 200 tickets rendered in ${elapsed} ms`,
    );
    expect(assetBytes).to.be.greaterThan(0);
    expect(assetBytes).to.be.lessThan(150 * 1024);
    await screenshot(fresh.page, 'board-200-tickets');
  });
});

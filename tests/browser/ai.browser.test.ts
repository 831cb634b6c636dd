/**
 * The console's assistant screens in Debian's Chromium against the real fleet: a
 * suggested reply with its source tickets, inserted into the composer; the kill switch thrown and
 * cleared, as the agents' availability shows; an action of the assistant reverted from the audit
 * queue (the ticket's priority comes back), and a revert refused for a later change that an admin
 * forces; the guardrail form's field errors, conflict dialog and threshold preview; the activity
 * feed's "new" banner within one poll interval, from one polling tab; each role's navigation; axe
 * on every screen; screenshots.
 */
import { expect } from 'chai';
import { eventually } from '@tix/kit/testing';
import type { Page, Request } from 'playwright-core';
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
import { signIn, type BrowserSession } from '../support/session.js';

const PASSWORD = 'an assistant console passphrase';
const ROLES: Role[] = ['admin', 'team_lead', 'agent', 'viewer'];
const ARRIVAL_MS = 30_000;
/** The gateway's X-Poll-Interval (gateway/src/http/polling.ts: a constant, no env setting). */
const POLL_INTERVAL_MS = 10_000;
/** A poll is scheduled right after the previous answer; allow the request and a render on top. */
const POLL_SLACK_MS = 2_500;

interface Ticket {
  id: number;
  ticket_number: string;
  version: number;
  priority: string;
}

interface Action {
  id: number;
  ticket_id: number;
  status: string;
  before: Record<string, unknown>;
  after: Record<string, unknown>;
}

describe('the assistant in the console', function () {
  this.timeout(300_000);
  const suite = consoleSuite({
    async beforeCheck(test, open) {
      // A failed scenario leaves a picture of each page it had open, to see what the console showed.
      if (test?.state === 'failed') {
        for (const [index, watched] of open.entries()) {
          await screenshot(watched.page, `failed-${test.title.slice(0, 40)}-${index}`).catch(() => '');
        }
        // And what the page and the assistant said, for a run whose screenshots are gone (CI's).
        await reportState(open).catch((error: unknown) => console.error('no state to report:', error));
      }
    },
  });
  let project: ProjectFixture;
  let typeId: number;
  let customerKey: string;
  let agentKey: string;
  let admin: BrowserSession;
  let agent: BrowserSession;
  const users = {} as Record<Role, { id: number; email: string }>;
  const resolvedIds: number[] = [];

  const inProject = (route: string) => `${route}${route.includes('?') ? '&' : '?'}project=${project.slug}`;

  const signInAs = (role: Role, path: string, options?: PageOptions) =>
    suite.signIn({ email: users[role].email, password: PASSWORD }, path, options);

  const fileCheckoutFailure = (suffix: string) =>
    createTicket<Ticket>(customerKey, {
      ticket_type_id: typeId,
      title: `Checkout fails with card declined ${suffix}`,
      description: 'Every card is declined at checkout and customers cannot pay for their orders.',
    });

  const getTicket = async (id: number): Promise<Ticket> => {
    const response = await request(`/v1/tickets/${id}`, { key: agentKey });
    expect(response.status, response.text).to.equal(200);
    return response.body.data.ticket as Ticket;
  };

  /** The assistant's action on `ticket`, once it has taken one. */
  const actionOn = (ticket: Ticket) =>
    eventually(async () => {
      const response = await agent.call('GET', inProject(`/ai/autonomous-actions?ticket_id=${ticket.id}`));
      const actions = response.status === 200 ? (response.body.data.actions as Action[]) : [];
      return actions.length === 1 && actions[0]!.status !== 'executing' ? actions[0]! : undefined;
    }, ARRIVAL_MS * 2);

  before(async () => {
    project = await createProject();
    typeId = (await createTicketType(project.slug, { isDefault: true })).id;
    customerKey = (await createKey({ project: project.slug })).key;
    agentKey = (await createKey({ project: project.slug })).key;
    for (const role of ROLES) users[role] = await createUser(role, { password: PASSWORD });
    admin = await signIn(users.admin.email, PASSWORD);
    agent = await signIn(users.agent.email, PASSWORD);

    // Resolved history: checkout failures were high priority and answered with a public reply.
    const resolve = async (body: Record<string, unknown>, reply: string) => {
      const ticket = await createTicket<Ticket>(customerKey, { ticket_type_id: typeId, ...body });
      await createComment(agentKey, ticket.id, { content: reply, is_internal: false });
      const closed = await request(`/v1/tickets/${ticket.id}/status`, {
        method: 'PATCH',
        key: agentKey,
        body: { status: 'closed', resolution_type: 'resolved' },
      });
      expect(closed.status, closed.text).to.equal(200);
      resolvedIds.push(ticket.id);
    };
    for (let i = 0; i < 8; i += 1) {
      await resolve(
        {
          title: `Checkout fails with card declined (${i})`,
          description: 'Every card is declined at checkout and customers cannot pay for their orders.',
          priority: 'high',
        },
        'Our payment provider had an outage; card payments work again, please retry your order.',
      );
      await resolve(
        {
          title: `Invoice shows the wrong VAT number (${i})`,
          description: 'Our invoice lists an old VAT number for the company.',
          priority: 'low',
        },
        'We corrected the VAT number; the new invoice is in your account.',
      );
    }
    await eventually(async () => {
      const response = await agent.call('GET', inProject('/ai/suggest-reply/availability'));
      return response.status === 200 && response.body.data.corpus.resolved_tickets === 16;
    }, ARRIVAL_MS);

    const { autonomy } = (await admin.call('GET', inProject('/ai/autonomy'))).body.data;
    const updated = await admin.call('PUT', inProject('/ai/autonomy/guardrails'), {
      version: autonomy.guardrails.version,
      actions: { set_priority: { mode: 'auto', threshold: 0.5 } },
      review: { sample_rate: 1 },
      auto_pause: { min_actions: 1000 },
    });
    expect(updated.status, updated.text).to.equal(200);
  });

  async function reportState(open: WatchedPage[]) {
    for (const { page } of open) {
      const text = await page
        .locator('main')
        .innerText({ timeout: 1_000 })
        .catch(() => '(no main)');
      console.error(`page ${page.url()}: ${text.replace(/\s+/g, ' ').slice(0, 400)}`);
    }
    const asked = async (path: string) => {
      const started = Date.now();
      const response = await admin.call('GET', inProject(path));
      return `${path} ${response.status} in ${Date.now() - started} ms: ${response.text.slice(0, 600)}`;
    };
    console.error(await asked('/ai/autonomy'));
    console.error(await asked('/ai/autonomous-actions?per_page=5'));
    console.error(await asked('/ai/suggest-reply/availability'));
    console.error(`processes that exited: ${JSON.stringify(fleet().crashes)}`);
  }

  after(async () => {
    await admin?.call('POST', inProject('/ai/autonomy/clear-kill'), { reason: 'ai browser test cleanup' });
  });

  it('suggests a reply with links to its source tickets and inserts it into the composer', async () => {
    const ticket = await fileCheckoutFailure('for a reply');
    const { page } = await signInAs('agent', inProject(`/assistant?ticket=${ticket.id}`));
    const panel = page.getByRole('complementary', { name: 'Assistant' });
    await panel.getByText('Suggestions available').waitFor();
    const quotaBefore = Number(
      await panel.locator('[data-quota-remaining]').getAttribute('data-quota-remaining'),
    );

    await panel.getByRole('button', { name: 'Suggest reply' }).click();
    const suggestion = panel.locator('.ai-suggestion');
    await suggestion.waitFor();
    const text = (await suggestion.locator('.ai-suggestion-text').textContent())!;
    expect(text).to.contain('payment provider');
    const hrefs = await suggestion
      .locator('.ai-sources a')
      .evaluateAll((links) => links.map((link) => link.getAttribute('href') ?? ''));
    const sources = hrefs.map((href) => Number(href.split('/').pop()));
    expect(sources.length).to.be.greaterThan(0);
    for (const id of sources) expect(resolvedIds).to.include(id);
    await expectAccessible(page);
    await screenshot(page, 'assistant-suggested-reply');

    await panel.getByRole('button', { name: 'Insert into composer' }).click();
    expect(await page.getByLabel('Reply draft').inputValue()).to.equal(text);
    await eventually(async () => {
      const remaining = await panel.locator('[data-quota-remaining]').getAttribute('data-quota-remaining');
      return Number(remaining) === quotaBefore - 1;
    }, 5_000);
  });

  /** Waits until the assistant has recorded its predictions for `ticket`. */
  const predicted = (ticket: Ticket) =>
    eventually(async () => {
      const response = await agent.call('GET', inProject(`/ai/predictions?ticket_id=${ticket.id}`));
      return response.status === 200 && response.body.data.predictions.length > 0;
    }, ARRIVAL_MS * 2);

  /** A ticket filed with `priority`, once predicted, open as the agent, and its Assistant panel. */
  async function openPredicted(title: string, description: string, priority: string) {
    const ticket = await createTicket<Ticket>(customerKey, {
      ticket_type_id: typeId,
      title,
      description,
      priority,
    });
    await predicted(ticket);
    const { page } = await signInAs('agent', inProject(`/tickets/${ticket.id}`));
    return { ticket, page, panel: page.getByRole('complementary', { name: 'Assistant' }) };
  }

  it('in the ticket view: inserts a suggested reply into the composer and applies a prediction in one click', async () => {
    // A checkout failure filed as low: the assistant predicts high, which it does not set itself on a
    // priority chosen when filed, so it stays a prediction for a person to apply.
    const { ticket, page, panel } = await openPredicted(
      'Checkout fails with card declined, filed as low',
      'Every card is declined at checkout and customers cannot pay for their orders.',
      'low',
    );
    await panel.getByRole('button', { name: 'Suggest reply' }).click();
    const suggestion = panel.locator('.ai-suggestion');
    await suggestion.waitFor();
    const text = (await suggestion.locator('.ai-suggestion-text').textContent())!;
    expect(await suggestion.locator('.ai-sources a').count()).to.be.greaterThan(0);
    await panel.getByRole('button', { name: 'Insert into composer' }).click();
    const composer = page.getByRole('form', { name: 'Add a comment' }).locator('textarea');
    expect(await composer.inputValue()).to.contain(text);

    const apply = panel.getByRole('button', { name: 'Apply: Priority high' });
    await apply.click();
    await panel.locator('.ai-outcome').first().waitFor();
    expect((await getTicket(ticket.id)).priority).to.equal('high');
    await expectAccessible(page);
    await screenshot(page, 'ticket-assistant-panel');
  });

  it('does not offer a lower priority on a High ticket: the assistant never lowers one on its own', async () => {
    // A VAT ticket filed as high: the assistant predicts low, which never_downgrade holds back.
    const { ticket, page, panel } = await openPredicted(
      'Invoice shows the wrong VAT number, filed as high',
      'Our invoice lists an old VAT number for the company.',
      'high',
    );
    const lower = panel
      .locator('.ai-prediction')
      .filter({ has: page.locator('strong', { hasText: 'Priority low' }) });
    await lower.waitFor();
    expect(await lower.locator('[data-held-back]').textContent()).to.equal(
      'The assistant does not lower a priority on its own.',
    );
    expect(await lower.getByRole('button').count(), 'no Apply for it').to.equal(0);
    expect(await panel.getByRole('button', { name: 'Apply: Priority low' }).count()).to.equal(0);
    expect((await getTicket(ticket.id)).priority).to.equal('high');
    await expectAccessible(page);
  });

  it('searches tickets and answers a question from resolved tickets, accessibly', async () => {
    const { page } = await signInAs('agent', inProject('/assistant'));
    await page.getByRole('searchbox', { name: 'Words or a ticket number' }).fill('VAT number');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('.assistant-result').first().waitFor();
    expect(await page.locator('.assistant-snippet mark').count()).to.be.greaterThan(0);

    await page
      .getByRole('searchbox', { name: 'Question, in plain words' })
      .fill('Why is every card declined at checkout?');
    await page.getByRole('button', { name: 'Ask' }).click();
    await page.locator('.assistant-answer').waitFor();
    expect(await page.locator('.assistant-answer .ai-sources a').count()).to.be.greaterThan(0);
    await expectAccessible(page);
    await screenshot(page, 'assistant-search-and-ask');
  });

  it('throws the kill switch and clears it: the agents see it in availability, the feed lists both', async () => {
    const ticket = await fileCheckoutFailure('during a kill');
    const { page } = await signInAs('admin', inProject('/admin/kill-switch'));
    await page.locator('[data-kill-active="false"]').waitFor();
    await expectAccessible(page);
    await page.getByLabel('Reason').fill('Priorities look wrong today');
    await page.getByRole('button', { name: 'Stop the assistant' }).click();
    await page.locator('[data-kill-active="true"]').waitFor();
    expect(await page.locator('.kill-state').textContent()).to.contain('Priorities look wrong today');
    await screenshot(page, 'kill-switch-on');

    const agentPage = (await signInAs('agent', inProject(`/assistant?ticket=${ticket.id}`))).page;
    await agentPage.locator('[data-autonomy="killed"]').waitFor();
    expect(await agentPage.getByText('stopped by the kill switch').count()).to.equal(1);

    await page.getByLabel('Reason').fill('Fixed the priority rules');
    await page.getByRole('button', { name: 'Resume the assistant' }).click();
    await page.locator('[data-kill-active="false"]').waitFor();
    await agentPage.reload();
    await agentPage.locator('[data-autonomy="active"]').waitFor();

    await page.goto(inProject('/activity?type=ai.*'));
    await page.locator('[data-activity-ready]').waitFor();
    const summaries = await page.locator('.activity-summary').allTextContents();
    expect(summaries.some((summary) => /activated the assistant's kill switch/.test(summary))).to.equal(true);
    expect(summaries.some((summary) => /cleared the assistant's kill switch/.test(summary))).to.equal(true);
    await screenshot(page, 'activity-autonomy-entries');
  });

  it("reverts the assistant's action from the audit queue: the ticket's priority comes back", async () => {
    const filed = await fileCheckoutFailure('to revert');
    expect(filed.priority).to.equal('medium');
    const action = await actionOn(filed);
    expect(action.after).to.deep.equal({ priority: 'high' });
    expect((await getTicket(filed.id)).priority).to.equal('high');

    const { page } = await signInAs('team_lead', inProject('/audit-queue'));
    const card = page.locator(`[data-action-id="${action.id}"]`);
    await card.waitFor();
    const pendingBefore = Number(await page.locator('[data-count="pending_review"]').textContent());
    await expectAccessible(page);
    await screenshot(page, 'audit-queue');

    await card.getByRole('button', { name: 'Revert' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Reason (optional)').fill('Not urgent: one customer');
    await dialog.getByRole('button', { name: 'Revert', exact: true }).click();
    await card.waitFor({ state: 'detached' });
    expect((await getTicket(filed.id)).priority).to.equal('medium');
    await eventually(
      async () =>
        Number(await page.locator('[data-count="pending_review"]').textContent()) === pendingBefore - 1,
      5_000,
    );
  });

  it('shows why a revert is refused after a later change, and lets an admin force it', async () => {
    const filed = await fileCheckoutFailure('changed since');
    const action = await actionOn(filed);
    const acted = await getTicket(filed.id);
    const edited = await request(`/v1/tickets/${filed.id}`, {
      method: 'PUT',
      key: agentKey,
      body: { priority: 'critical', version: acted.version },
    });
    expect(edited.status, edited.text).to.equal(200);

    const { page } = await signInAs('admin', inProject('/audit-queue'));
    const card = page.locator(`[data-action-id="${action.id}"]`);
    await card.getByRole('button', { name: 'Revert' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Revert', exact: true }).click();
    const refusal = dialog.getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.textContent()).to.match(/Ticket was changed after this action.*priority/);
    await screenshot(page, 'audit-queue-revert-refused');
    await dialog.getByRole('button', { name: 'Force revert' }).click();
    await card.waitFor({ state: 'detached' });
    expect((await getTicket(filed.id)).priority).to.equal('medium');
  });

  it('edits the guardrails: field errors by dotted path, the conflict dialog, the threshold preview', async () => {
    const { page } = await signInAs('admin', inProject('/admin/guardrails'));
    const chart = page.locator('svg.preview-chart');
    await chart.waitFor();
    expect(await page.locator('.preview-curve tbody tr').count()).to.be.greaterThan(5);
    const source = await page.locator('[data-preview-source]').getAttribute('data-preview-source');
    if (source === 'backtest') expect(await page.locator('.preview-backtest-label').count()).to.equal(1);
    await expectAccessible(page);
    await screenshot(page, 'guardrails');

    // 422: below send_reply's floor; the message sits beside that field.
    const sendReplyThreshold = page.locator('[data-path="actions.send_reply.threshold"]');
    await sendReplyThreshold.getByRole('spinbutton').fill('0.5');
    await page.getByRole('button', { name: 'Save guardrails' }).click();
    await sendReplyThreshold.locator('.field-errors').waitFor();
    expect(await sendReplyThreshold.locator('.field-errors').textContent()).to.contain(
      'between 0.9 and 0.99',
    );
    await sendReplyThreshold.getByRole('spinbutton').fill('0.95');

    // 409: someone else saves first; mine is re-applied on top of theirs.
    const { autonomy } = (await admin.call('GET', inProject('/ai/autonomy'))).body.data;
    const theirs = await admin.call('PUT', inProject('/ai/autonomy/guardrails'), {
      version: autonomy.guardrails.version,
      limits: { max_actions_per_hour: 40 },
    });
    expect(theirs.status, theirs.text).to.equal(200);
    await page.locator('[data-path="limits.max_actions_per_ticket"]').getByRole('spinbutton').fill('5');
    await page.getByRole('button', { name: 'Save guardrails' }).click();
    const conflict = page.getByRole('dialog', { name: 'The guardrails changed' });
    await conflict.waitFor();
    await screenshot(page, 'guardrails-conflict');
    await conflict.getByRole('button', { name: 'Apply mine on top' }).click();
    await page.getByText('Guardrails saved.').waitFor();
    const saved = (await admin.call('GET', inProject('/ai/autonomy'))).body.data.autonomy.guardrails;
    expect(saved.limits).to.deep.equal({ max_actions_per_hour: 40, max_actions_per_ticket: 5 });
    expect(saved.actions.send_reply.threshold).to.equal(0.95);
    expect(saved.version).to.equal(autonomy.guardrails.version + 2);
  });

  it('shows the "new" banner within one poll interval, polled by one tab for all of them', async () => {
    const first = await signInAs('agent', inProject('/activity'));
    await first.page.locator('[data-activity-ready]').waitFor();
    // A second tab of the same browser (same storage, same session).
    const secondTab = await first.context.newPage();
    const secondErrors: string[] = [];
    secondTab.on('pageerror', (error) => secondErrors.push(error.message));
    await secondTab.goto(inProject('/activity'));
    await secondTab.locator('[data-activity-ready]').waitFor();
    const feeds = [first.page, secondTab];
    await eventually(async () => {
      const roles = await Promise.all(
        feeds.map((page) => page.locator('[data-poll-role]').getAttribute('data-poll-role')),
      );
      return roles.sort().join() === 'follower,leader';
    }, 10_000);
    const polls = new Map<Page, number>(feeds.map((page) => [page, 0]));
    for (const page of feeds) {
      page.on('request', (sent: Request) => {
        if (new URL(sent.url()).pathname === '/api/activity/new') polls.set(page, polls.get(page)! + 1);
      });
    }
    await expectAccessible(first.page);

    const created = await createTicket<Ticket>(agentKey, { ticket_type_id: typeId, title: 'A fresh ticket' });
    const started = Date.now();
    await Promise.all(
      feeds.map((page) =>
        page.locator('.activity-banner').waitFor({ timeout: POLL_INTERVAL_MS + POLL_SLACK_MS }),
      ),
    );
    const waitedMs = Date.now() - started;
    console.log(
      `      the banner appeared ${waitedMs} ms after the write (poll interval ${POLL_INTERVAL_MS} ms)`,
    );
    expect(
      [...polls.values()].filter((count) => count > 0),
      'one tab polls',
    ).to.have.length(1);
    await screenshot(first.page, 'activity-banner');

    await first.page.locator('.activity-banner').click();
    const fresh = first.page.locator('.activity-fresh');
    await fresh.first().waitFor();
    expect(await fresh.first().textContent()).to.contain(created.ticket_number);
    await expectAccessible(first.page);
    await screenshot(first.page, 'activity-new-entries');
    expect(secondErrors).to.deep.equal([]);
  });

  it('shows each role only what it may use: no admin for agents, the queue for team leads', async () => {
    const expectations: Record<Role, { queue: boolean; admin: boolean; assistant: boolean }> = {
      admin: { queue: true, admin: true, assistant: true },
      team_lead: { queue: true, admin: false, assistant: true },
      agent: { queue: false, admin: false, assistant: true },
      viewer: { queue: false, admin: false, assistant: false },
    };
    for (const role of ROLES) {
      const { page } = await signInAs(role, inProject('/activity'));
      const nav = page.getByRole('navigation', { name: 'Main' });
      const wanted = expectations[role];
      expect(await nav.getByRole('link', { name: 'Audit queue' }).count(), role).to.equal(
        wanted.queue ? 1 : 0,
      );
      expect(await nav.getByRole('link', { name: 'Guardrails' }).count(), role).to.equal(
        wanted.admin ? 1 : 0,
      );
      expect(await nav.getByRole('link', { name: 'Kill switch' }).count(), role).to.equal(
        wanted.admin ? 1 : 0,
      );
      expect(await nav.getByRole('link', { name: 'Assistant' }).count(), role).to.equal(
        wanted.assistant ? 1 : 0,
      );
      if (!wanted.admin) {
        await page.goto(inProject('/admin/kill-switch'));
        await page.getByText('Your role does not give access to this page.').waitFor();
        expect(await page.getByRole('button', { name: 'Stop the assistant' }).count()).to.equal(0);
      }
      if (role === 'team_lead') {
        await page.goto(inProject('/audit-queue?status=all'));
        await page.locator('[data-queue-ready]').waitFor();
        expect(await page.getByRole('button', { name: 'Revert' }).count()).to.be.greaterThan(0);
      }
    }
  });

  it('fits the activity feed and the audit queue on a 375 px phone in the dark theme', async () => {
    for (const path of ['/activity', '/audit-queue?status=all']) {
      const { page } = await signInAs('admin', inProject(path), {
        width: 375,
        height: 740,
        colorScheme: 'dark',
      });
      await page.locator('[data-activity-ready], [data-queue-ready]').first().waitFor();
      const overflow = await page.evaluate<number>(
        'document.documentElement.scrollWidth - window.innerWidth',
      );
      expect(overflow, `no sideways scrolling on ${path}`).to.be.at.most(0);
      await expectAccessible(page);
      await screenshot(page, `phone-dark-${path.slice(1).split('?')[0]}`);
    }
  });

  it('reverts a ticket closed as a duplicate from the audit queue: it is back in its lane, at its place', async () => {
    const guardrails = async (actions: Record<string, unknown>) => {
      const { autonomy } = (await admin.call('GET', inProject('/ai/autonomy'))).body.data;
      const updated = await admin.call('PUT', inProject('/ai/autonomy/guardrails'), {
        version: autonomy.guardrails.version,
        actions,
      });
      expect(updated.status, updated.text).to.equal(200);
    };
    const file = (title: string) =>
      createTicket<Ticket>(customerKey, { ticket_type_id: typeId, title, description: 'At the office.' });
    // Only here may the assistant close duplicates: the other scenarios' tickets look alike.
    await guardrails({ close_duplicate: { mode: 'auto', threshold: 0.5 } });
    try {
      const original = await file('The printer on the third floor jams every sheet');
      const duplicate = await file('The printer on the third floor jams every sheet again');
      const action = await actionOn(duplicate);
      expect(action.after).to.deep.equal({ merged_into_id: original.id });
      const later = await file('Badge reader at the garage door is dead');

      const { page } = await signInAs('team_lead', inProject('/board'));
      const openLane = () => page.locator('ol[data-lane="open"] .card-number').allTextContents();
      await page.locator('ol[data-lane="open"] .card-number', { hasText: later.ticket_number }).waitFor();
      const merged = await openLane();
      expect(merged).to.not.include(duplicate.ticket_number);
      expect(merged.indexOf(original.ticket_number)).to.be.below(merged.indexOf(later.ticket_number));

      await page.goto(inProject('/audit-queue'));
      const card = page.locator(`[data-action-id="${action.id}"]`);
      await card.getByRole('button', { name: 'Revert' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Revert', exact: true }).click();
      await card.waitFor({ state: 'detached' });

      await page.goto(inProject('/board'));
      await page.locator('ol[data-lane="open"] .card-number', { hasText: duplicate.ticket_number }).waitFor();
      const restored = await openLane();
      // Back where it stood among the tickets that were in the lane with it (filed after all of them);
      // the ticket filed since keeps its place too (where it falls against the restored one is the
      // order of their ranks: a lane's exact revert says nothing of tickets it never held).
      const without = (numbers: string[], gone: string) => numbers.filter((number) => number !== gone);
      expect(without(restored, later.ticket_number)).to.deep.equal([
        ...without(merged, later.ticket_number),
        duplicate.ticket_number,
      ]);
      expect(without(restored, duplicate.ticket_number)).to.deep.equal(merged);
      await screenshot(page, 'board-after-duplicate-revert');
    } finally {
      await guardrails({ close_duplicate: { mode: 'off' } });
    }
  });

  it("words the panel's predictions as a person reads them: the assignee's name, a drafted note's text", async () => {
    const { data: before } = (await agent.call('GET', inProject('/ai/suggest-reply/availability'))).body;
    const reply = 'Replace the HDMI cable of the projector; the flicker stops at once.';
    for (let i = 0; i < 6; i += 1) {
      const ticket = await createTicket<Ticket>(customerKey, {
        ticket_type_id: typeId,
        title: `The projector in meeting room Orion flickers (${i})`,
        description: 'The projector in meeting room Orion flickers every few minutes during calls.',
        assigned_to: users.agent.id,
      });
      await createComment(agentKey, ticket.id, { content: reply, is_internal: false });
      const closed = await request(`/v1/tickets/${ticket.id}/status`, {
        method: 'PATCH',
        key: agentKey,
        body: { status: 'closed', resolution_type: 'resolved' },
      });
      expect(closed.status, closed.text).to.equal(200);
    }
    await eventually(async () => {
      const response = await agent.call('GET', inProject('/ai/suggest-reply/availability'));
      return response.body.data?.corpus.resolved_tickets >= before.corpus.resolved_tickets + 6;
    }, ARRIVAL_MS);
    const ticket = await createTicket<Ticket>(customerKey, {
      ticket_type_id: typeId,
      title: 'The projector in meeting room Orion flickers again',
      description: 'The projector in meeting room Orion flickers every few minutes during calls.',
    });
    await eventually(async () => {
      const response = await agent.call('GET', inProject(`/ai/predictions?ticket_id=${ticket.id}`));
      const types = ((response.body.data?.predictions ?? []) as { action_type: string }[]).map(
        (prediction) => prediction.action_type,
      );
      return types.includes('assign') && types.includes('post_internal_note');
    }, ARRIVAL_MS * 2);

    const { page } = await signInAs('agent', inProject(`/tickets/${ticket.id}`));
    const panel = page.getByRole('complementary', { name: 'Assistant' });
    const prediction = (starts: string) =>
      panel.locator('.ai-prediction').filter({ has: page.locator('strong', { hasText: starts }) });
    const name = `User ${users.agent.email}`;
    const assign = prediction('Assign to');
    await assign.waitFor();
    expect(await assign.locator('strong').textContent()).to.equal(`Assign to ${name}`);
    const rationale = (await assign.locator('p.muted').textContent())!;
    expect(rationale, 'the person by name').to.contain(`resolved by ${name}`);
    expect(rationale, 'no user id').to.not.match(/user \d/i);

    const note = (await prediction('Post an internal note').textContent())!;
    expect(note, 'the drafted text').to.contain('HDMI cable');
    expect(note, 'no field name in the text').to.not.match(/\bcontent\b/);
    await expectAccessible(page);
    await screenshot(page, 'ticket-assistant-predictions');
  });
});

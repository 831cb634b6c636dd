/**
 * The assistant acting on its own through the fleet (docs/assistant.md, "When it acts"): resolved
 * history written through the API teaches it that checkout failures are high priority; an admin
 * turns set_priority to auto; a new ticket filed without a priority is then raised by the
 * assistant, as its system user, the action named in the ticket's history; a team lead reverts it
 * exactly; a person's edit in between makes the revert a 409 naming the field, who changed it and
 * when (an admin may force it); the kill switch stops every new action while tickets keep arriving,
 * and clear-kill resumes; each route keeps to its roles.
 */
import { expect } from 'chai';
import { eventually } from '@tix/kit/testing';
import {
  createComment,
  createKey,
  createProject,
  createTicket,
  createTicketType,
  createUser,
  type ProjectFixture,
} from '../support/fixtures.js';
import pg from 'pg';
import { serviceDatabaseVariable } from '@tix/protos';
import { fleet } from '../support/fleet.js';
import { request, type ApiResponse } from '../support/http.js';
import { signIn, type BrowserSession } from '../support/session.js';

const PASSWORD = 'autonomous actions e2e passphrase';
const ARRIVAL_MS = 30_000;
/** Tickets filed while the kill switch is thrown (the figure). */
const FILED_DURING_KILL = 200;

interface Ticket {
  id: number;
  version: number;
  priority: string;
  updated_by: number | null;
  updated_at: string;
  [field: string]: unknown;
}

interface Action {
  id: number;
  irreversible_effects: string[];
  ticket_id: number;
  action_type: string;
  status: string;
  before: Record<string, unknown>;
  after: Record<string, unknown>;
  created_at: string;
}

describe('autonomous actions through the fleet', function () {
  this.timeout(300_000);
  let project: ProjectFixture;
  let typeId: number;
  let customerKey: string;
  let agentKey: string;
  let admin: BrowserSession;
  let lead: BrowserSession;
  let agent: BrowserSession;
  let assistantUserId: number;
  let leadId: number;

  const inProject = (route: string) => `${route}${route.includes('?') ? '&' : '?'}project=${project.slug}`;
  const data = (response: ApiResponse) => {
    expect(response.status, response.text).to.equal(200);
    return response.body.data;
  };

  const getTicket = async (id: number, key = agentKey): Promise<Ticket> =>
    data(await request(`/v1/tickets/${id}`, { key })).ticket as Ticket;

  const fileCheckoutFailure = (suffix: string) =>
    createTicket<Ticket>(customerKey, {
      ticket_type_id: typeId,
      title: `Checkout fails with card declined ${suffix}`,
      description: 'Every card is declined at checkout and customers cannot pay for their orders.',
    });

  /** The project's actions on `ticket`, once the assistant has taken one (after a backlog, it waits longer). */
  const actionOn = (ticket: Ticket, waitMs = ARRIVAL_MS) =>
    eventually(async () => {
      const response = await agent.call('GET', inProject(`/ai/autonomous-actions?ticket_id=${ticket.id}`));
      const actions = response.status === 200 ? (response.body.data.actions as Action[]) : [];
      return actions.length === 1 && actions[0]!.status !== 'executing' ? actions[0]! : undefined;
    }, waitMs);

  /** The ai.action_* events of one action in the assistant's outbox, oldest first. */
  const actionEvents = async (actionId: number) => {
    const pool = new pg.Pool({ connectionString: fleet().env[serviceDatabaseVariable('ai')], max: 1 });
    try {
      const { rows } = await pool.query<{ payload: Record<string, any> }>(
        `SELECT payload FROM outbox_events
          WHERE event_type LIKE 'ai.action_%' AND (payload -> 'data' -> 'action' ->> 'id')::int = $1 ORDER BY seq`,
        [actionId],
      );
      return rows.map((row) => row.payload);
    } finally {
      await pool.end();
    }
  };

  /** Waits until the assistant recorded predictions for `ticket` (what it acts on). */
  const predicted = (ticket: Ticket) =>
    eventually(async () => {
      const response = await agent.call('GET', inProject(`/ai/predictions?ticket_id=${ticket.id}`));
      return response.status === 200 && response.body.data.predictions.length > 0;
    }, ARRIVAL_MS * 4);

  before(async () => {
    project = await createProject();
    typeId = (await createTicketType(project.slug, { isDefault: true })).id;
    customerKey = (await createKey({ project: project.slug })).key;
    agentKey = (await createKey({ project: project.slug })).key;
    admin = await signIn((await createUser('admin', { password: PASSWORD })).email, PASSWORD);
    const leadUser = await createUser('team_lead', { password: PASSWORD });
    leadId = leadUser.id;
    lead = await signIn(leadUser.email, PASSWORD);
    agent = await signIn((await createUser('agent', { password: PASSWORD })).email, PASSWORD);
    const users = data(await request('/v1/users', { key: agentKey })).users as {
      id: number;
      is_system: boolean;
    }[];
    assistantUserId = users.find((user) => user.is_system)!.id;

    // The history: checkout failures were high priority, a wrong VAT number low.
    const resolve = async (body: Record<string, unknown>) => {
      const ticket = await createTicket<Ticket>(customerKey, { ticket_type_id: typeId, ...body });
      await createComment(agentKey, ticket.id, {
        content: 'Fixed on our side, sorry for the trouble.',
        is_internal: false,
      });
      const closed = await request(`/v1/tickets/${ticket.id}/status`, {
        method: 'PATCH',
        key: agentKey,
        body: { status: 'closed', resolution_type: 'resolved' },
      });
      expect(closed.status, closed.text).to.equal(200);
    };
    for (let i = 0; i < 8; i += 1) {
      await resolve({
        title: `Checkout fails with card declined (${i})`,
        description: 'Every card is declined at checkout and customers cannot pay for their orders.',
        priority: 'high',
      });
      await resolve({
        title: `Invoice shows the wrong VAT number (${i})`,
        description: 'Our invoice lists an old VAT number for the company.',
        priority: 'low',
      });
    }
    await eventually(async () => {
      const response = await agent.call('GET', inProject('/ai/suggest-reply/availability'));
      return response.status === 200 && response.body.data.corpus.resolved_tickets === 16;
    }, ARRIVAL_MS);

    const { autonomy } = data(await admin.call('GET', inProject('/ai/autonomy')));
    const updated = await admin.call('PUT', inProject('/ai/autonomy/guardrails'), {
      version: autonomy.guardrails.version,
      actions: { set_priority: { mode: 'auto', threshold: 0.5 } },
      review: { sample_rate: 1 },
      // This suite reverts on purpose: the auto-pause must not stop the kill switch test's last action.
      auto_pause: { min_actions: 1000 },
    });
    expect(updated.status, updated.text).to.equal(200);
  });

  after(async () => {
    await admin?.call('POST', inProject('/ai/autonomy/clear-kill'), {
      reason: 'autonomous actions e2e cleanup',
    });
  });

  it('raises the priority of a new ticket as its own user, names the action in the history, and reverts it exactly', async () => {
    const filed = await fileCheckoutFailure('at payment');
    expect(filed.priority).to.equal('medium');
    const action = await actionOn(filed);
    expect(action).to.deep.include({
      action_type: 'set_priority',
      status: 'pending_review',
      before: { priority: 'medium' },
      after: { priority: 'high' },
    });

    const acted = await getTicket(filed.id);
    expect(acted).to.include({ priority: 'high', version: filed.version + 1, updated_by: assistantUserId });
    const entry = await eventually(async () => {
      const history = await agent.call('GET', inProject(`/tickets/${filed.id}/history`));
      const entries = history.status === 200 ? (history.body.data.activities as Record<string, any>[]) : [];
      return entries.find((candidate) => candidate.actor?.kind === 'ai');
    }, ARRIVAL_MS);
    expect(entry.actor).to.deep.include({
      user_id: assistantUserId,
      via: { type: 'ai_action', id: action.id },
    });
    expect(entry.changes).to.deep.equal({ priority: { from: 'medium', to: 'high' } });

    const reverted = await lead.call('POST', `/ai/audit-queue/${action.id}/revert`, {
      reason: 'Known issue',
    });
    expect(reverted.status, reverted.text).to.equal(200);
    expect(reverted.body.data.action).to.deep.include({ status: 'reverted', revert_reason: 'Known issue' });
    const after = await getTicket(filed.id);
    const { version, updated_at: updatedAt, updated_by: updatedBy, ...rest } = after;
    const { version: v0, updated_at: u0, updated_by: _b0, ...before } = filed;
    expect(rest, 'the ticket as filed, but version, updated_at and updated_by').to.deep.equal(before);
    expect(version).to.equal(v0 + 2);
    expect(updatedBy, 'the person who reverted it').to.equal(leadId);
    expect(updatedAt >= u0).to.equal(true);
    const revertEntry = await eventually(async () => {
      const history = await agent.call('GET', inProject(`/tickets/${filed.id}/history`));
      const entries = history.status === 200 ? (history.body.data.activities as Record<string, any>[]) : [];
      return entries.find((candidate) => candidate.actor?.via?.type === 'ai_revert');
    }, ARRIVAL_MS);
    expect(revertEntry.actor).to.deep.include({
      kind: 'user',
      user_id: leadId,
      via: { type: 'ai_revert', id: action.id },
    });
    expect(reverted.body.data.ticket).to.deep.equal(after);

    const again = await lead.call('POST', `/ai/audit-queue/${action.id}/revert`, {});
    expect(again.status, again.text).to.equal(409);
    expect(again.body.error?.message).to.equal('Action was already reverted');

    // Each step is an event in the assistant's outbox, written with the change, saying who.
    const events = await actionEvents(action.id);
    expect(events.map((event) => event.type)).to.deep.equal(['ai.action_executed', 'ai.action_reverted']);
    expect(events[0]!.actor).to.deep.equal({
      kind: 'ai',
      user_id: assistantUserId,
      api_key_id: null,
      via: { type: 'ai_action', id: action.id },
    });
    expect(events[0]!.data.action).to.deep.include({
      id: action.id,
      ticket_id: filed.id,
      action_type: 'set_priority',
      status: 'pending_review',
      after: { priority: 'high' },
    });
    expect(events[1]!.actor).to.deep.include({ kind: 'user', user_id: leadId });
    expect(events[1]!.data.action).to.deep.include({
      status: 'reverted',
      reverted_by: leadId,
      revert_reason: 'Known issue',
      forced: false,
    });
  });

  it('lets only one of two concurrent reverts of an action write; the other is 409', async () => {
    const filed = await fileCheckoutFailure('twice at once');
    const action = await actionOn(filed);
    const acted = await getTicket(filed.id);
    const answers = await Promise.all(
      [lead, admin].map((reviewer) => reviewer.call('POST', `/ai/audit-queue/${action.id}/revert`, {})),
    );
    expect(answers.map((answer) => answer.status).sort()).to.deep.equal([200, 409]);
    expect(answers.find((answer) => answer.status === 409)!.body.error?.message).to.equal(
      'Action was already reverted',
    );
    const after = await getTicket(filed.id);
    expect(after).to.include({ priority: 'medium', version: acted.version + 1 });
    expect(
      (await actionEvents(action.id)).filter((event) => event.type === 'ai.action_reverted'),
    ).to.have.length(1);
  });

  it("refuses to revert over a person's later edit, naming the field, who and when; an admin may force it", async () => {
    const filed = await fileCheckoutFailure('since this morning');
    const action = await actionOn(filed);
    const acted = await getTicket(filed.id);
    const edited = await request(`/v1/tickets/${filed.id}`, {
      method: 'PUT',
      key: agentKey,
      body: { priority: 'low', version: acted.version },
    });
    expect(edited.status, edited.text).to.equal(200);

    // The 409 names who changed the field once the assistant has seen that change; it writes nothing.
    const refusal = await eventually(async () => {
      const response = await lead.call('POST', `/ai/audit-queue/${action.id}/revert`, {});
      expect(response.status, response.text).to.equal(409);
      const message = (response.body.error?.validation_errors?.priority as string[] | undefined)?.[0];
      return message?.startsWith('changed to "low" by ')
        ? { error: response.body.error!, message }
        : undefined;
    }, ARRIVAL_MS);
    expect(refusal.error.message).to.equal('Ticket was changed after this action');
    expect(refusal.message).to.match(/^changed to "low" by User .+ at \d{4}-\d\d-\d\dT/);
    expect((await getTicket(filed.id)).priority).to.equal('low');

    const leadForce = await lead.call('POST', `/ai/audit-queue/${action.id}/revert`, { force: true });
    expect(leadForce.status, leadForce.text).to.equal(403);
    const forced = await admin.call('POST', `/ai/audit-queue/${action.id}/revert`, { force: true });
    expect(forced.status, forced.text).to.equal(200);
    expect((await getTicket(filed.id)).priority).to.equal('medium');
  });

  it('lists the queue with counts, acknowledges idempotently, and keeps each route to its roles', async () => {
    const filed = await fileCheckoutFailure('for every customer');
    const action = await actionOn(filed);
    const queue = data(await lead.call('GET', inProject('/ai/audit-queue')));
    expect(queue.actions.map((item: Action) => item.id)).to.include(action.id);
    expect(queue.counts.pending_review).to.be.at.least(1);

    const refusedNote = await lead.call('POST', `/ai/audit-queue/${action.id}/acknowledge`, {
      note: 'ok\u0000',
    });
    expect(refusedNote.status, refusedNote.text).to.equal(422);
    expect(refusedNote.body.error?.validation_errors).to.deep.equal({
      note: ['must not contain control characters'],
    });
    for (let i = 0; i < 2; i += 1) {
      const acknowledged = await lead.call('POST', `/ai/audit-queue/${action.id}/acknowledge`, {
        note: 'Right call',
      });
      expect(acknowledged.status, acknowledged.text).to.equal(200);
      expect(acknowledged.body.data.action).to.deep.include({
        status: 'acknowledged',
        review_note: 'Right call',
      });
    }
    const { counts } = data(await lead.call('GET', inProject('/ai/audit-queue')));
    expect(counts).to.deep.equal({
      ...queue.counts,
      pending_review: queue.counts.pending_review - 1,
      acknowledged: queue.counts.acknowledged + 1,
    });
    const listed = data(await agent.call('GET', inProject(`/ai/autonomous-actions?status=acknowledged`)));
    expect(listed.actions.map((item: Action) => item.id)).to.deep.equal([action.id]);
    const acknowledgements = (await actionEvents(action.id)).filter(
      (event) => event.type === 'ai.action_acknowledged',
    );
    expect(acknowledgements, 'acknowledging twice is one event').to.have.length(1);
    expect(acknowledgements[0]!.actor).to.deep.include({ kind: 'user', user_id: leadId });
    expect(acknowledgements[0]!.data.action).to.deep.include({
      reviewed_by: leadId,
      review_note: 'Right call',
    });

    // The queue sorted by confidence (lowest first: the most doubtful first), bounded by max_confidence,
    // newest first by -created_at.
    type Scored = Action & { confidence: number };
    const queueOf = async (query: string) =>
      data(await lead.call('GET', inProject(`/ai/audit-queue?status=all&per_page=100${query}`)))
        .actions as Scored[];
    const oldestFirst = await queueOf('');
    const byConfidence = await queueOf('&sort=confidence');
    expect(byConfidence.map((item) => item.confidence)).to.deep.equal(
      oldestFirst.map((item) => item.confidence).sort((a, b) => a - b),
    );
    const lowest = Math.min(...oldestFirst.map((item) => item.confidence));
    const bounded = await queueOf(`&max_confidence=${lowest}`);
    expect(bounded.map((item) => item.id)).to.deep.equal(
      oldestFirst.filter((item) => item.confidence <= lowest).map((item) => item.id),
    );
    const newestFirst = await queueOf('&sort=-created_at');
    expect(newestFirst.map((item) => item.id)).to.deep.equal(oldestFirst.map((item) => item.id).reverse());

    expect((await agent.call('GET', inProject('/ai/audit-queue'))).status).to.equal(403);
    expect((await agent.call('POST', `/ai/audit-queue/${action.id}/revert`, {})).status).to.equal(403);
    expect((await agent.call('POST', `/ai/audit-queue/${action.id}/acknowledge`, {})).status).to.equal(403);
    expect(
      (await lead.call('GET', inProject('/ai/autonomy/threshold-preview?action_type=set_priority'))).status,
    ).to.equal(403);
    const missing = await lead.call('POST', '/ai/audit-queue/2000000000/acknowledge', {});
    expect(missing.status, missing.text).to.equal(404);
    expect(missing.body.error?.message).to.equal('Action not found');

    const { preview } = data(
      await admin.call(
        'GET',
        inProject('/ai/autonomy/threshold-preview?action_type=set_priority&threshold=0.6'),
      ),
    );
    expect(preview).to.deep.include({ action_type: 'set_priority', source: 'backtest' });
    expect(preview.curve.map((point: { threshold: number }) => point.threshold).at(-1)).to.equal(0.99);
    expect(preview.at_threshold.threshold).to.equal(0.6);
    expect(preview.current.threshold).to.equal(0.5);
  });

  it('acts with every predicted type (priority, assignee, tags, a duplicate) and reverts each exactly, ticket and board', async () => {
    // A project of its own: its history teaches all four, and its caps and lanes are untouched by the rest.
    const desk = await createProject();
    const deskType = (await createTicketType(desk.slug, { isDefault: true })).id;
    const deskKey = await createKey({ project: desk.slug });
    const deskCustomer = (await createKey({ project: desk.slug })).key;
    const assignee = deskKey.user.id;
    const inDesk = (route: string) => `${route}${route.includes('?') ? '&' : '?'}project=${desk.slug}`;
    for (let i = 0; i < 8; i += 1) {
      const ticket = await createTicket<Ticket>(deskCustomer, {
        ticket_type_id: deskType,
        title: `CSV export breaks the accents in names (${i})`,
        description: 'The exported CSV file shows broken characters for accented customer names.',
        priority: 'high',
        tags: ['export', 'csv'],
        assigned_to: assignee,
      });
      await createComment(deskKey.key, ticket.id, {
        content: 'Fixed the encoding, sorry.',
        is_internal: false,
      });
      const closed = await request(`/v1/tickets/${ticket.id}/status`, {
        method: 'PATCH',
        key: deskKey.key,
        body: { status: 'closed', resolution_type: 'resolved' },
      });
      expect(closed.status, closed.text).to.equal(200);
    }
    await eventually(async () => {
      const response = await agent.call('GET', inDesk('/ai/suggest-reply/availability'));
      return response.status === 200 && response.body.data.corpus.resolved_tickets === 8;
    }, ARRIVAL_MS);
    const { autonomy } = data(await admin.call('GET', inDesk('/ai/autonomy')));
    const auto = { mode: 'auto', threshold: 0.5 };
    const updated = await admin.call('PUT', inDesk('/ai/autonomy/guardrails'), {
      version: autonomy.guardrails.version,
      actions: { set_priority: auto, assign: auto, add_tags: auto, close_duplicate: auto },
    });
    expect(updated.status, updated.text).to.equal(200);

    const board = async () =>
      Object.entries(
        data(await agent.call('GET', inDesk('/board'))).lanes as Record<string, { id: number }[]>,
      ).map(([status, tickets]) => [status, tickets.map((ticket) => ticket.id)] as const);
    const actionsOn = (ticket: Ticket, count: number) =>
      eventually(async () => {
        const response = await agent.call('GET', inDesk(`/ai/autonomous-actions?ticket_id=${ticket.id}`));
        const actions = response.status === 200 ? (response.body.data.actions as Action[]) : [];
        return actions.length === count && actions.every((action) => action.status === 'pending_review')
          ? actions
          : undefined;
      }, ARRIVAL_MS);
    const file = () =>
      createTicket<Ticket>(deskCustomer, {
        ticket_type_id: deskType,
        title: 'CSV export breaks the accents in names',
        description: 'Accented names come out garbled in the exported CSV file.',
      });

    const original = await file();
    const triaged = await actionsOn(original, 3);
    expect(triaged.map((action) => action.action_type).sort()).to.deep.equal([
      'add_tags',
      'assign',
      'set_priority',
    ]);
    expect(await getTicket(original.id, deskKey.key)).to.deep.include({
      priority: 'high',
      assigned_to: assignee,
      tags: ['csv', 'export'],
      updated_by: assistantUserId,
    });
    const lanesBefore = await board();
    const duplicate = await file();
    const [merge] = await actionsOn(duplicate, 1);
    expect(merge).to.deep.include({ action_type: 'close_duplicate', after: { merged_into_id: original.id } });
    expect((await getTicket(duplicate.id, deskKey.key)).merged_into_id).to.equal(original.id);

    // Reverted in any order, each restores exactly what it touched: the ticket as filed, the board as it was.
    for (const action of [merge!, ...triaged]) {
      const reverted = await lead.call('POST', `/ai/audit-queue/${action.id}/revert`, {});
      expect(reverted.status, `${action.action_type}: ${reverted.text}`).to.equal(200);
    }
    for (const filed of [original, duplicate]) {
      const { version, updated_at: _u, updated_by: _b, ...now } = await getTicket(filed.id, deskKey.key);
      const { version: v0, updated_at: _u0, updated_by: _b0, ...before } = filed;
      expect(now, `${filed.ticket_number as string} as filed`).to.deep.equal(before);
      expect(version).to.be.greaterThan(v0);
    }
    expect(await board()).to.deep.equal(
      lanesBefore.map(([status, ids]) => [status, status === 'open' ? [...ids, duplicate.id] : ids]),
    );
  });

  it('takes no new action once the kill switch returns, while tickets keep arriving; clear-kill resumes', async () => {
    const filing: Promise<Ticket>[] = [];
    let killedAt = '';
    for (let i = 0; i < FILED_DURING_KILL; i += 1) {
      filing.push(fileCheckoutFailure(`during the outage (${i})`));
      if (i === 20) {
        const killed = await admin.call('POST', inProject('/ai/autonomy/kill'), { reason: 'Outage drill' });
        expect(killed.status, killed.text).to.equal(200);
        killedAt = new Date().toISOString();
      }
      if (filing.length % 8 === 0) await Promise.all(filing.slice(-8));
    }
    const tickets = await Promise.all(filing);
    // The worker predicts newest first: once the oldest has predictions, every ticket was looked at.
    await predicted(tickets[0]!);
    const since = data(
      await agent.call('GET', inProject(`/ai/autonomous-actions?since=${killedAt}&per_page=100`)),
    );
    expect(since.pagination.total, 'actions started after the kill returned').to.equal(0);
    const { autonomy } = data(await admin.call('GET', inProject('/ai/autonomy')));
    expect(autonomy.status.effective).to.equal('killed');

    const cleared = await admin.call('POST', inProject('/ai/autonomy/clear-kill'), { reason: 'Drill over' });
    expect(cleared.status, cleared.text).to.equal(200);
    const resumed = await actionOn(await fileCheckoutFailure('after the drill'), ARRIVAL_MS * 4);
    expect(resumed.action_type).to.equal('set_priority');
  });

  it('posts its drafted reply as an internal note (a revert deletes it only while unedited), or sends it', async () => {
    const { autonomy } = data(await admin.call('GET', inProject('/ai/autonomy')));
    const guardrails = (changes: Record<string, unknown>, version: number) =>
      admin.call('PUT', inProject('/ai/autonomy/guardrails'), { version, ...changes });
    const on = await guardrails(
      {
        actions: { set_priority: { mode: 'off' }, post_internal_note: { mode: 'auto', threshold: 0.5 } },
        // The kill switch test above used up the default hourly cap (60).
        limits: { max_actions_per_hour: 1000 },
      },
      autonomy.guardrails.version,
    );
    expect(on.status, on.text).to.equal(200);
    try {
      const comments = async (ticket: Ticket) =>
        data(await request(`/v1/tickets/${ticket.id}/comments`, { key: agentKey })).comments as {
          id: number;
          user_id: number;
          is_internal: boolean;
          content: string;
        }[];
      const noteOn = async (suffix: string) => {
        const filed = await fileCheckoutFailure(suffix);
        const action = await actionOn(filed);
        expect(action).to.deep.include({ action_type: 'post_internal_note', before: { comment_id: null } });
        const [note] = await comments(filed);
        expect(note).to.deep.include({
          id: action.after.comment_id,
          user_id: assistantUserId,
          is_internal: true,
        });
        expect(note!.content).to.match(/^AI draft reply \(not sent to the customer, from [A-Z0-9]+-\d+/);
        expect(note!.content).to.include('Fixed on our side, sorry for the trouble.');
        return { filed, action, note: note! };
      };

      const first = await noteOn('with a draft');
      const before = await getTicket(first.filed.id);
      const reverted = await lead.call('POST', `/ai/audit-queue/${first.action.id}/revert`, {});
      expect(reverted.status, reverted.text).to.equal(200);
      expect(await comments(first.filed), 'the note is gone').to.deep.equal([]);
      expect(await getTicket(first.filed.id), 'the ticket is untouched').to.deep.equal(before);
      expect((await actionEvents(first.action.id)).map((event) => event.type)).to.deep.equal([
        'ai.action_executed',
        'ai.action_reverted',
      ]);

      const second = await noteOn('edited by a lead');
      const edited = await lead.call('PUT', inProject(`/comments/${second.note.id}`), {
        content: 'Checked with payments: it is the card issuer.',
      });
      expect(edited.status, edited.text).to.equal(200);
      const refused = await lead.call('POST', `/ai/audit-queue/${second.action.id}/revert`, {});
      expect(refused.status, refused.text).to.equal(409);
      expect(refused.body.error).to.deep.include({
        message: 'Ticket was changed after this action',
        validation_errors: { comment: ['Comment was edited after this action'] },
      });
      expect((await comments(second.filed)).map((comment) => comment.content)).to.deep.equal([
        'Checked with payments: it is the card issuer.',
      ]);
      const forced = await admin.call('POST', `/ai/audit-queue/${second.action.id}/revert`, { force: true });
      expect(forced.status, forced.text).to.equal(200);
      expect(await comments(second.filed)).to.deep.equal([]);

      // With send_reply on too (its floor is 0.9), the customer gets the reply and no note is posted.
      const { autonomy: current } = data(await admin.call('GET', inProject('/ai/autonomy')));
      const replying = await guardrails(
        { actions: { send_reply: { mode: 'auto', threshold: 0.9 } } },
        current.guardrails.version,
      );
      expect(replying.status, replying.text).to.equal(200);
      const third = await fileCheckoutFailure('(8)');
      const sent = await actionOn(third);
      expect(sent).to.deep.include({
        action_type: 'send_reply',
        irreversible_effects: ['customer_may_have_seen_it', 'webhooks_delivered'],
      });
      const [reply] = await comments(third);
      expect(reply).to.deep.include({
        id: sent.after.comment_id,
        user_id: assistantUserId,
        is_internal: false,
      });
      expect(reply!.content).to.equal('Hello,\n\nFixed on our side, sorry for the trouble.');
    } finally {
      const { autonomy: now } = data(await admin.call('GET', inProject('/ai/autonomy')));
      await guardrails(
        { actions: { post_internal_note: { mode: 'off' }, send_reply: { mode: 'off' } } },
        now.guardrails.version,
      );
    }
  });
});

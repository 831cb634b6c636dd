import { expect } from 'chai';
import { seededRandom } from '@tix/support-corpus';
import { defaultGuardrails, type GuardrailsDocument } from '../../src/autonomy/guardrails.js';
import {
  duplicateGuard,
  heldBack,
  planAction,
  type ActionContext,
  type PredictionToAct,
  type TicketState,
} from '../../src/actions/plan-action.js';

const DAY = 86_400_000;
const NOW = Date.parse('2026-11-20T12:00:00Z');

const ticket = (overrides: Partial<TicketState> = {}): TicketState => ({
  ticketId: 100,
  ticketTypeId: 1,
  status: 'open',
  isClosed: false,
  priority: 'medium',
  priorityDefaulted: true,
  assignedTo: null,
  tags: [],
  mergedIntoId: null,
  deleted: false,
  createdAt: new Date(NOW),
  ...overrides,
});

const context = (overrides: Partial<ActionContext> = {}): ActionContext => ({
  actionsLastHour: 0,
  actionsOnTicket: 0,
  alreadyActedOnTicket: false,
  pausedActionTypes: [],
  sample: 0.5,
  ...overrides,
});

/** The defaults with every action type on auto. */
function autoGuardrails(): GuardrailsDocument {
  const guardrails = defaultGuardrails();
  for (const rules of Object.values(guardrails.actions)) rules.mode = 'auto';
  return guardrails;
}

const priority = (value: string, confidence = 0.95): PredictionToAct => ({
  actionType: 'set_priority',
  value,
  confidence,
});

describe('planning an autonomous action', () => {
  it('acts on a confident prediction in auto mode, touching only its field', () => {
    const decision = planAction(autoGuardrails(), ticket(), priority('high'), context());
    expect(decision).to.deep.equal({
      act: true,
      plan: {
        actionType: 'set_priority',
        threshold: 0.85,
        before: { priority: 'medium' },
        after: { priority: 'high' },
        expected: { priority: 'medium' },
        set: { priority: 'high' },
        needsReview: true,
      },
    });
  });

  it('does nothing in shadow mode (the defaults), in suggest mode, or for a paused type', () => {
    expect(planAction(defaultGuardrails(), ticket(), priority('high'), context())).to.include({
      act: false,
      reason: 'not_auto',
    });
    const suggest = autoGuardrails();
    suggest.actions.set_priority.mode = 'suggest';
    expect(planAction(suggest, ticket(), priority('high'), context())).to.include({ reason: 'not_auto' });
    expect(
      planAction(
        autoGuardrails(),
        ticket(),
        priority('high'),
        context({ pausedActionTypes: ['set_priority'] }),
      ),
    ).to.include({ reason: 'paused' });
  });

  it('keeps to the threshold, the scope and the caps', () => {
    const guardrails = autoGuardrails();
    expect(planAction(guardrails, ticket(), priority('high', 0.84), context())).to.include({
      reason: 'below_threshold',
    });
    expect(planAction(guardrails, ticket({ priority: 'critical' }), priority('high'), context())).to.include({
      reason: 'out_of_scope',
    });
    guardrails.scope.exclude_tags = ['vip'];
    expect(planAction(guardrails, ticket({ tags: ['vip'] }), priority('high'), context())).to.include({
      reason: 'out_of_scope',
    });
    guardrails.scope.statuses = ['open'];
    expect(planAction(guardrails, ticket({ status: 'waiting' }), priority('high'), context())).to.include({
      reason: 'out_of_scope',
    });
    expect(planAction(guardrails, ticket({ isClosed: true }), priority('high'), context())).to.include({
      reason: 'out_of_scope',
    });
    expect(planAction(guardrails, ticket(), priority('high'), context({ actionsLastHour: 60 }))).to.include({
      reason: 'hourly_cap',
    });
    expect(planAction(guardrails, ticket(), priority('high'), context({ actionsOnTicket: 3 }))).to.include({
      reason: 'ticket_cap',
    });
  });

  it('never overrides a priority someone chose, never downgrades, only sets allowed values', () => {
    const guardrails = autoGuardrails();
    expect(
      planAction(guardrails, ticket({ priorityDefaulted: false }), priority('high'), context()),
    ).to.include({
      reason: 'explicit_priority',
    });
    expect(planAction(guardrails, ticket({ priority: 'high' }), priority('low'), context())).to.include({
      reason: 'would_downgrade',
    });
    expect(planAction(guardrails, ticket(), priority('critical'), context())).to.include({
      reason: 'not_allowed',
    });
    expect(planAction(guardrails, ticket(), priority('medium'), context())).to.include({
      reason: 'no_change',
    });
  });

  it('assigns only unassigned tickets to an allowed, active user with room', () => {
    const guardrails = autoGuardrails();
    const assign: PredictionToAct = { actionType: 'assign', value: 7, confidence: 0.95 };
    const room = { assignee: { active: true, openTickets: 3 } };
    expect(planAction(guardrails, ticket(), assign, context(room))).to.deep.include({ act: true });
    expect(planAction(guardrails, ticket({ assignedTo: 2 }), assign, context(room))).to.include({
      reason: 'already_assigned',
    });
    expect(
      planAction(guardrails, ticket(), assign, context({ assignee: { active: false, openTickets: 0 } })),
    ).to.include({ reason: 'assignee_unavailable' });
    expect(
      planAction(guardrails, ticket(), assign, context({ assignee: { active: true, openTickets: 25 } })),
    ).to.include({ reason: 'assignee_unavailable' });
    guardrails.actions.assign.allowed_user_ids = [8];
    expect(planAction(guardrails, ticket(), assign, context(room))).to.include({ reason: 'not_allowed' });
  });

  it('adds only new, allowed tags, and its revert removes exactly those', () => {
    const guardrails = autoGuardrails();
    guardrails.actions.add_tags.allowed_tags = ['billing', 'login'];
    const decision = planAction(
      guardrails,
      ticket({ tags: ['login'] }),
      { actionType: 'add_tags', value: ['billing', 'login', 'secret'], confidence: 0.9 },
      context(),
    );
    expect(decision).to.deep.include({ act: true });
    if (!decision.act) return;
    expect(decision.plan.set).to.deep.equal({ tags_add: ['billing'] });
    expect(decision.plan.after).to.deep.equal({ tags: ['login', 'billing'] });
  });

  it('posts a drafted reply as an internal note naming its sources, or sends it, only while nobody replied', () => {
    const reply = (actionType: 'post_internal_note' | 'send_reply'): PredictionToAct => ({
      actionType,
      value: { content: 'Hello,\n\nClear the cache.' },
      confidence: 0.98,
      sources: [{ ticket_number: 'SUP-4' }, { ticket_number: 'SUP-9' }],
    });
    const note = planAction(autoGuardrails(), ticket(), reply('post_internal_note'), context());
    expect(note.act && note.plan).to.deep.include({
      before: { comment_id: null },
      expected: {},
      set: {
        comment: {
          content:
            'AI draft reply (not sent to the customer, from SUP-4, SUP-9):\n\nHello,\n\nClear the cache.',
          is_internal: true,
        },
      },
    });
    const sent = planAction(autoGuardrails(), ticket(), reply('send_reply'), context());
    expect(sent.act && sent.plan.set).to.deep.equal({
      comment: { content: 'Hello,\n\nClear the cache.', is_internal: false },
    });
    for (const type of ['post_internal_note', 'send_reply'] as const)
      expect(planAction(autoGuardrails(), ticket(), reply(type), context({ replied: true }))).to.deep.include(
        {
          act: false,
          reason: 'already_replied',
        },
      );
    // send_reply's threshold (0.97 by default) holds it back where the note goes ahead.
    const unsure = { ...reply('send_reply'), confidence: 0.95 };
    expect(planAction(autoGuardrails(), ticket(), unsure, context())).to.deep.include({
      act: false,
      reason: 'below_threshold',
    });
    const empty = { ...reply('post_internal_note'), value: { content: '  ' } };
    expect(planAction(autoGuardrails(), ticket(), empty, context())).to.deep.include({ act: false });
  });

  it('leaves a confident action out of the audit queue only when it is not sampled', () => {
    const guardrails = autoGuardrails();
    guardrails.review.sample_rate = 0.1;
    const sampledOut = planAction(guardrails, ticket(), priority('high', 0.95), context({ sample: 0.5 }));
    const lowConfidence = planAction(guardrails, ticket(), priority('high', 0.86), context({ sample: 0.5 }));
    expect(sampledOut.act && sampledOut.plan.needsReview).to.equal(false);
    expect(lowConfidence.act && lowConfidence.plan.needsReview).to.equal(true);
  });

  it('never closes a ticket as a duplicate of itself, a newer, closed or merged ticket, nor makes a chain', () => {
    const random = seededRandom(15);
    const rules = autoGuardrails().actions.close_duplicate;
    const corpus = Array.from({ length: 120 }, (_, i) =>
      ticket({
        ticketId: i + 1,
        ticketTypeId: random.int(1, 2),
        createdAt: new Date(NOW - (120 - i) * DAY * random.next() * 0.3),
        isClosed: random.chance(0.2),
        mergedIntoId: random.chance(0.15) ? random.int(1, 120) : null,
        deleted: random.chance(0.05),
      }),
    );
    let allowed = 0;
    for (let run = 0; run < 5_000; run++) {
      const source = random.pick(corpus);
      const target = random.pick(corpus);
      const sourceHasMergedTickets = corpus.some((other) => other.mergedIntoId === source.ticketId);
      const alreadyActedOnTicket = random.chance(0.1);
      const refused = duplicateGuard(source, target, rules, { alreadyActedOnTicket, sourceHasMergedTickets });
      if (refused !== null) continue;
      allowed += 1;
      expect(target.ticketId).to.not.equal(source.ticketId);
      expect(target.isClosed || target.deleted).to.equal(false);
      expect(target.mergedIntoId).to.equal(null);
      expect(target.ticketId).to.be.below(source.ticketId);
      expect(target.createdAt.getTime()).to.be.below(source.createdAt.getTime());
      expect(target.ticketTypeId).to.equal(source.ticketTypeId);
      expect(sourceHasMergedTickets).to.equal(false);
      expect(alreadyActedOnTicket).to.equal(false);
    }
    expect(allowed, 'the generated corpus allows some merges').to.be.greaterThan(50);
  });
});

describe('holding a prediction back (what the console does not offer)', () => {
  it('holds back a lower priority under never_downgrade, whatever the mode, for the reason the planner skips it', () => {
    const shadow = defaultGuardrails();
    expect(shadow.actions.set_priority.never_downgrade).to.equal(true);
    expect(heldBack(shadow, { priority: 'high' }, priority('medium'))).to.equal('would_downgrade');
    expect(heldBack(shadow, { priority: 'critical' }, priority('low'))).to.equal('would_downgrade');
    const auto = autoGuardrails();
    const high = ticket({ priority: 'high' });
    expect(heldBack(auto, high, priority('low'))).to.equal('would_downgrade');
    expect(planAction(auto, high, priority('low'), context())).to.include({
      reason: heldBack(auto, high, priority('low')),
    });
  });

  it('does not hold back a raise, the same priority, another action type or an unknown value', () => {
    const guardrails = defaultGuardrails();
    expect(heldBack(guardrails, { priority: 'medium' }, priority('high'))).to.equal(null);
    expect(heldBack(guardrails, { priority: 'low' }, priority('critical'))).to.equal(null);
    expect(heldBack(guardrails, { priority: 'high' }, priority('high'))).to.equal(null);
    expect(heldBack(guardrails, { priority: 'high' }, priority('urgent'))).to.equal(null);
    for (const actionType of ['assign', 'add_tags', 'close_duplicate', 'post_internal_note'] as const)
      expect(heldBack(guardrails, { priority: 'high' }, { actionType, value: 'low' })).to.equal(null);
  });

  it('holds nothing back with never_downgrade off, and the planner then lowers', () => {
    const guardrails = autoGuardrails();
    guardrails.actions.set_priority.never_downgrade = false;
    const high = ticket({ priority: 'high' });
    expect(heldBack(guardrails, high, priority('low'))).to.equal(null);
    expect(planAction(guardrails, high, priority('low'), context())).to.deep.include({ act: true });
  });
});

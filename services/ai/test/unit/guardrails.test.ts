/** The guardrails document's pure rules: defaults, merge, validation by dotted path, changes. */
import { expect } from 'chai';
import { AppError } from '@tix/kit';
import {
  defaultGuardrails,
  enabledActionTypes,
  guardrailChanges,
  mergeGuardrails,
  validateGuardrails,
  withoutReadOnlyKeys,
} from '../../src/autonomy/guardrails.js';

const PROJECT = { statuses: ['open', 'work_in_progress', 'waiting', 'closed'], ticketTypeIds: [4, 5] };

function errorsOf(document: unknown): Record<string, unknown> {
  try {
    validateGuardrails(document, PROJECT);
  } catch (error) {
    expect(error).to.be.instanceOf(AppError);
    expect((error as AppError).kind).to.equal('validation_failed');
    return (error as AppError).validationErrors ?? {};
  }
  throw new Error('expected a validation error');
}

describe('guardrails', () => {
  it('defaults to shadow mode: every action type off, the default thresholds, critical out of scope', () => {
    const defaults = defaultGuardrails();
    expect(enabledActionTypes(defaults)).to.deep.equal([]);
    expect(
      Object.fromEntries(Object.entries(defaults.actions).map(([type, action]) => [type, action.threshold])),
    ).to.deep.equal({
      set_priority: 0.85,
      assign: 0.9,
      add_tags: 0.8,
      close_duplicate: 0.95,
      post_internal_note: 0.6,
      send_reply: 0.97,
    });
    expect(defaults.scope).to.deep.equal({
      ticket_type_ids: null,
      statuses: null,
      exclude_tags: [],
      exclude_priorities: ['critical'],
    });
    expect(defaults.limits).to.deep.equal({ max_actions_per_hour: 60, max_actions_per_ticket: 3 });
    expect(defaults.review).to.deep.equal({ sample_rate: 1, always_review_below: 0.9 });
    expect(defaults.auto_pause).to.deep.equal({ revert_rate: 0.2, min_actions: 10, window_hours: 24 });
    expect(validateGuardrails(defaults, PROJECT)).to.deep.equal(defaults);
  });

  it('merges objects key by key; arrays, scalars and null replace', () => {
    const merged = mergeGuardrails(defaultGuardrails(), {
      actions: { set_priority: { mode: 'auto', allowed_values: ['high'] } },
      scope: { statuses: ['open'], exclude_priorities: [] },
    }) as ReturnType<typeof defaultGuardrails>;
    expect(merged.actions.set_priority).to.deep.equal({
      mode: 'auto',
      threshold: 0.85,
      allowed_values: ['high'],
      never_downgrade: true,
    });
    expect(merged.actions.assign).to.deep.equal(defaultGuardrails().actions.assign);
    expect(merged.scope).to.deep.equal({
      ticket_type_ids: null,
      statuses: ['open'],
      exclude_tags: [],
      exclude_priorities: [],
    });
    expect(enabledActionTypes(merged)).to.deep.equal(['set_priority']);
  });

  it('names every problem by its dotted path, unknown keys included', () => {
    const merged = mergeGuardrails(defaultGuardrails(), {
      actions: {
        send_reply: { threshold: 0.85 },
        assign: { mode: 'always', threshold: 0.3, colour: 'red' },
        teleport: { mode: 'auto' },
      },
      scope: { statuses: ['open', 'done'], ticket_type_ids: [4, 99], exclude_priorities: ['urgent'] },
      limits: { max_actions_per_hour: 0, max_actions_per_ticket: 2.5 },
      review: { sample_rate: 1.5 },
      auto_pause: null,
      extra: true,
    });
    expect(errorsOf(merged)).to.deep.equal({
      'actions.teleport': ['unknown key'],
      'actions.assign.colour': ['unknown key'],
      'actions.assign.mode': ['must be one of off, suggest, auto'],
      'actions.assign.threshold': ['must be between 0.5 and 0.99'],
      'actions.send_reply.threshold': ['must be between 0.9 and 0.99'],
      'scope.ticket_type_ids': ['unknown ticket type: 99'],
      'scope.statuses': ['unknown status: done'],
      'scope.exclude_priorities': ['unknown priority: urgent (one of low, medium, high, critical)'],
      'limits.max_actions_per_hour': ['must be an integer from 1 to 10000'],
      'limits.max_actions_per_ticket': ['must be an integer from 1 to 20'],
      'review.sample_rate': ['must be between 0 and 1'],
      auto_pause: ['must be an object'],
      extra: ['unknown key'],
    });
  });

  it('refuses a __proto__ key as unknown instead of taking it as a prototype', () => {
    const merged = mergeGuardrails(
      defaultGuardrails(),
      JSON.parse('{"__proto__": {"x": 1}, "limits": {"__proto__": {"y": 2}}}'),
    );
    expect(errorsOf(merged)).to.deep.equal({
      guardrails: ['unknown key: __proto__'],
      limits: ['unknown key: __proto__'],
    });
  });

  it('takes send_reply from 0.9 and every other threshold from 0.5, both to 0.99', () => {
    const at = (type: string, threshold: number) =>
      mergeGuardrails(defaultGuardrails(), { actions: { [type]: { threshold } } });
    expect(() => validateGuardrails(at('send_reply', 0.9), PROJECT)).to.not.throw();
    expect(() => validateGuardrails(at('add_tags', 0.5), PROJECT)).to.not.throw();
    expect(errorsOf(at('add_tags', 0.995))).to.deep.equal({
      'actions.add_tags.threshold': ['must be between 0.5 and 0.99'],
    });
    expect(errorsOf(at('send_reply', 0.89))).to.have.keys('actions.send_reply.threshold');
  });

  it('ignores the read-only keys a client echoes back from GET', () => {
    expect(withoutReadOnlyKeys({ version: 3, updated_at: 'x', updated_by: null, limits: {} })).to.deep.equal({
      limits: {},
    });
  });

  it('lists the changes by dotted path, lists as leaves', () => {
    const before = defaultGuardrails();
    const after = mergeGuardrails(before, {
      actions: { set_priority: { mode: 'auto' } },
      scope: { exclude_tags: ['legal'] },
    });
    expect(guardrailChanges(before, after)).to.deep.equal({
      'actions.set_priority.mode': { from: 'off', to: 'auto' },
      'scope.exclude_tags': { from: [], to: ['legal'] },
    });
    expect(guardrailChanges(before, defaultGuardrails())).to.deep.equal({});
  });
});

import { expect } from 'chai';
import type { ActivityRow } from '../../src/feed/feed-store.js';
import { humanize, listOf, summarize } from '../../src/feed/summary.js';

const names = {
  user: (id: number) => ({ 5: 'Alice', 6: 'Bob', 9: 'Tix AI' })[id] ?? null,
  ticket: (id: number) => (id === 12 ? 'SUP-12' : null),
};

function row(overrides: Partial<ActivityRow>): ActivityRow {
  return {
    id: '1',
    type: 'ticket.updated',
    occurred_at: new Date(),
    project_id: 1,
    actor_kind: 'user',
    actor_user_id: 5,
    actor_api_key_id: null,
    via_type: null,
    via_id: null,
    ticket_id: 42,
    changes: {},
    comment_id: null,
    comment_internal: null,
    comment_excerpt: null,
    filename: null,
    details: null,
    ticket_number: 'SUP-42',
    title: 'Login loop',
    ...overrides,
  };
}

describe('activity summaries', () => {
  it('says who changed which field from what to what', () => {
    expect(
      summarize(
        row({ actor_kind: 'ai', actor_user_id: 9, changes: { priority: { from: 'medium', to: 'high' } } }),
        names,
      ),
    ).to.equal('Tix AI changed the priority of SUP-42 from Medium to High');
    expect(summarize(row({ changes: { status: { from: 'open', to: 'in_progress' } } }), names)).to.equal(
      'Alice changed the status of SUP-42 from Open to In progress',
    );
  });

  it('names people an assignment moves between', () => {
    expect(summarize(row({ changes: { assigned_to: { from: null, to: 6 } } }), names)).to.equal(
      'Alice assigned SUP-42 to Bob',
    );
    expect(summarize(row({ changes: { assigned_to: { from: 6, to: 77 } } }), names)).to.equal(
      'Alice reassigned SUP-42 from Bob to User #77',
    );
    expect(summarize(row({ changes: { assigned_to: { from: 6, to: null } } }), names)).to.equal(
      'Alice unassigned SUP-42 from Bob',
    );
  });

  it('lists every field of a write that changed several', () => {
    expect(
      summarize(
        row({ changes: { status: { from: 'open', to: 'closed' }, assigned_to: { from: null, to: 6 } } }),
        names,
      ),
    ).to.equal('Alice updated the status and assignee of SUP-42');
  });

  it('describes tags, creations, merges, comments, attachments and integrations', () => {
    expect(summarize(row({ changes: { tags: { from: ['a'], to: ['b', 'c'] } } }), names)).to.equal(
      'Alice added tags b and c and removed tag a on SUP-42',
    );
    expect(summarize(row({ type: 'ticket.created' }), names)).to.equal('Alice created SUP-42 "Login loop"');
    expect(
      summarize(row({ type: 'ticket.merged', changes: { merged_into_id: { from: null, to: 12 } } }), names),
    ).to.equal('Alice merged SUP-42 into SUP-12');
    expect(summarize(row({ type: 'comment.created', comment_internal: true }), names)).to.equal(
      'Alice added an internal note to SUP-42',
    );
    expect(summarize(row({ type: 'attachment.created', filename: 'log.txt' }), names)).to.equal(
      'Alice attached "log.txt" to SUP-42',
    );
    expect(
      summarize(row({ type: 'ticket.deleted', actor_kind: 'api_key', actor_api_key_id: 3 }), names),
    ).to.equal('Alice (API key #3) deleted SUP-42');
    expect(summarize(row({ actor_kind: 'system', actor_user_id: null, changes: {} }), names)).to.equal(
      'Tix moved SUP-42 on the board',
    );
  });

  it('falls back to ids when a name or number is unknown', () => {
    expect(
      summarize(row({ actor_user_id: 77, ticket_number: null, type: 'ticket.deleted' }), names),
    ).to.equal('User #77 deleted ticket #42');
  });

  it('humanizes slugs and joins lists', () => {
    expect(humanize('waiting_on_customer')).to.equal('Waiting on customer');
    expect(humanize(null)).to.equal('none');
    expect(listOf(['a', 'b', 'c'])).to.equal('a, b and c');
  });

  describe("of the assistant's autonomy", () => {
    const setting = (from: unknown, to: unknown) => ({ from, to });

    it('name up to three changed guardrail settings, sorted, and count the rest', () => {
      const guardrails = (changes: ActivityRow['changes']) =>
        summarize(
          row({ type: 'ai.guardrails_updated', ticket_id: null, changes, details: { version: 3 } }),
          names,
        );
      expect(guardrails({ 'actions.assign.threshold': setting(0.9, 0.95) })).to.equal(
        "Alice changed the assistant's guardrails: actions.assign.threshold from 0.9 to 0.95",
      );
      expect(
        guardrails({
          'scope.exclude_tags': setting([], ['legal']),
          'actions.add_tags.mode': setting('off', 'suggest'),
          'limits.max_actions_per_hour': setting(60, 10),
          'review.sample_rate': setting(1, 0.5),
          'auto_pause.min_actions': setting(10, 20),
        }),
      ).to.equal(
        'Alice changed the assistant\'s guardrails: actions.add_tags.mode from "off" to "suggest", ' +
          'auto_pause.min_actions from 10 to 20, limits.max_actions_per_hour from 60 to 10 and 2 more',
      );
      expect(guardrails({ 'scope.statuses': setting(null, ['a'.repeat(60)]) })).to.match(
        /from null to \["a+…$/,
      );
    });

    it('say which kill switch, for which projects, and why', () => {
      const kill = (type: string, projectId: number | null, reason: string | null) =>
        summarize(row({ type, project_id: projectId, ticket_id: null, details: { reason } }), names);
      expect(kill('ai.kill_switch_activated', null, 'Tags wrong')).to.equal(
        'Alice activated the assistant\'s kill switch for every project: "Tags wrong"',
      );
      expect(kill('ai.kill_switch_cleared', 1, null)).to.equal(
        "Alice cleared the assistant's kill switch for this project",
      );
    });

    it('name the acknowledged action and the paused action type', () => {
      expect(
        summarize(
          row({
            type: 'ai.action_acknowledged',
            details: { action_id: 981, action_type: 'close_duplicate', review_note: null },
          }),
          names,
        ),
      ).to.equal("Alice acknowledged the assistant's close duplicate action #981 on SUP-42");
      expect(
        summarize(
          row({
            type: 'ai.action_type_paused',
            actor_kind: 'system',
            actor_user_id: null,
            ticket_id: null,
            ticket_number: null,
            details: { action_type: 'assign', executed: 12, reverted: 4, revert_rate: 0.2, window_hours: 24 },
          }),
          names,
        ),
      ).to.equal(
        "Tix paused the assistant's assign actions in this project: 4 of 12 reverted in the last 24 hours",
      );
    });
  });
});

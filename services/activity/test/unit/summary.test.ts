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
});

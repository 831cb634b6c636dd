import { expect } from 'chai';
import type { Activity } from '../../src/screens/assistant/activity-poll';
import { matchesFilters } from '../../src/screens/assistant/activity-match';

function entry(overrides: Partial<Activity> = {}): Activity {
  return {
    id: 1,
    type: 'ticket.updated',
    project_id: 7,
    occurred_at: '2026-03-04T10:00:00Z',
    actor: { kind: 'user', user_id: 3 },
    subject: { type: 'ticket', id: 11 },
    changes: { priority: { from: 'low', to: 'high' } },
    ...overrides,
  } as Activity;
}

describe('a new activity entry against a feed’s filters', () => {
  it('keeps every entry of the project, and global entries (no project) in any project feed', () => {
    expect(matchesFilters(entry(), { projectId: 7 })).to.equal(true);
    expect(matchesFilters(entry({ project_id: 8 }), { projectId: 7 })).to.equal(false);
    expect(matchesFilters(entry({ project_id: null }), { projectId: 7 })).to.equal(true);
    expect(matchesFilters(entry({ project_id: 8 }), { projectId: null })).to.equal(true);
  });

  it('matches types as a comma list with prefix wildcards', () => {
    expect(matchesFilters(entry(), { projectId: null, type: 'ticket.created, ticket.updated' })).to.equal(
      true,
    );
    expect(matchesFilters(entry(), { projectId: null, type: 'ticket.*' })).to.equal(true);
    expect(matchesFilters(entry(), { projectId: null, type: 'ai.*,comment.created' })).to.equal(false);
    expect(matchesFilters(entry({ type: 'ticketing.x' }), { projectId: null, type: 'ticket.*' })).to.equal(
      false,
    );
  });

  it('filters by actor kind and id, ticket and changed field', () => {
    expect(matchesFilters(entry(), { projectId: null, actorKind: 'user', actorId: 3 })).to.equal(true);
    expect(matchesFilters(entry(), { projectId: null, actorKind: 'ai' })).to.equal(false);
    expect(matchesFilters(entry(), { projectId: null, actorId: 4 })).to.equal(false);
    expect(matchesFilters(entry(), { projectId: null, ticketId: 11 })).to.equal(true);
    expect(matchesFilters(entry(), { projectId: null, ticketId: 12 })).to.equal(false);
    expect(
      matchesFilters(entry({ subject: { type: 'comment', id: 11 } } as Partial<Activity>), {
        projectId: null,
        ticketId: 11,
      }),
    ).to.equal(false);
    expect(matchesFilters(entry(), { projectId: null, field: 'priority' })).to.equal(true);
    expect(matchesFilters(entry(), { projectId: null, field: 'status' })).to.equal(false);
  });

  it('bounds the time: since inclusive, until exclusive, a bare day as its UTC midnight', () => {
    const at = { projectId: null };
    expect(matchesFilters(entry(), { ...at, since: '2026-03-04' })).to.equal(true);
    expect(matchesFilters(entry(), { ...at, since: '2026-03-04T10:00:00Z' })).to.equal(true);
    expect(matchesFilters(entry(), { ...at, since: '2026-03-04T10:00:01Z' })).to.equal(false);
    expect(matchesFilters(entry(), { ...at, until: '2026-03-04T10:00:00Z' })).to.equal(false);
    expect(matchesFilters(entry(), { ...at, until: '2026-03-05' })).to.equal(true);
    expect(matchesFilters(entry(), { ...at, until: '2026-03-04' })).to.equal(false);
  });
});

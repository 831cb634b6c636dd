import { expect } from 'chai';
import { parseQuery } from '../../src/http/validate.js';
import { decodeCursor, encodeCursor } from '../../src/resources/activity-cursor.js';
import {
  listActivityQuery,
  listEventsQuery,
  pollActivityQuery,
  ticketHistoryQuery,
} from '../../src/routes/v1/activity.schemas.js';
import { queryError } from '../support/refusals.js';

describe('activity cursors', () => {
  it('are base64url of {"s":N} (the feed) or {"e":N} (the event stream), and decode back', () => {
    expect(encodeCursor('activity', 90211)).to.equal('eyJzIjo5MDIxMX0');
    expect(Buffer.from(encodeCursor('events', 5120), 'base64url').toString()).to.equal('{"e":5120}');
    for (const position of [0, 1, 90211, Number.MAX_SAFE_INTEGER]) {
      expect(decodeCursor('activity', encodeCursor('activity', position))).to.equal(position);
      expect(decodeCursor('events', encodeCursor('events', position))).to.equal(position);
    }
  });

  it("refuse anything else, one route's cursor on the other route included", () => {
    const base64url = (text: string) => Buffer.from(text).toString('base64url');
    const refused = [
      '',
      'x',
      'not a cursor',
      encodeCursor('events', 7),
      base64url('{"s":-1}'),
      base64url('{"s":1.5}'),
      base64url('{"s":01}'),
      base64url('{"s":"7"}'),
      base64url('{"s": 7}'),
      base64url('{"s":7,"e":7}'),
      base64url('{"s":9007199254740993}'),
      base64url('[7]'),
      `${encodeCursor('activity', 7)}=`,
      `${encodeCursor('activity', 7)}.`,
      ` ${encodeCursor('activity', 7)}`,
      Buffer.from('{"s":7}').toString('base64'),
      'A'.repeat(10_000),
    ];
    for (const text of refused) expect(decodeCursor('activity', text), text).to.equal(undefined);
    expect(decodeCursor('events', encodeCursor('activity', 7))).to.equal(undefined);
  });
});

describe('activity route schemas', () => {
  it('GET /activity: filters, the spec pagination and until_id, with defaults', () => {
    expect(parseQuery(listActivityQuery, {})).to.deep.equal({ page: 1, per_page: 50 });
    expect(
      parseQuery(listActivityQuery, {
        ticket_id: '42',
        actor_id: '7',
        actor_kind: 'api_key',
        type: 'ticket.updated, comment.*,ticket.updated',
        field: 'status',
        since: '2026-05-01',
        until: '2026-05-02T12:00:00+02:00',
        page: '2',
        per_page: '100',
        until_id: '90211',
        unknown: 'dropped',
      }),
    ).to.deep.equal({
      ticket_id: 42,
      actor_id: 7,
      actor_kind: 'api_key',
      type: ['ticket.updated', 'comment.*'],
      field: 'status',
      since: '2026-05-01T00:00:00.000Z',
      until: '2026-05-02T10:00:00.000Z',
      page: 2,
      per_page: 100,
      until_id: 90211,
    });
    // An empty log's snapshot_id is 0, and it has no later pages: 0 is refused like every other id.
    expect(queryError(listActivityQuery, { until_id: '0' }).message).to.equal('Invalid until_id');
  });

  it('GET /activity: 400 naming each bad parameter', () => {
    const error = queryError(listActivityQuery, {
      ticket_id: '0',
      actor_id: 'ada',
      actor_kind: 'robot',
      type: 'ticket',
      field: 'Status!',
      since: 'yesterday',
      page: '0',
      per_page: '101',
      until_id: '-1',
    });
    expect(error.message).to.equal(
      'Invalid ticket_id, actor_id, actor_kind, type, field, since, page, per_page, until_id',
    );
    expect(error.validationErrors).to.deep.include({
      actor_kind: ['actor_kind must be one of user, api_key, ai, system'],
      type: ['type must be a comma list of at most 20 event types (ticket.updated) or prefixes (ticket.*)'],
      since: ['since must be an ISO 8601 date-time such as 2026-05-02T10:11:00Z'],
      per_page: ['per_page must be an integer from 1 to 100'],
    });
    for (const type of [
      'ticket.',
      '*',
      'ticket.*.x',
      'Ticket.updated',
      'ticket.updated,',
      'a.b,'.repeat(21),
    ]) {
      expect(queryError(listActivityQuery, { type }).message, type).to.equal('Invalid type');
    }
    for (const since of [
      '2026-02-30',
      '2026-05-02T10:11:00',
      '1714644660',
      '2026-05-02T25:00:00Z',
      '0000-01-01',
      '0000-06-01T00:00:00Z',
    ]) {
      expect(queryError(listActivityQuery, { since }).message, since).to.equal('Invalid since');
    }
    expect(queryError(listActivityQuery, { ticket_id: ['1', '2'] }).message).to.equal('Invalid ticket_id');
  });

  it('GET /activity: until must be later than since', () => {
    const error = queryError(listActivityQuery, { since: '2026-05-02', until: '2026-05-02T00:00:00Z' });
    expect(error.validationErrors).to.deep.equal({ until: ['until must be later than since'] });
  });

  it('GET /activity/new: the same filters, a cursor of the feed (400 Invalid cursor) and limit 1-100', () => {
    expect(parseQuery(pollActivityQuery, {})).to.deep.equal({ limit: 100 });
    expect(
      parseQuery(pollActivityQuery, {
        cursor: encodeCursor('activity', 12),
        limit: '5',
        actor_kind: 'ai',
        page: '3',
      }),
    ).to.deep.equal({ cursor: 12, limit: 5, actor_kind: 'ai' });
    for (const cursor of ['nope', encodeCursor('events', 12), ['a', 'b']]) {
      const error = queryError(pollActivityQuery, { cursor });
      expect([error.message, error.validationErrors]).to.deep.equal([
        'Invalid cursor',
        { cursor: ['Invalid cursor'] },
      ]);
    }
    for (const limit of ['0', '101', 'all']) {
      expect(queryError(pollActivityQuery, { limit }).message, limit).to.equal('Invalid limit');
    }
  });

  it('GET /tickets/{id}/history: page and per_page as every list', () => {
    expect(parseQuery(ticketHistoryQuery, {})).to.deep.equal({ page: 1, per_page: 50 });
    expect(queryError(ticketHistoryQuery, { per_page: '0' }).message).to.equal('Invalid per_page');
  });

  it('GET /events: a cursor of the stream as after, limit, types', () => {
    expect(parseQuery(listEventsQuery, {})).to.deep.equal({ limit: 100 });
    expect(
      parseQuery(listEventsQuery, { after: encodeCursor('events', 0), types: 'ticket.*,comment.created' }),
    ).to.deep.equal({ after: 0, limit: 100, types: ['ticket.*', 'comment.created'] });
    const error = queryError(listEventsQuery, { after: encodeCursor('activity', 3) });
    expect(error.validationErrors).to.deep.equal({ after: ['Invalid cursor'] });
    expect(queryError(listEventsQuery, { types: 'ticket.created;drop' }).message).to.equal('Invalid types');
  });
});

import { expect } from 'chai';
import type { Principal } from '@tix/protos';
import { ifNoneMatchNames } from '../../src/http/conditional.js';
import { cursorExpiredAnswer, pollEtag, polledAnswer } from '../../src/http/polling.js';
import { writeAnswer } from '../../src/routes/mount.js';
import type { RouteDeps } from '../../src/routes/operation.js';
import { presentActivity, presentStreamedEvent } from '../../src/resources/presenters/activity.js';
import { activityFilter, mayReadComments } from '../../src/routes/v1/activity.mapping.js';
import { FakeResponse, fakeRequest } from '../support/fake-http.js';
import type { Response } from 'express';

describe('activity presenters', () => {
  it('an entry: int64 ids as numbers, absent optionals as null, changes parsed', () => {
    expect(
      presentActivity({
        id: '90211',
        type: 'ticket.updated',
        occurred_at: '2026-05-02T10:11:00.123Z',
        project_id: 1,
        actor: { kind: 'ai', user_id: 9, name: 'Tix AI', via: { type: 'ai_action', id: '981' } },
        subject: { type: 'ticket', id: 42, ticket_number: 'SUP-42', title: 'Login loop on Safari' },
        changes_json: '{"priority":{"from":"medium","to":"high"}}',
        summary: 'Tix AI changed the priority of SUP-42 from Medium to High',
      }),
    ).to.deep.equal({
      id: 90211,
      type: 'ticket.updated',
      occurred_at: '2026-05-02T10:11:00.123Z',
      project_id: 1,
      actor: {
        kind: 'ai',
        user_id: 9,
        name: 'Tix AI',
        api_key_id: null,
        via: { type: 'ai_action', id: 981 },
      },
      subject: { type: 'ticket', id: 42, ticket_number: 'SUP-42', title: 'Login loop on Safari' },
      changes: { priority: { from: 'medium', to: 'high' } },
      comment: null,
      summary: 'Tix AI changed the priority of SUP-42 from Medium to High',
    });
    const note = presentActivity({
      id: '7',
      type: 'comment.created',
      occurred_at: '2026-05-02T10:11:00.123Z',
      actor: { kind: 'api_key', user_id: 3, api_key_id: 12 },
      subject: { type: 'ticket', id: 42 },
      changes_json: '{}',
      comment: { id: 5, is_internal: true },
      summary: 'Someone added an internal note to ticket 42',
    });
    expect(note).to.deep.include({
      project_id: null,
      actor: { kind: 'api_key', user_id: 3, name: null, api_key_id: 12, via: null },
      subject: { type: 'ticket', id: 42, ticket_number: null, title: null },
      comment: { id: 5, is_internal: true, excerpt: null },
    });
  });

  it('a streamed event: its id and sequence, then the webhook delivery body as sent', () => {
    const body = { event: 'ticket.created', timestamp: 1700000000, data: { id: 1, title: 'x' } };
    const presented = presentStreamedEvent({
      sequence: '5120',
      id: '5d0c3c9e-2d4e-4f0e-8d83-0d1c8f3b7a10',
      type: 'ticket.created',
      body_json: JSON.stringify(body),
    });
    expect(presented).to.deep.equal({ id: '5d0c3c9e-2d4e-4f0e-8d83-0d1c8f3b7a10', sequence: 5120, ...body });
    expect(Object.keys(presented)).to.deep.equal(['id', 'sequence', 'event', 'timestamp', 'data']);
  });

  it('the filter: no project is every project; only the given conditions', () => {
    expect(activityFilter(undefined, {})).to.deep.equal({ project_ids: [], types: [] });
    expect(
      activityFilter(3, {
        ticket_id: 4,
        actor_kind: 'user',
        type: ['ticket.*'],
        since: '2026-05-01T00:00:00.000Z',
      }),
    ).to.deep.equal({
      project_ids: [3],
      types: ['ticket.*'],
      ticket_id: 4,
      actor_kind: 'user',
      since: '2026-05-01T00:00:00.000Z',
    });
  });

  it('comment text only for callers holding comments:read that their role allows', () => {
    const caller = (scopes: Principal['scopes']): Principal => ({
      kind: 'api_key',
      user_id: 1,
      role: 'viewer',
      scopes,
    });
    expect(mayReadComments(caller(['tickets:read', 'comments:read']))).to.equal(true);
    expect(mayReadComments(caller(['tickets:read']))).to.equal(false);
  });
});

describe('polling answers', () => {
  const deps = {} as Pick<RouteDeps, 'sessions'>;
  const poll = async (ifNoneMatch?: string) => {
    const response = new FakeResponse();
    await writeAnswer(
      fakeRequest({ method: 'GET', headers: { 'if-none-match': ifNoneMatch } }),
      response as unknown as Response,
      polledAnswer(pollEtag('a', 42), { cursor: 'c' }),
      deps,
    );
    return response;
  };

  it('200 with the data, a weak ETag of the position and X-Poll-Interval', async () => {
    const response = await poll();
    expect(response.statusCode).to.equal(200);
    expect(response.json()).to.deep.equal({ ok: true, data: { cursor: 'c' } });
    expect(response.getHeader('etag')).to.equal('W/"a-42"');
    expect(response.getHeader('x-poll-interval')).to.equal('10');
  });

  it('304 without a body when If-None-Match names the ETag (weak comparison, lists, *)', async () => {
    for (const header of ['W/"a-42"', '"a-42"', 'W/"a-41", W/"a-42"', '*']) {
      const response = await poll(header);
      expect(response.statusCode, header).to.equal(304);
      expect(response.body, header).to.equal(undefined);
      expect(response.getHeader('etag')).to.equal('W/"a-42"');
      expect(response.getHeader('x-poll-interval')).to.equal('10');
    }
    for (const header of ['W/"a-41"', 'W/"e-42"', ''])
      expect((await poll(header)).statusCode, header).to.equal(200);
    expect(ifNoneMatchNames(undefined, 'W/"a-1"')).to.equal(false);
  });

  it('410 in the error envelope for an expired cursor', async () => {
    const response = new FakeResponse();
    await writeAnswer(
      fakeRequest(),
      response as unknown as Response,
      cursorExpiredAnswer('Cursor expired; reload /activity'),
      deps,
    );
    expect(response.statusCode).to.equal(410);
    expect(response.json()).to.deep.equal({
      ok: false,
      error: { code: 410, message: 'Cursor expired; reload /activity' },
    });
  });
});

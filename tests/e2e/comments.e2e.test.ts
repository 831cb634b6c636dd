/**
 * Comments through the real fleet (gateway -> comment service -> ticket service -> lookup), as an
 * integrator drives them: the spec flow, the role matrix for edit and delete with one user of each
 * role, project scope, and the comment events reaching RabbitMQ once each with the API's JSON.
 */
import { expect } from 'chai';
import { eventually, expectError } from '@tix/kit/testing';
import type { DomainEvent } from '@tix/protos';
import { createProbeQueue } from '../support/broker.js';
import {
  createComment,
  createKey,
  createProject,
  createTicket,
  createTicketType,
  type ProjectFixture,
  unique,
} from '../support/fixtures.js';
import { request } from '../support/http.js';

type Role = 'admin' | 'team_lead' | 'agent' | 'viewer';
type Key = Awaited<ReturnType<typeof createKey>>;

interface CommentJson {
  id: number;
  ticket_id: number;
  user_id: number;
  content: string;
  content_html: string | null;
  is_internal: boolean;
  created_at: string;
  updated_at: string;
}

/** The comment an event carries. */
function dataOf(event: DomainEvent): CommentJson {
  return event.data as unknown as CommentJson;
}

describe('comments through the fleet', () => {
  let project: ProjectFixture;
  let typeId: number;
  let author: Key;
  const others = {} as Record<Role, Key>;
  let probe: Awaited<ReturnType<typeof createProbeQueue>>;

  before(async () => {
    project = await createProject();
    typeId = (await createTicketType(project.slug)).id;
    author = await createKey({ project: project.slug, role: 'agent' });
    for (const role of ['admin', 'team_lead', 'agent', 'viewer'] as const)
      others[role] = await createKey({ project: project.slug, role });
    probe = await createProbeQueue(unique('e2e-comments-'), 'comment.*');
  });
  after(() => probe?.remove());

  const api = (method: string, path: string, body?: unknown, key = author.key) =>
    request(`/v1${path}`, { method, key, body });

  const newTicket = async (): Promise<number> =>
    (await createTicket<{ id: number }>(author.key, { ticket_type_id: typeId, title: 'Printer on fire' })).id;
  const newComment = (ticket: number, body: Record<string, unknown>, key = author.key) =>
    createComment<CommentJson>(key, ticket, body);

  it('runs the spec flow: note, public reply, list, include_internal, edit, publish, delete', async () => {
    const ticket = await newTicket();
    const note = await newComment(ticket, { content: 'Customer is on the old firmware.' });
    expect(note).to.deep.equal({
      id: note.id,
      ticket_id: ticket,
      user_id: author.user_id,
      content: 'Customer is on the old firmware.',
      content_html: null,
      is_internal: true,
      author_type: 'staff',
      customer_id: null,
      created_at: note.created_at,
      updated_at: note.created_at,
    });
    const reply = await newComment(ticket, {
      content: 'Please update the firmware.',
      content_html:
        '<p onclick="x()">Please <a href="javascript:alert(1)">update</a><img src=x onerror=alert(1)></p>',
      is_internal: false,
    });
    expect(reply.content_html).to.equal(
      '<p>Please <a rel="noopener noreferrer nofollow" target="_blank">update</a></p>',
    );

    const all = await api('GET', `/tickets/${ticket}/comments`);
    expect(all.body).to.deep.equal({
      ok: true,
      data: { comments: [note, reply], count: 2, ticket_id: ticket },
    });
    const publicOnly = await api('GET', `/tickets/${ticket}/comments?include_internal=false`);
    expect(publicOnly.body.data).to.deep.equal({ comments: [reply], count: 1, ticket_id: ticket });
    expectError(
      await api('GET', `/tickets/${ticket}/comments?include_internal=nope`),
      400,
      'Invalid include_internal',
      {
        include_internal: ['include_internal must be true or false (or 1 or 0)'],
      },
    );

    expect((await api('GET', `/comments/${note.id}`)).body).to.deep.equal({
      ok: true,
      data: { comment: note },
    });
    const published = await api('PUT', `/comments/${note.id}`, {
      content: 'Firmware 2.1 fixes it.',
      is_internal: false,
    });
    expect(published.status, published.text).to.equal(200);
    const after = published.body.data.comment as CommentJson;
    expect(after).to.deep.equal({
      ...note,
      content: 'Firmware 2.1 fixes it.',
      is_internal: false,
      updated_at: after.updated_at,
    });
    expectError(await api('PUT', `/comments/${note.id}`, { is_internal: true }), 422, 'Validation failed', {
      is_internal: ['A public comment cannot be made internal'],
    });

    expect((await api('DELETE', `/comments/${reply.id}`)).body).to.deep.equal({
      ok: true,
      data: { message: 'Comment deleted' },
    });
    expectError(await api('GET', `/comments/${reply.id}`), 404, 'Comment not found');

    // Every change reached RabbitMQ exactly once, carrying the comment as the API returned it.
    const received: DomainEvent[] = [];
    const ofThisTicket = () => received.filter((event) => dataOf(event).ticket_id === ticket);
    await eventually(async () => {
      received.push(...(await probe.drain()));
      return ofThisTicket().length >= 4;
    }, 20_000);
    received.push(...(await probe.drain()));
    const mine = ofThisTicket();
    expect(mine.map((event) => [event.type, dataOf(event).id])).to.deep.equal([
      ['comment.created', note.id],
      ['comment.created', reply.id],
      ['comment.updated', note.id],
      ['comment.deleted', reply.id],
    ]);
    expect(mine.map((event) => event.data)).to.deep.equal([note, reply, after, reply]);
    expect(mine.every((event) => event.project_id === project.id && event.source === 'comments')).to.be.true;
  });

  it('role matrix: the author and admins edit and delete; team leads only edit; other agents and viewers neither', async () => {
    const ticket = await newTicket();
    // [who, key, may edit, may delete]
    const matrix: [string, Key, boolean, boolean][] = [
      ['author', author, true, true],
      ['agent', others.agent, false, false],
      ['viewer', others.viewer, false, false],
      ['team_lead', others.team_lead, true, false],
      ['admin', others.admin, true, true],
    ];
    // A viewer's key never writes, whatever its scopes: the gateway refuses before the comment rule.
    const viewerRefusal = "The key's owner has the viewer role, which does not allow comments:write";
    for (const [who, key, mayEdit, mayDelete] of matrix) {
      const refusal = (rule: string) => (who === 'viewer' ? viewerRefusal : rule);
      const comment = await newComment(ticket, { content: 'by the author' });
      const edit = await api('PUT', `/comments/${comment.id}`, { content: `edited by ${who}` }, key.key);
      if (mayEdit)
        expect(edit.body.data.comment, who).to.deep.include({
          content: `edited by ${who}`,
          user_id: author.user_id,
        });
      else expectError(edit, 403, refusal('Only the author or a team lead can edit this comment'));
      const removal = await api('DELETE', `/comments/${comment.id}`, undefined, key.key);
      if (mayDelete) expect(removal.status, who).to.equal(200);
      else expectError(removal, 403, refusal('Only the author or an admin can delete this comment'));
    }
  });

  it('a viewer may read; keys without the comment scopes get 403; other projects and deleted tickets are 404', async () => {
    const ticket = await newTicket();
    const comment = await newComment(ticket, { content: 'visible' });
    const reader = await createKey({
      project: project.slug,
      role: 'viewer',
      scopes: 'tickets:read,comments:read',
    });
    expect((await api('GET', `/comments/${comment.id}`, undefined, reader.key)).status).to.equal(200);
    expectError(
      await api('POST', `/tickets/${ticket}/comments`, { content: 'x' }, reader.key),
      403,
      'Missing required scope: comments:write',
    );
    const ticketsOnly = await createKey({ project: project.slug, scopes: 'tickets:read,tickets:write' });
    expectError(
      await api('GET', `/tickets/${ticket}/comments`, undefined, ticketsOnly.key),
      403,
      'Missing required scope: comments:read',
    );

    const elsewhere = await createProject();
    const outsider = await createKey({ project: elsewhere.slug, role: 'admin' });
    expectError(
      await api('GET', `/comments/${comment.id}`, undefined, outsider.key),
      404,
      'Comment not found',
    );
    expectError(
      await api('DELETE', `/comments/${comment.id}`, undefined, outsider.key),
      404,
      'Comment not found',
    );
    expectError(
      await api('GET', `/tickets/${ticket}/comments`, undefined, outsider.key),
      404,
      'Ticket not found',
    );

    // Deleting a ticket takes a team lead (the roles table).
    expect((await api('DELETE', `/tickets/${ticket}`, undefined, others.team_lead.key)).status).to.equal(200);
    expectError(await api('GET', `/tickets/${ticket}/comments`), 404, 'Ticket not found');
    expectError(await api('GET', `/comments/${comment.id}`), 404, 'Comment not found');
  });

  it('bad input is 400/422, never 500', async () => {
    const ticket = await newTicket();
    expectError(await api('GET', '/tickets/abc/comments'), 400, 'Invalid ticket id');
    expectError(await api('GET', '/comments/0'), 400, 'Invalid comment id');
    expectError(
      await api('POST', `/tickets/${ticket}/comments`, { content: 'a'.repeat(50_001) }),
      422,
      'Validation failed',
      {
        content: ['Content must be at most 50000 characters'],
      },
    );
    expectError(
      await api('POST', `/tickets/${ticket}/comments`, { content: 'nul\u0000byte' }),
      422,
      'Validation failed',
      {
        content: ['Content must not contain control characters'],
      },
    );
    const big = await newComment(ticket, {
      content: 'ü'.repeat(50_000),
      content_html: '<p>' + 'ü'.repeat(49_993) + '</p>',
    });
    expect(big.content_html).to.have.length(50_000);
  });
});

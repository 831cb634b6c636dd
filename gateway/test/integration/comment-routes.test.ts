/**
 * The comment routes against the real lookup, ticket and comment services (fresh databases): the
 * spec's comment flow through the gateway, scopes, project scope, path and query validation, the
 * role matrix, and the comment service's refusals reaching the client as the spec's envelopes.
 */
import { expect } from 'chai';
import { startTestCommentServer } from '@tix/comment-service/testing';
import { startTestTicketServer } from '@tix/ticket-service/testing';
import { expectError, suiteFixture } from '@tix/kit/testing';
import { apiCaller, bearer, request, startTestGateway } from '../support/test-gateway.js';
import { apiKeyMaker, createAlphaAndBeta, createDefaultTypes } from '../support/lookup-seed.js';
import { startRealServices } from '../support/real-services.js';

type Role = 'admin' | 'team_lead' | 'agent' | 'viewer';
type Actor = 'author' | 'agent' | 'lead' | 'admin' | 'viewer';

const ALL_SCOPES = ['tickets:read', 'tickets:write', 'tickets:delete', 'comments:read', 'comments:write'];

describe('comment routes + real comment, ticket and lookup services (fresh databases)', function () {
  this.timeout(60_000);
  const users = {} as Record<Actor, number>;
  const keys = {} as Record<Actor | 'readOnly' | 'noComments' | 'scopedBeta', string>;
  let taskType: { alpha: number; beta: number };

  const fleet = suiteFixture(() =>
    startRealServices({
      label: 'gateway_comments',
      seed: async (admin) => {
        await createAlphaAndBeta(admin);
        taskType = await createDefaultTypes(admin, ['alpha', 'beta']);
        const actor = async (name: Actor, role: Role) => {
          const user = await admin.CreateUser({ name, email: `${name}@example.com`, role });
          users[name] = user.id;
          keys[name] = (await admin.CreateApiKey({ user_email: user.email, scopes: ALL_SCOPES, name })).key;
        };
        await actor('author', 'agent');
        await actor('agent', 'agent');
        await actor('lead', 'team_lead');
        await actor('admin', 'admin');
        await actor('viewer', 'viewer');
        const key = apiKeyMaker(admin, 'author@example.com', (scopes) => `key ${scopes.join(' ')}`);
        keys.readOnly = await key(['tickets:read', 'comments:read']);
        keys.noComments = await key(['tickets:read', 'tickets:write']);
        keys.scopedBeta = await key(ALL_SCOPES, 'beta');
      },
      peers: {
        tickets: ({ lookup }) =>
          startTestTicketServer({ lookupAddress: lookup, label: 'gateway_comments_tickets' }),
        comments: ({ tickets }) =>
          startTestCommentServer({ ticketsAddress: tickets!, label: 'gateway_comments' }),
      },
    }),
  );

  const call = apiCaller(
    () => fleet.gateway,
    () => keys.author,
  );

  async function newTicket(project: 'alpha' | 'beta' = 'alpha'): Promise<number> {
    const response = await call('POST', `/tickets?project=${project}`, {
      ticket_type_id: taskType[project],
      title: 'Customer cannot log in',
    });
    expect(response.status, JSON.stringify(response.body)).to.equal(201);
    return response.body.data.ticket.id as number;
  }

  async function newComment(ticket: number, body: Record<string, unknown>, key = keys.author) {
    const response = await call('POST', `/tickets/${ticket}/comments?project=alpha`, body, key);
    expect(response.status, JSON.stringify(response.body)).to.equal(201);
    return response.body.data.comment as Record<string, any>;
  }

  /** In `project`, the ticket's comments, a new comment on it and the comment itself are 404. */
  async function expectHiddenIn(project: 'alpha' | 'beta', ticket: number, commentId: number): Promise<void> {
    expectError(await call('GET', `/tickets/${ticket}/comments?project=${project}`), 404, 'Ticket not found');
    expectError(
      await call('POST', `/tickets/${ticket}/comments?project=${project}`, { content: 'x' }),
      404,
      'Ticket not found',
    );
    expectError(await call('GET', `/comments/${commentId}?project=${project}`), 404, 'Comment not found');
  }

  it('runs the spec flow: create (201), list, get, update, delete (200 message), then 404', async () => {
    const ticket = await newTicket();
    const created = await newComment(ticket, { content: 'Looking into it.' });
    expect(created).to.deep.equal({
      id: created.id,
      ticket_id: ticket,
      user_id: users.author,
      content: 'Looking into it.',
      content_html: null,
      is_internal: true,
      author_type: 'staff',
      customer_id: null,
      created_at: created.created_at,
      updated_at: created.created_at,
    });
    const reply = await newComment(ticket, {
      content: 'Fixed, please retry.',
      content_html: '<p>Fixed, <a href="https://status.example.com">retry</a>.<script>x()</script></p>',
      is_internal: false,
    });
    expect(reply).to.deep.include({
      content_html:
        '<p>Fixed, <a href="https://status.example.com" rel="noopener noreferrer nofollow" target="_blank">retry</a>.</p>',
      is_internal: false,
    });

    const list = await call('GET', `/tickets/${ticket}/comments?project=alpha`);
    expect(list.status).to.equal(200);
    expect(list.body).to.deep.equal({
      ok: true,
      data: { comments: [created, reply], count: 2, ticket_id: ticket },
    });
    const publicOnly = await call('GET', `/tickets/${ticket}/comments?project=alpha&include_internal=false`);
    expect(publicOnly.body.data).to.deep.equal({ comments: [reply], count: 1, ticket_id: ticket });
    expect(
      (await call('GET', `/tickets/${ticket}/comments?project=alpha&include_internal=1`)).body.data.count,
    ).to.equal(2);

    expect((await call('GET', `/comments/${created.id}?project=alpha`)).body).to.deep.equal({
      ok: true,
      data: { comment: created },
    });

    const updated = await call('PUT', `/comments/${created.id}?project=alpha`, {
      content: 'Found it.',
      content_html: '<p>Found it.</p>',
      is_internal: false,
    });
    expect(updated.status, JSON.stringify(updated.body)).to.equal(200);
    expect(updated.body.data.comment).to.deep.equal({
      ...created,
      content: 'Found it.',
      content_html: '<p>Found it.</p>',
      is_internal: false,
      updated_at: updated.body.data.comment.updated_at,
    });
    const cleared = await call('PUT', `/comments/${created.id}?project=alpha`, { content_html: null });
    expect(cleared.body.data.comment).to.deep.include({ content: 'Found it.', content_html: null });

    expectError(
      await call('PUT', `/comments/${created.id}?project=alpha`, { is_internal: true }),
      422,
      'Validation failed',
      { is_internal: ['A public comment cannot be made internal'] },
    );

    expect(await call('DELETE', `/comments/${created.id}?project=alpha`)).to.deep.include({
      status: 200,
      body: { ok: true, data: { message: 'Comment deleted' } },
    });
    expectError(await call('GET', `/comments/${created.id}?project=alpha`), 404, 'Comment not found');
    expectError(await call('DELETE', `/comments/${created.id}?project=alpha`), 404, 'Comment not found');
  });

  it('scopes: reads need comments:read, writes comments:write (403 names the scope)', async () => {
    const ticket = await newTicket();
    const comment = await newComment(ticket, { content: 'x' });
    expectError(
      await call('POST', `/tickets/${ticket}/comments?project=alpha`, { content: 'x' }, keys.readOnly),
      403,
      'Missing required scope: comments:write',
    );
    expectError(
      await call('PUT', `/comments/${comment.id}?project=alpha`, { content: 'y' }, keys.readOnly),
      403,
      'Missing required scope: comments:write',
    );
    expectError(
      await call('DELETE', `/comments/${comment.id}?project=alpha`, undefined, keys.readOnly),
      403,
      'Missing required scope: comments:write',
    );
    expect(
      (await call('GET', `/comments/${comment.id}?project=alpha`, undefined, keys.readOnly)).status,
    ).to.equal(200);
    expectError(
      await call('GET', `/tickets/${ticket}/comments?project=alpha`, undefined, keys.noComments),
      403,
      'Missing required scope: comments:read',
    );
    expectError(
      await call('GET', `/comments/${comment.id}?project=alpha`, undefined, keys.noComments),
      403,
      'Missing required scope: comments:read',
    );
  });

  it('project context: required; another project is 404 by ticket id and by comment id', async () => {
    const ticket = await newTicket();
    const comment = await newComment(ticket, { content: 'alpha only' });
    expectError(await call('GET', `/tickets/${ticket}/comments`), 400, 'Project ID is required.');
    expectError(await call('GET', `/comments/${comment.id}`), 400, 'Project ID is required.');
    await expectHiddenIn('beta', ticket, comment.id);
    // A key scoped to beta ignores ?project=alpha and never reaches alpha's comment.
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { content: 'x' }],
      ['DELETE', undefined],
    ] as const) {
      expectError(
        await call(method, `/comments/${comment.id}?project=alpha`, body, keys.scopedBeta),
        404,
        'Comment not found',
      );
    }
    expectError(
      await call('GET', `/tickets/${ticket}/comments?project=alpha`, undefined, keys.scopedBeta),
      404,
      'Ticket not found',
    );
  });

  it('a deleted ticket hides its comments (404)', async () => {
    const ticket = await newTicket();
    const comment = await newComment(ticket, { content: 'x' });
    // Deleting tickets takes a team lead (the roles table).
    expect((await call('DELETE', `/tickets/${ticket}?project=alpha`, undefined, keys.lead)).status).to.equal(
      200,
    );
    await expectHiddenIn('alpha', ticket, comment.id);
  });

  it('path ids and include_internal are validated (400); unknown methods are 405', async () => {
    for (const bad of ['abc', '0', '01', '-1', '2147483648', '1.5']) {
      expectError(await call('GET', `/tickets/${bad}/comments?project=alpha`), 400, 'Invalid ticket id');
      expectError(
        await call('POST', `/tickets/${bad}/comments?project=alpha`, { content: 'x' }),
        400,
        'Invalid ticket id',
      );
      expectError(await call('GET', `/comments/${bad}?project=alpha`), 400, 'Invalid comment id');
      expectError(
        await call('PUT', `/comments/${bad}?project=alpha`, { content: 'x' }),
        400,
        'Invalid comment id',
      );
      expectError(await call('DELETE', `/comments/${bad}?project=alpha`), 400, 'Invalid comment id');
    }
    const ticket = await newTicket();
    expectError(
      await call('GET', `/tickets/${ticket}/comments?project=alpha&include_internal=maybe`),
      400,
      'Invalid include_internal',
      { include_internal: ['include_internal must be true or false (or 1 or 0)'] },
    );
    const patched = await call('PATCH', '/comments/1?project=alpha', { content: 'x' });
    expect(patched.status).to.equal(405);
    expect(patched.headers.get('allow')).to.equal('GET, HEAD, PUT, DELETE, OPTIONS');
  });

  it('bodies: 422 for shape (gateway) and content (service); a maximal comment fits the body limit', async () => {
    const ticket = await newTicket();
    const path = `/tickets/${ticket}/comments?project=alpha`;
    expectError(await call('POST', path, {}), 422, 'Validation failed', { content: ['Content is required'] });
    expectError(await call('POST', path, { content: ' ', is_internal: 'no' }), 422, 'Validation failed', {
      content: ['Content cannot be empty'],
      is_internal: ['is_internal must be true or false'],
    });
    expectError(await call('POST', path, { content: 'a'.repeat(50_001) }), 422, 'Validation failed', {
      content: ['Content must be at most 50000 characters'],
    });
    expectError(await call('POST', path, { content: 'a\u0000b' }), 422, 'Validation failed', {
      content: ['Content must not contain control characters'],
    });
    expectError(
      await call('POST', path, { content: 'x', content_html: '<'.repeat(50_000) }),
      422,
      'Validation failed',
      {
        content_html: ['Content HTML must be at most 50000 characters after sanitizing'],
      },
    );
    const malformed = await request(`${fleet.gateway.apiUrl}/v1${path}`, {
      method: 'POST',
      headers: { ...bearer(keys.author), 'Content-Type': 'application/json' },
      body: '{"content": ',
    });
    expect(malformed.status).to.equal(400);
    expect(malformed.body.ok).to.equal(false);
    // 50000 two-byte characters in content and 50000 in content_html: about 200 kB of JSON.
    const maximal = await newComment(ticket, {
      content: 'é'.repeat(50_000),
      content_html: 'ü'.repeat(50_000),
    });
    expect(maximal.content).to.have.length(50_000);
    expect(maximal.content_html).to.have.length(50_000);
    expectError(await call('PUT', `/comments/${maximal.id}?project=alpha`, {}), 422, 'Validation failed', {
      body: ['Give at least one field to change: content, content_html or is_internal'],
    });
  });

  it('lists comments far beyond one gRPC message (4 MiB): 30 maximal comments, about 6 MB of JSON', async () => {
    const ticket = await newTicket();
    const body = { content: 'é'.repeat(50_000), content_html: 'ü'.repeat(50_000), is_internal: false };
    for (let n = 0; n < 30; n += 1) await newComment(ticket, body);
    const listed = await call('GET', `/tickets/${ticket}/comments?project=alpha`);
    expect(listed.status).to.equal(200);
    expect(listed.body.data.count).to.equal(30);
    expect(listed.body.data.ticket_id).to.equal(ticket);
    expect(listed.body.data.comments).to.have.length(30);
    expect(listed.body.data.comments[29].content_html).to.equal(body.content_html);
  });

  describe("role matrix for edit and delete (the comment is the author's, an agent)", () => {
    // [actor, may edit, may delete]
    const matrix: [Actor, boolean, boolean][] = [
      ['author', true, true],
      ['agent', false, false],
      ['viewer', false, false],
      ['lead', true, false],
      ['admin', true, true],
    ];
    for (const [actor, mayEdit, mayDelete] of matrix) {
      // A viewer's key never writes, whatever its scopes: the gateway refuses before the comment rule.
      const refusal = (rule: string) =>
        actor === 'viewer'
          ? "The key's owner has the viewer role, which does not allow comments:write"
          : rule;
      it(`${actor}: PUT ${mayEdit ? 200 : 403}, DELETE ${mayDelete ? 200 : 403}`, async () => {
        const ticket = await newTicket();
        const comment = await newComment(ticket, { content: 'by the author' });
        const path = `/comments/${comment.id}?project=alpha`;
        const edit = await call('PUT', path, { content: `edited by ${actor}` }, keys[actor]);
        if (mayEdit) {
          expect(edit.status, JSON.stringify(edit.body)).to.equal(200);
          expect(edit.body.data.comment).to.deep.include({
            content: `edited by ${actor}`,
            user_id: users.author,
          });
        } else {
          expectError(edit, 403, refusal('Only the author or a team lead can edit this comment'));
        }
        const removal = await call('DELETE', path, undefined, keys[actor]);
        if (mayDelete) expect(removal.body).to.deep.equal({ ok: true, data: { message: 'Comment deleted' } });
        else expectError(removal, 403, refusal('Only the author or an admin can delete this comment'));
      });
    }
  });

  it('answers 503 when the comment service is not deployed', async () => {
    const withoutComments = await startTestGateway({
      services: { lookup: fleet.lookup.address, tickets: fleet.tickets.address },
    });
    try {
      const response = await request(`${withoutComments.apiUrl}/v1/comments/1?project=alpha`, {
        headers: bearer(keys.author),
      });
      expectError(response, 503, 'The comments service is not deployed');
    } finally {
      await withoutComments.close();
    }
  });
});

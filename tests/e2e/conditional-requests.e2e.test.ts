/**
 * Conditional requests and created resources through the fleet: a strong ETag on
 * every single resource, 304 for a GET whose If-None-Match names it (both hosts), If-Match on a
 * ticket's PUT, PATCH status and DELETE (412 and nothing written when stale, checked before the body
 * `version`), `Location` on 201 naming a path that answers GET, and the headers browsers may read.
 */
import { expect } from 'chai';
import {
  createKey,
  createProject,
  createTicket,
  createTicketType,
  createUser,
  type ProjectFixture,
} from '../support/fixtures.js';
import { fleet } from '../support/fleet.js';
import { request } from '../support/http.js';
import { signIn } from '../support/session.js';

const PASSWORD = 'conditional requests passphrase';
const CHANGED = 'Ticket has changed since the ETag in If-Match';

interface Ticket {
  id: number;
  version: number;
  title: string;
  status: string;
  priority: string;
}

describe('conditional requests and created resources', function () {
  let project: ProjectFixture;
  let key: string;
  let typeId: number;

  before(async () => {
    project = await createProject();
    typeId = (await createTicketType(project.slug, { isDefault: true })).id;
    // A team lead's key: the If-Match tests delete too.
    key = (await createKey({ project: project.slug, role: 'team_lead' })).key;
  });

  const file = (title: string) =>
    createTicket<Ticket>(key, { ticket_type_id: typeId, title, description: 'Conditional requests.' });
  const get = (id: number, headers: Record<string, string> = {}) =>
    request(`/v1/tickets/${id}`, { key, headers });

  it('tags a ticket with its version: GET, If-None-Match 304 without a body, a new tag after each change', async () => {
    const ticket = await file('Tagged');
    const first = await get(ticket.id);
    expect(first.headers.get('etag')).to.equal(`"t${ticket.id}.${ticket.version}"`);
    expect(first.headers.get('cache-control')).to.equal('private, no-cache');
    const unchanged = await get(ticket.id, { 'if-none-match': first.headers.get('etag')! });
    expect(unchanged.status).to.equal(304);
    expect(unchanged.text).to.equal('');
    expect(unchanged.headers.get('etag')).to.equal(first.headers.get('etag'));
    // A list naming it, or a weak form of it, matches too (If-None-Match compares weakly); another does not.
    expect((await get(ticket.id, { 'if-none-match': `"x", W/"t${ticket.id}.1"` })).status).to.equal(304);
    expect((await get(ticket.id, { 'if-none-match': `"t${ticket.id}.2"` })).status).to.equal(200);

    const updated = await request(`/v1/tickets/${ticket.id}`, {
      method: 'PUT',
      key,
      body: { priority: 'high' },
    });
    expect(updated.status).to.equal(200);
    expect(updated.headers.get('etag')).to.equal(`"t${ticket.id}.2"`);
    const stale = await get(ticket.id, { 'if-none-match': first.headers.get('etag')! });
    expect(stale.status).to.equal(200);
    expect(stale.body.data.ticket.priority).to.equal('high');
  });

  it('writes a ticket with If-Match only while it is at that version: 412 otherwise, writing nothing', async () => {
    const ticket = await file('Guarded');
    const tag = `"t${ticket.id}.${ticket.version}"`;
    const staleTag = `"t${ticket.id}.${ticket.version + 5}"`;
    const refusals = [
      await request(`/v1/tickets/${ticket.id}`, {
        method: 'PUT',
        key,
        headers: { 'if-match': staleTag },
        body: { title: 'Not written' },
      }),
      await request(`/v1/tickets/${ticket.id}/status`, {
        method: 'PATCH',
        key,
        headers: { 'if-match': staleTag },
        body: { status: 'closed' },
      }),
      await request(`/v1/tickets/${ticket.id}`, { method: 'DELETE', key, headers: { 'if-match': staleTag } }),
      // A weak tag, or another ticket's, never matches (RFC 9110: If-Match compares strongly).
      await request(`/v1/tickets/${ticket.id}`, {
        method: 'PUT',
        key,
        headers: { 'if-match': `W/${tag}` },
        body: { title: 'Not written' },
      }),
      await request(`/v1/tickets/${ticket.id}`, {
        method: 'PUT',
        key,
        headers: { 'if-match': `"t${ticket.id + 1}.${ticket.version}"` },
        body: { title: 'Not written' },
      }),
      // A version no ticket can have (beyond int32) names nothing: 412, not a 500.
      await request(`/v1/tickets/${ticket.id}/status`, {
        method: 'PATCH',
        key,
        headers: { 'if-match': `"t${ticket.id}.9999999999"` },
        body: { status: 'closed' },
      }),
    ];
    for (const refused of refusals) {
      expect(refused.status, refused.text).to.equal(412);
      expect(refused.body).to.deep.equal({ ok: false, error: { code: 412, message: CHANGED } });
    }
    const unchanged = (await get(ticket.id)).body.data.ticket as Ticket;
    expect([unchanged.title, unchanged.version, unchanged.status]).to.deep.equal([
      'Guarded',
      ticket.version,
      ticket.status,
    ]);

    // If-Match first, then the body version: a current tag with a stale version is the spec's 409.
    const staleVersion = await request(`/v1/tickets/${ticket.id}`, {
      method: 'PUT',
      key,
      headers: { 'if-match': tag },
      body: { title: 'Not written', version: ticket.version + 1 },
    });
    expect(staleVersion.status).to.equal(409);
    const several = await request(`/v1/tickets/${ticket.id}`, {
      method: 'PUT',
      key,
      headers: { 'if-match': `${tag}, "t${ticket.id}.9"` },
      body: { title: 'Not written' },
    });
    expect(several.status).to.equal(400);
    expect(several.body.error?.message).to.equal('If-Match may name only one version of the ticket');

    const put = await request(`/v1/tickets/${ticket.id}`, {
      method: 'PUT',
      key,
      headers: { 'if-match': tag },
      body: { title: 'Written' },
    });
    expect(put.status, put.text).to.equal(200);
    const moved = await request(`/v1/tickets/${ticket.id}/status`, {
      method: 'PATCH',
      key,
      headers: { 'if-match': put.headers.get('etag')! },
      body: { status: 'closed' },
    });
    expect(moved.status, moved.text).to.equal(200);
    expect(moved.headers.get('etag')).to.equal(`"t${ticket.id}.${ticket.version + 2}"`);
    const anyVersion = await request(`/v1/tickets/${ticket.id}`, {
      method: 'DELETE',
      key,
      headers: { 'if-match': '*' },
    });
    expect(anyVersion.status, anyVersion.text).to.equal(200);
  });

  it('answers the same on the session host, where the console revalidates with If-None-Match', async () => {
    const ticket = await file('Both hosts');
    const agent = await signIn((await createUser('agent', { password: PASSWORD })).email, PASSWORD);
    const path = `/tickets/${ticket.id}?project=${project.slug}`;
    const first = await agent.call('GET', path);
    expect(first.headers.get('etag')).to.equal(`"t${ticket.id}.${ticket.version}"`);
    const again = await agent.call('GET', path, undefined, {
      headers: { 'if-none-match': first.headers.get('etag')! },
    });
    expect(again.status).to.equal(304);
    const refused = await agent.call(
      'PUT',
      path,
      { title: 'Not written' },
      { headers: { 'if-match': `"t${ticket.id}.${ticket.version + 1}"` } },
    );
    expect(refused.status).to.equal(412);
  });

  it('names each created resource in Location, a path of the same host that answers GET with it', async () => {
    const created = await request('/v1/tickets', {
      method: 'POST',
      key,
      body: { ticket_type_id: typeId, title: 'Located', description: 'Where is it?' },
    });
    expect(created.status).to.equal(201);
    const ticket = created.body.data.ticket as Ticket;
    expect(created.headers.get('location')).to.equal(`/v1/tickets/${ticket.id}`);
    expect(created.headers.get('etag')).to.equal(`"t${ticket.id}.1"`);
    expect((await request(created.headers.get('location')!, { key })).body.data.ticket).to.deep.equal(ticket);

    const comment = await request(`/v1/tickets/${ticket.id}/comments`, {
      method: 'POST',
      key,
      body: { content: 'Located too', is_internal: false },
    });
    expect(comment.status).to.equal(201);
    expect(comment.headers.get('location')).to.equal(`/v1/comments/${comment.body.data.comment.id}`);
    const fetched = await request(comment.headers.get('location')!, { key });
    expect(fetched.body.data.comment).to.deep.equal(comment.body.data.comment);
    // Every single resource is tagged: a comment's tag is a digest of what it says.
    expect(fetched.headers.get('etag')).to.equal(comment.headers.get('etag'));
    expect(
      (
        await request(comment.headers.get('location')!, {
          key,
          headers: { 'if-none-match': fetched.headers.get('etag')! },
        })
      ).status,
    ).to.equal(304);
    const edited = await request(comment.headers.get('location')!, {
      method: 'PUT',
      key,
      body: { content: 'Located, edited' },
    });
    expect(edited.headers.get('etag')).to.not.equal(fetched.headers.get('etag'));

    const form = new FormData();
    form.append('file', new Blob([Buffer.from('located bytes')], { type: 'text/plain' }), 'where.txt');
    const uploaded = await fetch(`${fleet().apiUrl}/v1/tickets/${ticket.id}/attachments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: form,
    });
    expect(uploaded.status).to.equal(201);
    const attachment = ((await uploaded.json()) as { data: { attachment: { id: number } } }).data.attachment;
    expect(uploaded.headers.get('location')).to.equal(`/v1/attachments/${attachment.id}`);
    expect((await request(uploaded.headers.get('location')!, { key })).body.data.attachment).to.deep.equal(
      attachment,
    );
  });

  it('lets browsers read ETag, Location and Retry-After (CORS)', async () => {
    const exposed = await request('/v1/projects', { key, headers: { origin: 'https://integrator.example' } });
    const names = (exposed.headers.get('access-control-expose-headers') ?? '').split(/,\s*/);
    expect(names).to.include.members(['ETag', 'Location', 'Retry-After']);
  });
});

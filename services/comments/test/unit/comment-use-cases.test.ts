/**
 * The use cases over a fake store and a fake ticket service: the order of refusals (401, 404, 403,
 * 422), what the ticket service's answers become, and that refused calls write nothing.
 */
import { expect } from 'chai';
import { AppError, type Caller } from '@tix/kit';
import type { Principal, Role } from '@tix/protos';
import type { CommentDeps } from '../../src/comments/comment-deps.js';
import type { CommentRow } from '../../src/comments/comment-row.js';
import type { CommentStore } from '../../src/comments/comment-store.js';
import { createComment } from '../../src/comments/create-comment.js';
import { deleteComment } from '../../src/comments/delete-comment.js';
import { getComment } from '../../src/comments/get-comment.js';
import { listComments } from '../../src/comments/list-comments.js';
import { updateComment } from '../../src/comments/update-comment.js';

const PROJECT = 1;
const TICKET = 7;
const AUTHOR = 10;

function row(overrides: Partial<CommentRow> = {}): CommentRow {
  const at = new Date('2026-01-01T00:00:00.000Z');
  return {
    id: 100,
    projectId: PROJECT,
    ticketId: TICKET,
    userId: AUTHOR,
    content: 'c',
    contentHtml: null,
    isInternal: true,
    authorType: 'staff',
    customerId: null,
    sourceRef: null,
    createdAt: at,
    updatedAt: at,
    ...overrides,
  };
}

function caller(userId: number, role: Role): Caller {
  const principal: Principal = { kind: 'api_key', user_id: userId, role, scopes: [] };
  return { correlationId: 'c-1', principal };
}

interface Fake {
  deps: CommentDeps;
  writes: string[];
  ticketCalls: unknown[];
}

/** A store holding `rows`, and a ticket service answering `ticketAnswer` for every GetTicket. */
function fake(rows: CommentRow[], ticketAnswer: AppError | null = null): Fake {
  const writes: string[] = [];
  const ticketCalls: unknown[] = [];
  const store: CommentStore = {
    find: (projectId, id) =>
      Promise.resolve(rows.find((r) => r.projectId === projectId && r.id === id) ?? null),
    listForTicket: (projectId, ticketId) =>
      Promise.resolve(rows.filter((r) => r.projectId === projectId && r.ticketId === ticketId)),
    insert(comment, eventsOf) {
      const created = { ...row(), ...comment, id: 200 };
      writes.push(...eventsOf(created).map((event) => event.type));
      return Promise.resolve(created);
    },
    update(projectId, id, decide, eventsOf) {
      const current = rows.find((r) => r.projectId === projectId && r.id === id);
      if (!current) return Promise.resolve(null);
      const next = decide(current);
      if (next === null) return Promise.resolve(current);
      const updated = { ...current, ...next };
      writes.push(...eventsOf(updated, current).map((event) => event.type));
      return Promise.resolve(updated);
    },
    delete(projectId, id, eventsOf) {
      const current = rows.find((r) => r.projectId === projectId && r.id === id);
      if (!current) return Promise.resolve(null);
      writes.push(...eventsOf(current, new Date()).map((event) => event.type));
      return Promise.resolve(current);
    },
  };
  const tickets: CommentDeps['tickets'] = {
    GetTicket: (request, context) => {
      ticketCalls.push({ request, context });
      return ticketAnswer ? Promise.reject(ticketAnswer) : Promise.resolve({} as never);
    },
  };
  return { deps: { store, tickets }, writes, ticketCalls };
}

async function refusal(call: Promise<unknown>): Promise<{ kind: string; message: string }> {
  try {
    await call;
  } catch (error) {
    expect(error).to.be.instanceOf(AppError);
    return { kind: (error as AppError).kind, message: (error as AppError).message };
  }
  throw new Error('expected a refusal');
}

const TICKET_NOT_FOUND = AppError.notFound('Ticket not found');
const TICKETS_DOWN = AppError.unavailable('Service temporarily unavailable');

describe('comments: use cases (fake store, fake ticket service)', () => {
  it("asks the ticket service as the caller (principal and correlation id) for the comment's ticket", async () => {
    const f = fake([row()]);
    const who = caller(AUTHOR, 'agent');
    await getComment(f.deps, { projectId: PROJECT, id: 100 }, who);
    expect(f.ticketCalls).to.deep.equal([
      {
        request: { project_id: PROJECT, id: TICKET },
        context: { correlationId: 'c-1', principal: who.principal },
      },
    ]);
  });

  it("list and create pass the ticket service's 404 through; nothing is written", async () => {
    const f = fake([row()], TICKET_NOT_FOUND);
    const who = caller(AUTHOR, 'agent');
    const notFound = { kind: 'not_found', message: 'Ticket not found' };
    expect(
      await refusal(
        listComments(f.deps, { projectId: PROJECT, ticketId: TICKET, includeInternal: true }, who),
      ),
    ).to.deep.equal(notFound);
    expect(
      await refusal(createComment(f.deps, { projectId: PROJECT, ticketId: TICKET, content: '' }, who)),
    ).to.deep.equal(notFound);
    expect(f.writes).to.deep.equal([]);
  });

  it('a comment whose ticket is gone is 404 Comment not found, before any permission check', async () => {
    const f = fake([row()], TICKET_NOT_FOUND);
    const viewer = caller(99, 'viewer');
    const notFound = { kind: 'not_found', message: 'Comment not found' };
    expect(await refusal(getComment(f.deps, { projectId: PROJECT, id: 100 }, viewer))).to.deep.equal(
      notFound,
    );
    expect(
      await refusal(updateComment(f.deps, { projectId: PROJECT, id: 100, content: 'x' }, viewer)),
    ).to.deep.equal(notFound);
    expect(await refusal(deleteComment(f.deps, { projectId: PROJECT, id: 100 }, viewer))).to.deep.equal(
      notFound,
    );
    expect(f.writes).to.deep.equal([]);
  });

  it("another project's comment id is 404 without asking the ticket service", async () => {
    const f = fake([row({ projectId: 2 })]);
    expect(
      await refusal(getComment(f.deps, { projectId: PROJECT, id: 100 }, caller(AUTHOR, 'admin'))),
    ).to.deep.equal({
      kind: 'not_found',
      message: 'Comment not found',
    });
    expect(f.ticketCalls).to.have.length(0);
  });

  it('the ticket service being down is 503, not a 404 (nothing is hidden or written by mistake)', async () => {
    const f = fake([row()], TICKETS_DOWN);
    expect(
      (await refusal(getComment(f.deps, { projectId: PROJECT, id: 100 }, caller(AUTHOR, 'agent')))).kind,
    ).to.equal('unavailable');
    expect(
      (await refusal(deleteComment(f.deps, { projectId: PROJECT, id: 100 }, caller(AUTHOR, 'agent')))).kind,
    ).to.equal('unavailable');
    expect(f.writes).to.deep.equal([]);
  });

  it('403 comes after the 404 checks and before validation', async () => {
    const f = fake([row()]);
    expect(
      await refusal(updateComment(f.deps, { projectId: PROJECT, id: 100, content: '' }, caller(11, 'agent'))),
    ).to.deep.equal({
      kind: 'permission_denied',
      message: 'Only the author or a team lead can edit this comment',
    });
    expect(
      await refusal(
        updateComment(f.deps, { projectId: PROJECT, id: 100, content: '' }, caller(AUTHOR, 'agent')),
      ),
    ).to.deep.equal({ kind: 'validation_failed', message: 'Validation failed' });
    expect(f.writes).to.deep.equal([]);
  });

  it('writes without a principal are 401; reads do not need one', async () => {
    const f = fake([row()]);
    const anonymous: Caller = { correlationId: 'c', principal: null };
    expect(
      (
        await refusal(
          createComment(f.deps, { projectId: PROJECT, ticketId: TICKET, content: 'x' }, anonymous),
        )
      ).kind,
    ).to.equal('unauthenticated');
    expect(
      (await refusal(updateComment(f.deps, { projectId: PROJECT, id: 100, content: 'x' }, anonymous))).kind,
    ).to.equal('unauthenticated');
    expect((await refusal(deleteComment(f.deps, { projectId: PROJECT, id: 100 }, anonymous))).kind).to.equal(
      'unauthenticated',
    );
    expect((await getComment(f.deps, { projectId: PROJECT, id: 100 }, anonymous)).id).to.equal(100);
  });

  it('create stamps the caller as author; update with no real change writes no event', async () => {
    const f = fake([row()]);
    const created = await createComment(
      f.deps,
      { projectId: PROJECT, ticketId: TICKET, content: 'hi', isInternal: false },
      caller(42, 'viewer'),
    );
    expect(created).to.deep.include({ userId: 42, content: 'hi', isInternal: false, contentHtml: null });
    await updateComment(f.deps, { projectId: PROJECT, id: 100, content: 'c' }, caller(AUTHOR, 'agent'));
    await updateComment(f.deps, { projectId: PROJECT, id: 100, content: 'd' }, caller(AUTHOR, 'agent'));
    await deleteComment(f.deps, { projectId: PROJECT, id: 100 }, caller(AUTHOR, 'agent'));
    expect(f.writes).to.deep.equal(['comment.created', 'comment.updated', 'comment.deleted']);
  });
});

import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { presentComment } from '@tix/protos';
import { outboxMark, outboxSince, refusalOf, commentSuite, type Who } from './support.js';

/** The hex SHA-256 of the UTF-8 text, computed here rather than by the code under test. */
function sha256(text: string): string {
  return createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex');
}

const EDITED = { kind: 'conflict', message: 'Comment was edited after this action' };

describe('comments: a delete guarded by the content hash (expected_content_sha256)', function () {
  this.timeout(60_000);
  const f = commentSuite('comments_guarded_delete');

  /** DeleteComment of `id` guarded by the content hash `sha`, as `who` (default: the agent). */
  const guardedDelete = (id: number, sha: string, who: Who = 'agent') =>
    f.client.DeleteComment({ project_id: f.support.id, id, expected_content_sha256: sha }, f.as(who));

  async function stored(id: number): Promise<{ content: string } | undefined> {
    const { rows } = await f.sql.query<{ content: string }>('SELECT content FROM comments WHERE id = $1', [
      id,
    ]);
    return rows[0];
  }

  it('with the hash of the current content: deleted, with the same comment.deleted as a plain delete', async () => {
    // Non-ASCII content: the hash is of its UTF-8 bytes, not of UTF-16 code units.
    const created = await f.newComment(f.ticket, { content: 'AI draft: Grüße — try the reset link 👍' });
    const mark = await outboxMark(f.sql);
    expect(await guardedDelete(created.id, sha256(created.content))).to.deep.equal({
      message: 'Comment deleted',
    });
    expect(await stored(created.id)).to.equal(undefined);
    const rows = await outboxSince(f.sql, mark);
    expect(rows.map((row) => row.event_type)).to.deep.equal(['comment.deleted']);
    expect(rows[0]!.payload).to.deep.include({
      source: 'comments',
      project_id: f.support.id,
      changes: {},
      data: presentComment(created),
    });
    expect(rows[0]!.payload.actor).to.deep.include({ kind: 'api_key', user_id: f.users.agent.id });
  });

  it('accepts the hash in upper case', async () => {
    const created = await f.newComment(f.ticket, { content: 'Shouting hex' });
    await guardedDelete(created.id, sha256(created.content).toUpperCase());
    expect(await stored(created.id)).to.equal(undefined);
  });

  it('after an edit of the content: 409, the comment stays as edited, and no event is written', async () => {
    const created = await f.newComment(f.ticket, { content: 'AI draft: restart the router' });
    await f.client.UpdateComment(
      { project_id: f.support.id, id: created.id, content: 'Restart the router, then call us' },
      f.as('lead'),
    );
    const mark = await outboxMark(f.sql);
    expect(await refusalOf(guardedDelete(created.id, sha256(created.content)))).to.deep.equal(EDITED);
    expect(await stored(created.id)).to.deep.equal({ content: 'Restart the router, then call us' });
    expect(await outboxSince(f.sql, mark)).to.deep.equal([]);
  });

  it('an edit that leaves the content as it was (an internal note made public) does not block it', async () => {
    const created = await f.newComment(f.ticket, { content: 'Note made public later', is_internal: true });
    await f.client.UpdateComment(
      { project_id: f.support.id, id: created.id, is_internal: false },
      f.as('agent'),
    );
    await guardedDelete(created.id, sha256(created.content));
    expect(await stored(created.id)).to.equal(undefined);
  });

  it('checks and deletes under the row lock: an edit committed while it waits makes it 409', async () => {
    const created = await f.newComment(f.ticket, { content: 'AI draft: under the lock' });
    const editor = await f.sql.connect();
    try {
      await editor.query('BEGIN');
      await editor.query('SELECT id FROM comments WHERE id = $1 FOR UPDATE', [created.id]);
      const deleting = refusalOf(guardedDelete(created.id, sha256(created.content)));
      // Wait until the delete's transaction is queued behind the editor's lock.
      for (let waited = 0; ; waited += 1) {
        const { rows } = await f.sql.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
            WHERE NOT l.granted AND a.datname = current_database()`,
        );
        if (rows[0]!.n > 0) break;
        if (waited > 400) throw new Error('the guarded delete never waited for the row lock');
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      await editor.query('UPDATE comments SET content = $2 WHERE id = $1', [
        created.id,
        'Edited by a person',
      ]);
      await editor.query('COMMIT');
      expect(await deleting).to.deep.equal(EDITED);
    } finally {
      editor.release();
    }
    expect(await stored(created.id)).to.deep.equal({ content: 'Edited by a person' });
  });

  it('without a hash: deleted whatever its content, as before', async () => {
    const created = await f.newComment(f.ticket, { content: 'First version' });
    await f.client.UpdateComment(
      { project_id: f.support.id, id: created.id, content: 'Second version' },
      f.as('agent'),
    );
    expect(
      await f.client.DeleteComment({ project_id: f.support.id, id: created.id }, f.as('agent')),
    ).to.deep.equal({ message: 'Comment deleted' });
    expect(await stored(created.id)).to.equal(undefined);
  });

  it('a value that is no SHA-256 is 400 and writes nothing; the permission and 404 checks still come first', async () => {
    const created = await f.newComment(f.ticket, { content: 'Keep me' });
    const mark = await outboxMark(f.sql);
    for (const bad of ['', 'abc', sha256('x').slice(0, 63) + 'g']) {
      expect(await refusalOf(guardedDelete(created.id, bad))).to.deep.equal({
        kind: 'bad_request',
        message: 'expected_content_sha256 must be 64 hexadecimal characters',
      });
    }
    expect(await refusalOf(guardedDelete(created.id, sha256(created.content), 'otherAgent'))).to.deep.equal({
      kind: 'permission_denied',
      message: 'Only the author or an admin can delete this comment',
    });
    expect(await refusalOf(guardedDelete(999_999, sha256(created.content)))).to.deep.equal({
      kind: 'not_found',
      message: 'Comment not found',
    });
    expect(await stored(created.id)).to.deep.equal({ content: 'Keep me' });
    expect(await outboxSince(f.sql, mark)).to.deep.equal([]);
  });

  it("lets a team lead reverting the assistant's action delete its comment, guarded; no one else, and not unguarded", async () => {
    const reverting = (who: 'lead' | 'otherAgent') => {
      const context = f.as(who);
      return {
        ...context,
        principal: { ...context.principal!, via: { type: 'ai_revert' as const, id: 41 } },
      };
    };
    const created = await f.newComment(f.ticket, { content: 'AI draft reply: clear the cache' });
    const denied = {
      kind: 'permission_denied',
      message: 'Only the author or an admin can delete this comment',
    };
    // Unguarded, or by an agent, the via changes nothing.
    expect(
      await refusalOf(
        f.client.DeleteComment({ project_id: f.support.id, id: created.id }, reverting('lead')),
      ),
    ).to.deep.equal(denied);
    const guarded = {
      project_id: f.support.id,
      id: created.id,
      expected_content_sha256: sha256(created.content),
    };
    expect(await refusalOf(f.client.DeleteComment(guarded, reverting('otherAgent')))).to.deep.equal(denied);
    expect(await refusalOf(f.client.DeleteComment(guarded, f.as('lead')))).to.deep.equal(denied);
    const mark = await outboxMark(f.sql);
    await f.client.DeleteComment(guarded, reverting('lead'));
    expect(await stored(created.id)).to.equal(undefined);
    const [deleted] = await outboxSince(f.sql, mark);
    expect(deleted!.payload.actor).to.deep.include({ via: { type: 'ai_revert', id: 41 } });
  });
});

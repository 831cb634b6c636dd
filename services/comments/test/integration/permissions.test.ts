import { expect } from 'chai';
import { refusalOf, commentSuite, type Who } from './support.js';

/** The author is the demo agent; everyone else acts on the agent's comment. */
describe('comments: role matrix for edit and delete (real services)', function () {
  this.timeout(60_000);
  const f = commentSuite('comments_roles');

  // [who, may edit, may delete]
  const matrix: [Who, boolean, boolean][] = [
    ['agent', true, true], // the author
    ['otherAgent', false, false],
    ['viewer', false, false],
    ['lead', true, false],
    ['admin', true, true],
  ];

  for (const [who, mayEdit, mayDelete] of matrix) {
    it(`${who === 'agent' ? 'the author (agent)' : who}: edit ${mayEdit ? 'allowed' : '403'}, delete ${mayDelete ? 'allowed' : '403'}`, async () => {
      const comment = await f.newComment(f.ticket, { content: 'Written by the agent' }, 'agent');
      const address = { project_id: f.support.id, id: comment.id };
      const edit = f.client.UpdateComment({ ...address, content: `Edited by ${who}` }, f.as(who));
      if (mayEdit) {
        expect((await edit).content).to.equal(`Edited by ${who}`);
      } else {
        expect(await refusalOf(edit)).to.deep.equal({
          kind: 'permission_denied',
          message: 'Only the author or a team lead can edit this comment',
        });
      }
      const removal = f.client.DeleteComment(address, f.as(who));
      if (mayDelete) {
        expect(await removal).to.deep.equal({ message: 'Comment deleted' });
      } else {
        expect(await refusalOf(removal)).to.deep.equal({
          kind: 'permission_denied',
          message: 'Only the author or an admin can delete this comment',
        });
      }
      // A refused caller changed nothing.
      const { rows } = await f.sql.query<{ content: string }>('SELECT content FROM comments WHERE id = $1', [
        comment.id,
      ]);
      const expected = mayDelete ? [] : [{ content: mayEdit ? `Edited by ${who}` : 'Written by the agent' }];
      expect(rows).to.deep.equal(expected);
    });
  }

  it("a team lead may also publish an agent's internal note; the author of a comment stays its author", async () => {
    const note = await f.newComment(f.ticket, { content: 'Internal' }, 'agent');
    const edited = await f.client.UpdateComment(
      { project_id: f.support.id, id: note.id, is_internal: false },
      f.as('lead'),
    );
    expect(edited).to.deep.include({ is_internal: false, user_id: f.users.agent.id });
  });

  it('404 comes before 403: a viewer asking for an unknown comment learns only that it does not exist', async () => {
    expect(
      await refusalOf(f.client.DeleteComment({ project_id: f.support.id, id: 987_654 }, f.as('viewer'))),
    ).to.deep.equal({ kind: 'not_found', message: 'Comment not found' });
  });
});

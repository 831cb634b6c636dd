import { expect } from 'chai';
import { AppError } from '@tix/kit';
import type { Principal, Role } from '@tix/protos';
import {
  assertCanDeleteComment,
  assertCanEditComment,
  canDeleteComment,
  canEditComment,
} from '../../src/comments/comment-permissions.js';

const AUTHOR_ID = 10;
const comment = { userId: AUTHOR_ID };

function principal(userId: number, role: Role): Principal {
  return { kind: 'api_key', user_id: userId, role, scopes: ['comments:read', 'comments:write'] };
}

describe('comments: who may edit and delete', () => {
  // [who, principal, may edit, may delete]
  const matrix: [string, Principal, boolean, boolean][] = [
    ['the author (an agent)', principal(AUTHOR_ID, 'agent'), true, true],
    ['the author (a viewer)', principal(AUTHOR_ID, 'viewer'), true, true],
    ['another agent', principal(11, 'agent'), false, false],
    ['a viewer', principal(12, 'viewer'), false, false],
    ['a team lead', principal(13, 'team_lead'), true, false],
    ['an admin', principal(14, 'admin'), true, true],
  ];
  for (const [who, caller, mayEdit, mayDelete] of matrix) {
    it(`${who}: edit ${mayEdit ? 'allowed' : 'refused'}, delete ${mayDelete ? 'allowed' : 'refused'}`, () => {
      expect(canEditComment(caller, comment)).to.equal(mayEdit);
      expect(canDeleteComment(caller, comment)).to.equal(mayDelete);
    });
  }

  it('refusals are 403 with the spec messages', () => {
    const agent = principal(11, 'agent');
    expect(() => assertCanEditComment(agent, comment))
      .to.throw(AppError, 'Only the author or a team lead can edit this comment')
      .with.property('kind', 'permission_denied');
    expect(() => assertCanDeleteComment(principal(13, 'team_lead'), comment))
      .to.throw(AppError, 'Only the author or an admin can delete this comment')
      .with.property('kind', 'permission_denied');
    expect(() => assertCanEditComment(principal(AUTHOR_ID, 'viewer'), comment)).not.to.throw();
  });
});

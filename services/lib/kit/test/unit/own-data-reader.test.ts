/** requireOwnDataReader: who may read everything a user holds across every project (the data export). */
import { expect } from 'chai';
import type { Principal } from '@tix/protos';
import { AppError, OWN_DATA_ONLY_MESSAGE, requireOwnDataReader } from '../../src/index.js';

function principal(overrides: Partial<Principal> = {}): Principal {
  return { kind: 'session', user_id: 7, role: 'agent', scopes: ['tickets:read'], ...overrides };
}

/** The kind and message of what `check` throws, or null when it passes. */
function outcome(check: () => void): { kind: string; message: string } | null {
  try {
    check();
    return null;
  } catch (error) {
    expect(error).to.be.instanceOf(AppError);
    return { kind: (error as AppError).kind, message: (error as AppError).message };
  }
}

describe('requireOwnDataReader', () => {
  const denied = { kind: 'permission_denied', message: OWN_DATA_ONLY_MESSAGE };

  it('lets the user themself, an admin and operator tooling (no principal) read', () => {
    expect(outcome(() => requireOwnDataReader(principal(), 7))).to.equal(null);
    expect(outcome(() => requireOwnDataReader(principal({ kind: 'api_key', role: 'viewer' }), 7))).to.equal(
      null,
    );
    expect(outcome(() => requireOwnDataReader(principal({ user_id: 1, role: 'admin' }), 7))).to.equal(null);
    expect(outcome(() => requireOwnDataReader(null, 7))).to.equal(null);
  });

  it("refuses another user's data below admin, and any principal restricted to one project", () => {
    expect(outcome(() => requireOwnDataReader(principal({ role: 'team_lead' }), 8))).to.deep.equal(denied);
    expect(outcome(() => requireOwnDataReader(principal({ project_id: 3 }), 7))).to.deep.equal(denied);
    expect(
      outcome(() => requireOwnDataReader(principal({ user_id: 1, role: 'admin', project_id: 3 }), 7)),
    ).to.deep.equal(denied);
  });

  it('answers 400 for an id that names no user', () => {
    for (const userId of [0, -1, 1.5]) {
      expect(outcome(() => requireOwnDataReader(null, userId))).to.deep.equal({
        kind: 'bad_request',
        message: 'Invalid user id',
      });
    }
  });
});

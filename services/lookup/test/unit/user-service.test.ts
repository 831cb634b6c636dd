import { expect } from 'chai';
import { hashPassword } from '../../src/users/password-hash.js';
import { createUserService } from '../../src/users/user-service.js';
import type { UserRecord, UserStore } from '../../src/users/user-store.js';
import { refusal } from './support.js';

function storeWith(
  rows: { user: UserRecord; passwordHash: string | null }[],
): UserStore & { lookedUp: string[] } {
  const lookedUp: string[] = [];
  const unused = () => Promise.reject(new Error('not used in this test'));
  return {
    lookedUp,
    findCredentials(email) {
      lookedUp.push(email);
      return Promise.resolve(rows.find((row) => row.user.email === email) ?? null);
    },
    list: unused,
    findByIds: unused,
    findById: unused,
    findByEmail: unused,
    create: unused,
  };
}

describe('password sign-in', () => {
  const active: UserRecord = { id: 1, name: 'Ann', email: 'ann@example.com', role: 'agent', isActive: true };
  const inactive: UserRecord = {
    id: 2,
    name: 'Ina',
    email: 'ina@example.com',
    role: 'agent',
    isActive: false,
  };
  const noPassword: UserRecord = {
    id: 3,
    name: 'Nop',
    email: 'nop@example.com',
    role: 'agent',
    isActive: true,
  };
  let store: ReturnType<typeof storeWith>;

  before(async () => {
    const hash = await hashPassword('right password');
    store = storeWith([
      { user: active, passwordHash: hash },
      { user: inactive, passwordHash: hash },
      { user: noPassword, passwordHash: null },
    ]);
  });

  it('answers the user for the right email (any case) and password', async () => {
    expect(
      await createUserService(store).authenticatePassword(' ANN@example.com', 'right password'),
    ).to.deep.equal(active);
    expect(store.lookedUp.at(-1)).to.equal('ann@example.com');
  });

  it('answers the same 401 for unknown email, wrong password, inactive user and user without password', async () => {
    const service = createUserService(store);
    const attempts: [string, string][] = [
      ['nobody@example.com', 'right password'],
      ['ann@example.com', 'wrong password'],
      ['ina@example.com', 'right password'],
      ['nop@example.com', ''],
      ['nop@example.com', 'right password'],
    ];
    for (const [email, password] of attempts) {
      const error = await refusal(() => service.authenticatePassword(email, password));
      expect({ kind: error.kind, message: error.message }, email).to.deep.equal({
        kind: 'unauthenticated',
        message: 'Invalid email or password',
      });
    }
  });
});

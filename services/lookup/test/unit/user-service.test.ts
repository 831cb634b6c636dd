import { expect } from 'chai';
import type { DomainEvent, Principal } from '@tix/protos';
import { hashPassword } from '../../src/users/password-hash.js';
import { createUserService } from '../../src/users/user-service.js';
import type { UserColumnChanges, UserRecord, UserStore } from '../../src/users/user-store.js';
import { describe422, refusal } from './support.js';

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
    findCredentialsById: unused,
    findSystem: unused,
    update: unused,
    create: unused,
  };
}

describe('password sign-in', () => {
  const active: UserRecord = {
    id: 1,
    name: 'Ann',
    email: 'ann@example.com',
    role: 'agent',
    isActive: true,
    isSystem: false,
  };
  const inactive: UserRecord = {
    id: 2,
    name: 'Ina',
    email: 'ina@example.com',
    role: 'agent',
    isActive: false,
    isSystem: false,
  };
  const noPassword: UserRecord = {
    id: 3,
    name: 'Nop',
    email: 'nop@example.com',
    role: 'agent',
    isActive: true,
    isSystem: false,
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

describe('changing users (service rules over a fake store)', () => {
  const ada: UserRecord = {
    id: 2,
    name: 'Ada',
    email: 'ada@example.com',
    role: 'agent',
    isActive: true,
    isSystem: false,
  };
  const ann: UserRecord = {
    id: 1,
    name: 'Ann',
    email: 'ann@example.com',
    role: 'admin',
    isActive: true,
    isSystem: false,
  };
  const session = (user: UserRecord): Principal => ({
    kind: 'session',
    user_id: user.id,
    role: user.role,
    scopes: [],
  });

  /** A store of `users` that records updates and the events they wrote. */
  function fakeStore(users: UserRecord[], otherActiveAdmins = 0) {
    const rows = new Map(users.map((user) => [user.id, { ...user }]));
    const written: { id: number; changes: UserColumnChanges; event: DomainEvent<object> }[] = [];
    const unused = () => Promise.reject(new Error('not used in this test'));
    const store: UserStore = {
      findById: (id) => Promise.resolve(rows.has(id) ? { ...rows.get(id)! } : null),
      async update(id, changes, steps) {
        const before = rows.get(id);
        if (!before) return null;
        await steps.check?.({ ...before }, () => Promise.resolve(otherActiveAdmins));
        const after = {
          ...before,
          ...(changes.name === undefined ? {} : { name: changes.name }),
          ...(changes.role === undefined ? {} : { role: changes.role }),
          ...(changes.isActive === undefined ? {} : { isActive: changes.isActive }),
        };
        rows.set(id, after);
        written.push({ id, changes, event: steps.event(after, before) });
        return { ...after };
      },
      findCredentials: unused,
      findCredentialsById: unused,
      list: unused,
      findByIds: unused,
      findByEmail: unused,
      findSystem: unused,
      create: unused,
    };
    return { store, written };
  }

  it('lets the CLI (no principal) and an admin change anything', async () => {
    const { store, written } = fakeStore([ann, ada]);
    const service = createUserService(store, { now: () => new Date('2031-01-01T00:00:00.000Z') });
    expect(await service.updateUser(ada.id, { role: 'viewer' }, null)).to.include({ role: 'viewer' });
    expect(await service.updateUser(ada.id, { isActive: false, name: 'A' }, session(ann))).to.include({
      isActive: false,
      name: 'A',
    });
    expect(written.map((w) => w.event.data)).to.deep.equal([
      { ...presented(ada), role: 'viewer', changed: ['role'], sessions_ended: true },
      {
        ...presented(ada),
        name: 'A',
        role: 'viewer',
        is_active: false,
        changed: ['name', 'is_active'],
        sessions_ended: true,
      },
    ]);
    expect(written[0]!.event).to.include({
      type: 'user.updated',
      source: 'lookup',
      occurred_at: '2031-01-01T00:00:00.000Z',
    });
    expect(written[0]!.event).not.to.have.property('project_id');
  });

  it('lets any other principal change only their own name, refusing before validation and lookup', async () => {
    const { store, written } = fakeStore([ann, ada]);
    const service = createUserService(store);
    expect(await service.updateUser(ada.id, { name: 'Ada L.' }, session(ada))).to.include({ name: 'Ada L.' });
    for (const [id, request] of [
      [ada.id, { role: 'admin' }],
      [ada.id, { isActive: true }],
      [ada.id, { password: 'long enough' }],
      [ada.id, { name: 'Ada', role: 'boss' }],
      [ann.id, { name: '' }],
      [999, { name: 'Ghost' }],
    ] as const) {
      const error = await refusal(() => service.updateUser(id, request, session(ada)));
      expect({ kind: error.kind, message: error.message }, JSON.stringify(request)).to.deep.equal({
        kind: 'permission_denied',
        message: 'Only an admin can change this',
      });
    }
    expect(written).to.have.length(1);
  });

  it('writes nothing for a change to values the user already has', async () => {
    const { store, written } = fakeStore([ada]);
    expect(
      await createUserService(store).updateUser(ada.id, { name: ' Ada ', isActive: true }, null),
    ).to.deep.equal(ada);
    expect(written).to.deep.equal([]);
  });

  it('refuses to take the last active admin out (inside the update), allows it with another one', async () => {
    const alone = fakeStore([ann]);
    const error = await refusal(() =>
      createUserService(alone.store).updateUser(ann.id, { isActive: false }, null),
    );
    expect(describe422(error).validationErrors).to.deep.equal({
      is_active: ['The last active admin cannot be deactivated or demoted'],
    });
    expect(alone.written).to.deep.equal([]);
    const accompanied = fakeStore([ann], 1);
    expect(await createUserService(accompanied.store).updateUser(ann.id, { role: 'agent' }, null)).to.include(
      {
        role: 'agent',
      },
    );
  });

  it('answers 404 for an unknown id', async () => {
    const error = await refusal(() =>
      createUserService(fakeStore([]).store).updateUser(7, { name: 'X' }, null),
    );
    expect({ kind: error.kind, message: error.message }).to.deep.equal({
      kind: 'not_found',
      message: 'User not found',
    });
  });
});

function presented(user: UserRecord) {
  return { id: user.id, name: user.name, email: user.email, role: user.role, is_active: user.isActive };
}

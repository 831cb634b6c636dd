import { expect } from 'chai';
import { readSessionCookie, sessionCookie, sessionPrincipal } from '../../src/middleware/session.js';
import {
  createMemorySessionStore,
  isSessionId,
  newCsrfToken,
  newSessionId,
  type SessionData,
} from '../../src/sessions/session-store.js';

const ID = 'A'.repeat(43);
const DATA: SessionData = { csrfToken: 't', createdAt: '2026-01-01T00:00:00.000Z' };

describe('session cookie', () => {
  it('reads tix_session among other cookies, only when well-formed', () => {
    expect(readSessionCookie(`a=1; tix_session=${ID}; b=2`)).to.equal(ID);
    expect(readSessionCookie(`tix_session=${ID}`)).to.equal(ID);
    for (const header of [
      undefined,
      '',
      'tix_session=short',
      `other=${ID}`,
      `tix_session=${ID}x`,
      `xtix_session=${ID}`,
    ]) {
      expect(readSessionCookie(header), String(header)).to.equal(undefined);
    }
  });

  it('sets HttpOnly, SameSite=Lax, Path=/ (and Secure in production); clears with Max-Age=0', () => {
    expect(sessionCookie(ID, false)).to.equal(`tix_session=${ID}; Path=/; HttpOnly; SameSite=Lax`);
    expect(sessionCookie(ID, true)).to.equal(`tix_session=${ID}; Path=/; HttpOnly; SameSite=Lax; Secure`);
    expect(sessionCookie(null, true)).to.equal(
      'tix_session=; Path=/; HttpOnly; SameSite=Lax; Secure; Max-Age=0',
    );
  });

  it('session ids and CSRF tokens are 32 random bytes, base64url', () => {
    const ids = new Set([newSessionId(), newSessionId(), newCsrfToken()]);
    expect(ids.size).to.equal(3);
    for (const id of ids) expect(isSessionId(id)).to.equal(true);
  });

  it('a signed-in session acts as its user, with the scopes of its role (the roles table)', () => {
    expect(sessionPrincipal({ id: 4, role: 'viewer' })).to.deep.equal({
      kind: 'session',
      user_id: 4,
      role: 'viewer',
      scopes: ['tickets:read', 'comments:read', 'customers:read'],
    });
    expect(sessionPrincipal({ id: 5, role: 'team_lead' }).scopes).to.have.members([
      'tickets:read',
      'tickets:write',
      'tickets:delete',
      'comments:read',
      'comments:write',
      'customers:read',
      'customers:write',
    ]);
  });
});

describe('in-memory session store', () => {
  let time = 0;
  const now = () => time;
  beforeEach(() => {
    time = 0;
  });

  it('expires idle sessions and slides the expiry of used ones', async () => {
    const store = createMemorySessionStore({ ttlSeconds: 10, now });
    await store.save('a', DATA);
    await store.save('b', DATA);
    time = 9_000;
    expect(await store.load('a')).to.deep.equal(DATA);
    time = 18_000;
    expect(await store.load('a')).to.deep.equal(DATA);
    expect(await store.load('b')).to.equal(null);
  });

  it("ends a user's sessions started before a time, keeping newer ones and other users'", async () => {
    const store = createMemorySessionStore({ ttlSeconds: 10, now });
    const user = { id: 900, role: 'agent' as const };
    await store.save('old', { ...DATA, user, createdAt: '2026-01-01T00:00:00.000Z' });
    await store.save('fresh', { ...DATA, user, createdAt: '2026-01-02T00:00:00.000Z' });
    await store.save('other', {
      ...DATA,
      user: { id: 901, role: 'agent' },
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    expect(await store.destroyUserSessions(900, new Date('2026-01-01T12:00:00.000Z'))).to.equal(1);
    expect(await store.load('old')).to.equal(null);
    expect(await store.load('fresh')).to.not.equal(null);
    expect(await store.load('other')).to.not.equal(null);
  });

  it('returns copies (a caller cannot change a stored session by accident)', async () => {
    const store = createMemorySessionStore({ ttlSeconds: 10, now });
    await store.save('a', DATA);
    const loaded = (await store.load('a'))!;
    loaded.csrfToken = 'changed';
    expect((await store.load('a'))!.csrfToken).to.equal('t');
  });

  it('destroys sessions, and drops the least recently used when full', async () => {
    const store = createMemorySessionStore({ ttlSeconds: 10, maxSessions: 2, now });
    await store.save('a', DATA);
    await store.save('b', DATA);
    await store.load('a');
    await store.save('c', DATA);
    expect(await store.load('b')).to.equal(null);
    expect(await store.load('a')).to.deep.equal(DATA);
    await store.destroy('a');
    expect(await store.load('a')).to.equal(null);
  });
});

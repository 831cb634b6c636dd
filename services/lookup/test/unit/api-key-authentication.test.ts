import { expect } from 'chai';
import { testLogger } from '@tix/kit/testing';
import type { Role } from '@tix/protos';
import { generateApiKey, hashApiKey } from '../../src/api-keys/api-key-format.js';
import { createApiKeyAuthenticator } from '../../src/api-keys/api-key-authentication.js';
import type { ApiKeyRecord, ApiKeyStore } from '../../src/api-keys/api-key-store.js';
import { refusal } from './support.js';

const NOW = new Date('2026-05-01T12:00:00.000Z');

function fakeStore(
  rows: { value: string; key: Partial<ApiKeyRecord>; owner?: { role?: Role; isActive?: boolean } }[],
) {
  const calls = { findByHash: [] as string[], recordUse: [] as [number, Date, Date][] };
  let failRecordUse = false;
  const store: Pick<ApiKeyStore, 'findByHash' | 'recordUse'> = {
    findByHash(keyHash) {
      calls.findByHash.push(keyHash);
      const row = rows.find((r) => hashApiKey(r.value) === keyHash);
      if (!row) return Promise.resolve(null);
      return Promise.resolve({
        key: {
          id: 1,
          name: 'k',
          prefix: row.value.slice(0, 12),
          scopes: ['tickets:read'],
          projectId: null,
          userId: 5,
          createdAt: new Date(0),
          lastUsedAt: null,
          revokedAt: null,
          ...row.key,
        },
        owner: { id: 5, role: row.owner?.role ?? 'agent', isActive: row.owner?.isActive ?? true },
      });
    },
    recordUse(id, now, notBefore) {
      calls.recordUse.push([id, now, notBefore]);
      return failRecordUse ? Promise.reject(new Error('database down')) : Promise.resolve();
    },
  };
  return { store, calls, failRecordUse: () => (failRecordUse = true) };
}

describe('API key authentication', () => {
  const value = generateApiKey();

  it('answers the principal of a valid key and records its first use', async () => {
    const { store, calls } = fakeStore([
      { value, key: { id: 9, projectId: 4, scopes: ['tickets:read', 'comments:read'] } },
    ]);
    const authenticator = createApiKeyAuthenticator({ store, logger: testLogger(), now: () => NOW });
    expect(await authenticator.authenticateApiKey(value)).to.deep.equal({
      keyId: 9,
      userId: 5,
      role: 'agent',
      scopes: ['tickets:read', 'comments:read'],
      projectId: 4,
    });
    expect(calls.recordUse).to.deep.equal([[9, NOW, new Date(NOW.getTime() - 60_000)]]);
  });

  it('refuses malformed keys and keys with a bad checksum without a database lookup', async () => {
    const { store, calls } = fakeStore([{ value, key: {} }]);
    const authenticator = createApiKeyAuthenticator({ store, logger: testLogger() });
    const flipped = value.slice(0, -1) + (value.endsWith('a') ? 'b' : 'a');
    for (const bad of ['', 'Bearer x', 'tix_short', flipped, value.toUpperCase(), `${value} `]) {
      const error = await refusal(() => authenticator.authenticateApiKey(bad));
      expect({ kind: error.kind, message: error.message }).to.deep.equal({
        kind: 'unauthenticated',
        message: 'Invalid API key',
      });
    }
    expect(calls.findByHash).to.deep.equal([]);
  });

  it('refuses unknown, revoked and inactive-owner keys with 401', async () => {
    const revoked = generateApiKey();
    const inactive = generateApiKey();
    const { store, calls } = fakeStore([
      { value: revoked, key: { revokedAt: new Date(0) } },
      { value: inactive, key: {}, owner: { isActive: false } },
    ]);
    const authenticator = createApiKeyAuthenticator({ store, logger: testLogger() });
    const outcomes = [];
    for (const key of [generateApiKey(), revoked, inactive]) {
      const error = await refusal(() => authenticator.authenticateApiKey(key));
      outcomes.push([error.kind, error.message]);
    }
    expect(outcomes).to.deep.equal([
      ['unauthenticated', 'Invalid API key'],
      ['unauthenticated', 'API key has been revoked'],
      ['unauthenticated', 'API key belongs to an inactive user'],
    ]);
    expect(calls.recordUse).to.deep.equal([]);
  });

  it('records use at most once a minute per key', async () => {
    const recent = new Date(NOW.getTime() - 59_000);
    const stale = new Date(NOW.getTime() - 60_000);
    const other = generateApiKey();
    const { store, calls } = fakeStore([
      { value, key: { id: 1, lastUsedAt: recent } },
      { value: other, key: { id: 2, lastUsedAt: stale } },
    ]);
    const authenticator = createApiKeyAuthenticator({ store, logger: testLogger(), now: () => NOW });
    await authenticator.authenticateApiKey(value);
    await authenticator.authenticateApiKey(other);
    expect(calls.recordUse.map(([id]) => id)).to.deep.equal([2]);
  });

  it('still answers when recording the use fails', async () => {
    const { store, calls, failRecordUse } = fakeStore([{ value, key: { id: 3 } }]);
    failRecordUse();
    const authenticator = createApiKeyAuthenticator({ store, logger: testLogger() });
    expect(await authenticator.authenticateApiKey(value)).to.have.property('keyId', 3);
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls.recordUse).to.have.length(1);
  });
});

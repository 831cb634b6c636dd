import { expect } from 'chai';
import { ConfigError } from '@tix/kit';
import { expectOwnDatabase } from '@tix/kit/testing';
import { loadConfig } from '../../src/config.js';
import { requireAuthor, sourceTypeOf } from '../../src/shared/caller.js';
import { describeError, refusal } from './support.js';

describe('tickets config', () => {
  it('defaults to the local fleet: tix_tickets, 127.0.0.1:50052, lookup on 127.0.0.1:50051', () => {
    expect(loadConfig({})).to.deep.equal({
      nodeEnv: 'development',
      logLevel: 'info',
      databaseUrl: 'postgresql://postgres:postgres@127.0.0.1:5432/tix_tickets',
      amqpUrl: 'amqp://guest:guest@127.0.0.1:5672',
      grpcHost: '127.0.0.1',
      grpcPort: 50052,
      metricsHost: '127.0.0.1',
      metricsPort: 9402,
      peers: { lookup: '127.0.0.1:50051' },
      serviceDeadlineMs: 5_000,
      databasePoolSize: 20,
      databaseStatementTimeoutMs: 4_000,
      cacheTtls: { projectMs: 30_000, ticketTypeMs: 30_000, userMs: 10_000 },
      shutdownGraceMs: 10_000,
    });
  });

  it('uses its own database on DATABASE_URL, unless TICKETS_DATABASE_URL overrides it', () => {
    expectOwnDatabase(loadConfig, 'tix_tickets', 'TICKETS_DATABASE_URL');
  });

  it('reads addresses, deadlines, pool size and cache TTLs (0 disables a cache)', () => {
    expect(
      loadConfig({
        GRPC_PORT: '6000',
        LOOKUP_SERVICE_ADDR: 'lookup:50051',
        SERVICE_DEADLINE_MS: '1500',
        DATABASE_POOL_SIZE: '4',
        PROJECT_CACHE_TTL_MS: '0',
        TICKET_TYPE_CACHE_TTL_MS: '5',
        USER_CACHE_TTL_MS: '6',
      }),
    ).to.deep.include({
      grpcPort: 6000,
      peers: { lookup: 'lookup:50051' },
      serviceDeadlineMs: 1500,
      databasePoolSize: 4,
      cacheTtls: { projectMs: 0, ticketTypeMs: 5, userMs: 6 },
    });
  });

  it('names every bad variable, and refuses to run without lookup', () => {
    expect(() =>
      loadConfig({
        GRPC_PORT: '70000',
        LOOKUP_SERVICE_ADDR: 'none',
        USER_CACHE_TTL_MS: '-1',
        DATABASE_URL: 'x',
      }),
    )
      .to.throw(ConfigError)
      .that.satisfies((error: Error) =>
        ['GRPC_PORT', 'LOOKUP_SERVICE_ADDR', 'USER_CACHE_TTL_MS', 'DATABASE_URL'].every((name) =>
          error.message.includes(name),
        ),
      );
  });
});

describe('caller', () => {
  const principal = { user_id: 4, role: 'agent' as const, scopes: [] };

  it('maps API keys to api, sessions to web, internal jobs and the assistant to system', () => {
    expect(sourceTypeOf({ ...principal, kind: 'api_key' })).to.equal('api');
    expect(sourceTypeOf({ ...principal, kind: 'session' })).to.equal('web');
    expect(sourceTypeOf({ ...principal, kind: 'system' })).to.equal('system');
    expect(sourceTypeOf({ ...principal, kind: 'ai' })).to.equal('system');
    expect(requireAuthor({ ...principal, kind: 'session' })).to.deep.equal({ userId: 4, sourceType: 'web' });
  });

  it('refuses a write without a principal (401)', async () => {
    expect(describeError(await refusal(() => requireAuthor(null)))).to.deep.equal({
      kind: 'unauthenticated',
      message: 'Authentication required',
      validationErrors: undefined,
    });
  });
});

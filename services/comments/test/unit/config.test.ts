import { expect } from 'chai';
import { ConfigError } from '@tix/kit';
import { expectOwnDatabase } from '@tix/kit/testing';
import { loadConfig } from '../../src/config.js';

describe('comments config', () => {
  it('defaults to the local fleet: tix_comments, 127.0.0.1:50053, tickets on 127.0.0.1:50052', () => {
    expect(loadConfig({})).to.deep.equal({
      nodeEnv: 'development',
      logLevel: 'info',
      databaseUrl: 'postgresql://postgres:postgres@127.0.0.1:5432/tix_comments',
      amqpUrl: 'amqp://guest:guest@127.0.0.1:5672',
      grpcHost: '127.0.0.1',
      grpcPort: 50053,
      metricsHost: '127.0.0.1',
      metricsPort: 9403,
      peers: { tickets: '127.0.0.1:50052' },
      serviceDeadlineMs: 5_000,
      databasePoolSize: 10,
      databaseStatementTimeoutMs: 0,
      shutdownGraceMs: 10_000,
    });
  });

  it('uses its own database on DATABASE_URL, unless COMMENTS_DATABASE_URL overrides it', () => {
    expectOwnDatabase(loadConfig, 'tix_comments', 'COMMENTS_DATABASE_URL');
  });

  it('reads the ticket service address, deadline, pool size and port', () => {
    expect(
      loadConfig({
        GRPC_PORT: '6000',
        TICKETS_SERVICE_ADDR: 'tickets:50052',
        SERVICE_DEADLINE_MS: '1500',
        DATABASE_POOL_SIZE: '4',
      }),
    ).to.deep.include({
      grpcPort: 6000,
      peers: { tickets: 'tickets:50052' },
      serviceDeadlineMs: 1500,
      databasePoolSize: 4,
    });
  });

  it('refuses bad values and a ticket service that is not deployed, naming every variable', () => {
    expect(() => loadConfig({ GRPC_PORT: 'x', TICKETS_SERVICE_ADDR: 'none', DATABASE_POOL_SIZE: '0' }))
      .to.throw(ConfigError)
      .that.satisfies((error: ConfigError) =>
        ['GRPC_PORT', 'TICKETS_SERVICE_ADDR', 'DATABASE_POOL_SIZE'].every((name) =>
          error.message.includes(name),
        ),
      );
    expect(() => loadConfig({ TICKETS_SERVICE_ADDR: 'no-port' })).to.throw(
      ConfigError,
      'TICKETS_SERVICE_ADDR',
    );
  });
});

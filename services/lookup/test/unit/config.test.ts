import { expect } from 'chai';
import { ConfigError } from '@tix/kit';
import { expectOwnDatabase } from '@tix/kit/testing';
import { loadConfig } from '../../src/config.js';

describe('lookup config', () => {
  it('defaults to the local fleet: tix_lookup on the loopback server, 127.0.0.1:50051', () => {
    expect(loadConfig({})).to.deep.equal({
      nodeEnv: 'development',
      logLevel: 'info',
      databaseUrl: 'postgresql://postgres:postgres@127.0.0.1:5432/tix_lookup',
      amqpUrl: 'amqp://guest:guest@127.0.0.1:5672',
      grpcHost: '127.0.0.1',
      grpcPort: 50051,
      metricsHost: '127.0.0.1',
      metricsPort: 9401,
      databasePoolSize: 10,
      databaseStatementTimeoutMs: 0,
      shutdownGraceMs: 10_000,
      peers: { tickets: '127.0.0.1:50052', comments: '127.0.0.1:50053' },
      serviceDeadlineMs: 5_000,
    });
  });

  it('uses its own database on DATABASE_URL, unless LOOKUP_DATABASE_URL overrides it', () => {
    expectOwnDatabase(loadConfig, 'tix_lookup', 'LOOKUP_DATABASE_URL');
  });

  it('reads the gRPC address, log level and environment', () => {
    expect(
      loadConfig({ GRPC_HOST: '0.0.0.0', GRPC_PORT: '6000', LOG_LEVEL: 'debug', NODE_ENV: 'production' }),
    ).to.include({
      grpcHost: '0.0.0.0',
      grpcPort: 6000,
      logLevel: 'debug',
      nodeEnv: 'production',
    });
  });

  it('reads the metrics address; METRICS_PORT=0 means no metrics endpoint', () => {
    expect(loadConfig({ METRICS_HOST: '0.0.0.0', METRICS_PORT: '9501' })).to.include({
      metricsHost: '0.0.0.0',
      metricsPort: 9501,
    });
    expect(loadConfig({ METRICS_PORT: '0' }).metricsPort).to.equal(null);
    expect(() => loadConfig({ METRICS_PORT: '-1' })).to.throw(ConfigError, 'METRICS_PORT');
  });

  it('names every bad variable', () => {
    expect(() => loadConfig({ GRPC_PORT: '70000', LOG_LEVEL: 'loud', DATABASE_URL: 'nope' }))
      .to.throw(ConfigError)
      .that.satisfies((error: Error) =>
        ['GRPC_PORT', 'LOG_LEVEL', 'DATABASE_URL'].every((name) => error.message.includes(name)),
      );
  });
});

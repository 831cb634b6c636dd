import { expect } from 'chai';
import { z } from 'zod';
import { ConfigError, serviceConfig } from '../../src/index.js';

describe('serviceConfig', () => {
  const loadConfig = serviceConfig('comments', {
    databasePoolSize: 20,
    peers: { tickets: 'the comment service needs the ticket service' },
    variables: { PAGE_SIZE: z.coerce.number().int().positive().default(50), SECRET: z.string().optional() },
    check: (values, context) => {
      if (values.NODE_ENV === 'production' && values.SECRET === undefined)
        context.addIssue({ code: 'custom', path: ['SECRET'], message: 'required in production' });
    },
    read: (values, common) => ({ pageSize: values.PAGE_SIZE, secure: common.nodeEnv === 'production' }),
  });

  it('gives every service the same variables, with its own ports, database and pool default', () => {
    expect(loadConfig({})).to.deep.equal({
      nodeEnv: 'development',
      logLevel: 'info',
      databaseUrl: 'postgresql://postgres:postgres@127.0.0.1:5432/tix_comments',
      amqpUrl: 'amqp://guest:guest@127.0.0.1:5672',
      grpcHost: '127.0.0.1',
      grpcPort: 50053,
      metricsHost: '127.0.0.1',
      metricsPort: 9403,
      databasePoolSize: 20,
      databaseStatementTimeoutMs: 0,
      shutdownGraceMs: 10_000,
      peers: { tickets: '127.0.0.1:50052' },
      serviceDeadlineMs: 5_000,
      pageSize: 50,
      secure: false,
    });
  });

  it('reads the database override, peer addresses and own variables', () => {
    expect(
      loadConfig({
        COMMENTS_DATABASE_URL: 'postgresql://x@y/z',
        TICKETS_SERVICE_ADDR: 'tickets:50052',
        SERVICE_DEADLINE_MS: '1500',
        PAGE_SIZE: '7',
        METRICS_PORT: '0',
      }),
    ).to.deep.include({
      databaseUrl: 'postgresql://x@y/z',
      peers: { tickets: 'tickets:50052' },
      serviceDeadlineMs: 1500,
      pageSize: 7,
      metricsPort: null,
    });
  });

  it('a service without peers has no peer addresses and no SERVICE_DEADLINE_MS', () => {
    const config = serviceConfig('lookup', {})({ SERVICE_DEADLINE_MS: 'ignored' });
    expect(config).to.not.have.property('serviceDeadlineMs');
    expect(config).to.not.have.property('peers');
    expect(config.databasePoolSize).to.equal(10);
  });

  it('takes the statement timeout from the service, overridable (0 = none)', () => {
    const tickets = serviceConfig('tickets', { statementTimeoutMs: 4_000 });
    expect(tickets({}).databaseStatementTimeoutMs).to.equal(4_000);
    expect(tickets({ DATABASE_STATEMENT_TIMEOUT_MS: '0' }).databaseStatementTimeoutMs).to.equal(0);
    expect(() => tickets({ DATABASE_STATEMENT_TIMEOUT_MS: '-1' })).to.throw(ConfigError);
  });

  it('names every bad variable at once: common, peer ("none" refused with its reason), own and checks', () => {
    let message = '';
    try {
      loadConfig({
        NODE_ENV: 'production',
        GRPC_PORT: '70000',
        TICKETS_SERVICE_ADDR: 'none',
        PAGE_SIZE: '0',
      });
    } catch (error) {
      expect(error).to.be.instanceOf(ConfigError);
      message = (error as Error).message;
    }
    expect(message)
      .to.include('GRPC_PORT')
      .and.include('TICKETS_SERVICE_ADDR: the comment service needs the ticket service')
      .and.include('PAGE_SIZE')
      .and.include('SECRET: required in production');
  });
});

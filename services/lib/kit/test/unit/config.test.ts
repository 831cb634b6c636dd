import { expect } from 'chai';
import { z } from 'zod';
import { ConfigError, env, parseEnv, serviceDatabaseUrl } from '../../src/index.js';

describe('config', () => {
  const schema = z.object({
    PORT: env.port(8080),
    LOG_LEVEL: env.logLevel,
    ORIGINS: env.list(''),
    ADDR: env.address('127.0.0.1:50051'),
    FLAG: env.boolean(false),
  });

  it('applies defaults and coerces values', () => {
    expect(
      parseEnv(schema, { PORT: '9000', ORIGINS: ' https://a.example , ,https://b.example', FLAG: 'yes' }),
    ).to.deep.equal({
      PORT: 9000,
      LOG_LEVEL: 'info',
      ORIGINS: ['https://a.example', 'https://b.example'],
      ADDR: '127.0.0.1:50051',
      FLAG: true,
    });
  });

  it('names every invalid variable at once, with the value it got', () => {
    let thrown: unknown;
    try {
      parseEnv(schema, { PORT: 'eighty', LOG_LEVEL: 'loud', ADDR: 'nohostport' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).to.be.instanceOf(ConfigError);
    const message = (thrown as Error).message;
    expect(message).to.contain('PORT').and.to.contain('"eighty"');
    expect(message).to.contain('LOG_LEVEL').and.to.contain('"loud"');
    expect(message).to.contain('ADDR').and.to.contain('expected host:port');
  });

  it('derives a service database URL from the server URL unless overridden', () => {
    expect(
      serviceDatabaseUrl('postgresql://u:p@db.internal:5432/postgres?sslmode=require', 'tix_ticket'),
    ).to.equal('postgresql://u:p@db.internal:5432/tix_ticket?sslmode=require');
    expect(
      serviceDatabaseUrl('postgresql://u:p@db:5432/postgres', 'tix_ticket', 'postgresql://x@other/tickets'),
    ).to.equal('postgresql://x@other/tickets');
  });
});

describe('config: service addresses', () => {
  const schema = z.object({ TICKETS_SERVICE_ADDR: env.serviceAddress('tickets') });

  it('defaults to the fleet port on loopback and accepts host:port, [ipv6]:port and none', () => {
    expect(parseEnv(schema, {}).TICKETS_SERVICE_ADDR).to.equal('127.0.0.1:50052');
    for (const value of ['tickets:50052', '[::1]:50052', 'none']) {
      expect(parseEnv(schema, { TICKETS_SERVICE_ADDR: value }).TICKETS_SERVICE_ADDR).to.equal(value);
    }
  });

  it('refuses anything else, naming the variable', () => {
    for (const value of ['tickets', 'tickets:', ':50052', 'a b:1']) {
      expect(() => parseEnv(schema, { TICKETS_SERVICE_ADDR: value }), value).to.throw(
        ConfigError,
        /TICKETS_SERVICE_ADDR/,
      );
    }
  });
});

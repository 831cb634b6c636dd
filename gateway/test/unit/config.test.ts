import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ConfigError } from '@tix/kit';
import { loadConfig, parseByteSize, parseCorsOrigins } from '../../src/config.js';
import { normalizeHostName } from '../../src/middleware/host-role.js';
import { defaultLimitsConfig } from '../../src/limits/config.js';

function configError(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('has loopback development defaults', () => {
    expect(loadConfig({})).to.deep.equal({
      nodeEnv: 'development',
      production: false,
      logLevel: 'info',
      host: '127.0.0.1',
      apiPort: 8080,
      appPort: 8081,
      metricsHost: '127.0.0.1',
      metricsPort: 9400,
      apiHosts: [],
      appHosts: [],
      cors: { mode: 'wildcard' },
      bodyLimitBytes: 1024 * 1024,
      serviceDeadlineMs: 5000,
      serviceBreaker: {
        resetTimeoutMs: 5000,
        errorThresholdPercentage: 50,
        volumeThreshold: 5,
        rollingCountTimeoutMs: 10000,
      },
      authCacheTtlMs: 60000,
      projectCacheTtlMs: 30000,
      amqpUrl: 'amqp://guest:guest@127.0.0.1:5672',
      redisUrl: undefined,
      sessionTtlSeconds: 28800,
      shutdownGraceMs: 10000,
      readinessTimeoutMs: 1000,
      serviceAddresses: {
        lookup: '127.0.0.1:50051',
        tickets: '127.0.0.1:50052',
        comments: '127.0.0.1:50053',
        attachments: '127.0.0.1:50054',
        webhooks: '127.0.0.1:50055',
        activity: '127.0.0.1:50057',
        ai: '127.0.0.1:50056',
        mail: '127.0.0.1:50058',
        customers: '127.0.0.1:50059',
        sla: '127.0.0.1:50060',
      },
      attachments: { maxBytes: 26_214_400, transferDeadlineMs: 600_000 },
      limits: defaultLimitsConfig(),
      appUrl: 'http://localhost:8081',
      mail: { smtpUrl: undefined, from: 'Tix <no-reply@localhost>', dir: path.join(os.tmpdir(), 'tix-mail') },
    });
  });

  it('reads the mail variables; production writes no mail folder and needs APP_URL', () => {
    expect(
      loadConfig({
        SMTP_URL: 'smtps://user:p%40ss@mail.example.com:465',
        MAIL_FROM: 'Support <support@example.com>',
        APP_URL: 'https://app.example.com/',
        MAIL_DIR: '/var/tmp/mail',
      }),
    ).to.deep.include({
      appUrl: 'https://app.example.com',
      mail: {
        smtpUrl: 'smtps://user:p%40ss@mail.example.com:465',
        from: 'Support <support@example.com>',
        dir: '/var/tmp/mail',
      },
    });
    expect(loadConfig({ GATEWAY_APP_PORT: '9001', SMTP_URL: '' })).to.deep.include({
      appUrl: 'http://localhost:9001',
    });
    expect(loadConfig({ SMTP_URL: ' ' }).mail.smtpUrl).to.equal(undefined);
    const production = { NODE_ENV: 'production', CORS_ORIGINS: '*' };
    expect(configError(production)).to.contain('APP_URL');
    const config = loadConfig({ ...production, APP_URL: 'https://app.example.com', MAIL_DIR: '/tmp/x' });
    expect(config.mail).to.deep.equal({ smtpUrl: undefined, from: 'Tix <no-reply@localhost>', dir: null });
    const message = configError({ SMTP_URL: 'http://mail.example.com', APP_URL: 'ftp://app.example.com' });
    expect(message).to.contain('SMTP_URL').and.to.contain('APP_URL');
  });

  it('reads every variable', () => {
    const config = loadConfig({
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      GATEWAY_HOST: '0.0.0.0',
      GATEWAY_API_PORT: '8000',
      GATEWAY_APP_PORT: '8000',
      API_HOSTS: 'api.tix.example, API2.tix.example:443',
      APP_HOSTS: 'app.tix.example',
      CORS_ORIGINS: 'https://app.tix.example, http://localhost:5173/',
      BODY_LIMIT: '512kb',
      SERVICE_DEADLINE_MS: '2500',
      AUTH_CACHE_TTL_MS: '0',
      PROJECT_CACHE_TTL_MS: '1000',
      AMQP_URL: 'amqp://u:p@rabbit:5672/tix',
      REDIS_URL: 'redis://redis:6379',
      SESSION_TTL_SECONDS: '600',
      LOOKUP_SERVICE_ADDR: 'lookup:50051',
      TICKETS_SERVICE_ADDR: '[::1]:50052',
      APP_URL: 'https://app.tix.example',
    });
    expect(config).to.deep.include({
      production: true,
      logLevel: 'warn',
      host: '0.0.0.0',
      apiPort: 8000,
      appPort: 8000,
      apiHosts: ['api.tix.example', 'api2.tix.example'],
      appHosts: ['app.tix.example'],
      cors: { mode: 'list', origins: ['https://app.tix.example', 'http://localhost:5173'] },
      bodyLimitBytes: 512 * 1024,
      serviceDeadlineMs: 2500,
      authCacheTtlMs: 0,
      projectCacheTtlMs: 1000,
      amqpUrl: 'amqp://u:p@rabbit:5672/tix',
      redisUrl: 'redis://redis:6379',
      sessionTtlSeconds: 600,
    });
    expect(config.serviceAddresses.lookup).to.equal('lookup:50051');
    expect(config.serviceAddresses.tickets).to.equal('[::1]:50052');
  });

  it('treats an empty CORS_ORIGINS as unset', () => {
    expect(loadConfig({ CORS_ORIGINS: ' ' }).cors).to.deep.equal({ mode: 'wildcard' });
    expect(configError({ NODE_ENV: 'production', CORS_ORIGINS: '' })).to.contain('CORS_ORIGINS');
  });

  it('takes "none" as not deployed outside production', () => {
    const config = loadConfig({ TICKETS_SERVICE_ADDR: 'none', WEBHOOKS_SERVICE_ADDR: 'none' });
    expect(config.serviceAddresses.tickets).to.equal(null);
    expect(config.serviceAddresses.webhooks).to.equal(null);
    expect(config.serviceAddresses.lookup).to.equal('127.0.0.1:50051');
  });

  it('names each bad variable', () => {
    const message = configError({
      GATEWAY_API_PORT: '80x',
      GATEWAY_APP_PORT: '70000',
      BODY_LIMIT: 'lots',
      SERVICE_DEADLINE_MS: '0',
      AUTH_CACHE_TTL_MS: '-1',
      LOOKUP_SERVICE_ADDR: 'lookup',
      REDIS_URL: 'not a url',
      CORS_ORIGINS: 'https://a.example/path',
      API_HOSTS: 'bad host!',
      LOG_LEVEL: 'loud',
    });
    for (const variable of [
      'GATEWAY_API_PORT',
      'GATEWAY_APP_PORT',
      'BODY_LIMIT',
      'SERVICE_DEADLINE_MS',
      'AUTH_CACHE_TTL_MS',
      'LOOKUP_SERVICE_ADDR',
      'REDIS_URL',
      'CORS_ORIGINS',
      'API_HOSTS',
      'LOG_LEVEL',
    ]) {
      expect(message).to.contain(variable);
    }
  });

  it('in production requires CORS_ORIGINS and refuses undeployed services', () => {
    const message = configError({ NODE_ENV: 'production', COMMENTS_SERVICE_ADDR: 'none' });
    expect(message).to.contain('CORS_ORIGINS').and.contain('COMMENTS_SERVICE_ADDR');
    expect(
      loadConfig({ NODE_ENV: 'production', CORS_ORIGINS: '*', APP_URL: 'https://app.example.com' }).cors,
    ).to.deep.equal({
      mode: 'wildcard',
    });
  });

  it('one shared port needs both host lists, and a host cannot be in both', () => {
    expect(
      configError({ GATEWAY_API_PORT: '8000', GATEWAY_APP_PORT: '8000', API_HOSTS: 'api.x' }),
    ).to.contain('GATEWAY_APP_PORT');
    expect(configError({ API_HOSTS: 'same.x', APP_HOSTS: 'same.x' })).to.contain('APP_HOSTS');
  });
});

describe('config value parsers', () => {
  it('parseByteSize', () => {
    expect(parseByteSize('1mb')).to.equal(1048576);
    expect(parseByteSize('1MB')).to.equal(1048576);
    expect(parseByteSize('100kb')).to.equal(102400);
    expect(parseByteSize('2048')).to.equal(2048);
    for (const bad of ['', '0', 'mb', '1.5mb', '1gb', '-1', '100mb'])
      expect(parseByteSize(bad), bad).to.equal(undefined);
  });

  it('parseCorsOrigins', () => {
    expect(parseCorsOrigins('*')).to.deep.equal({ mode: 'wildcard' });
    expect(parseCorsOrigins(' https://A.example:8443 ,http://b.example/')).to.deep.equal({
      mode: 'list',
      origins: ['https://a.example:8443', 'http://b.example'],
    });
    for (const bad of ['', '*,https://a.example', 'a.example', 'https://a.example/x', 'ftp://a.example']) {
      expect(parseCorsOrigins(bad), bad).to.equal(undefined);
    }
  });

  it('normalizeHostName', () => {
    expect(normalizeHostName('API.Example.com:443')).to.equal('api.example.com');
    expect(normalizeHostName('example.com.')).to.equal('example.com');
    expect(normalizeHostName('[::1]:8080')).to.equal('[::1]');
  });
});

import { expect } from 'chai';
import { ConfigError } from '@tix/kit';
import { loadConfig, targetModeOf } from '../../src/config.js';

describe('webhook service config', () => {
  it('defaults: the fleet port, the spec timeout, development targets, no key', () => {
    const config = loadConfig({});
    expect(config).to.deep.include({
      nodeEnv: 'development',
      grpcPort: 50055,
      targetMode: 'development',
      secretKey: null,
      attemptTimeoutMs: 10_000,
      concurrency: 128,
      hostConcurrency: 16,
      prefetch: 64,
      retentionDays: 30,
    });
    expect(config.databaseUrl).to.match(/\/tix_webhooks$/);
  });

  it('production requires WEBHOOK_SECRET_KEY and restricts targets', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' }))
      .to.throw(ConfigError)
      .with.property('message')
      .that.includes('WEBHOOK_SECRET_KEY');
    const key = Buffer.alloc(32, 5).toString('base64');
    const config = loadConfig({ NODE_ENV: 'production', WEBHOOK_SECRET_KEY: key });
    expect(config.targetMode).to.equal('production');
    expect(config.secretKey).to.deep.equal(Buffer.alloc(32, 5));
    expect(targetModeOf('test')).to.equal('development');
  });

  it('names every bad variable', () => {
    let message = '';
    try {
      loadConfig({ WEBHOOK_SECRET_KEY: 'short', WEBHOOK_TIMEOUT_MS: '0', DELIVERY_RETENTION_DAYS: 'x' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message)
      .to.include('WEBHOOK_SECRET_KEY')
      .and.include('WEBHOOK_TIMEOUT_MS')
      .and.include('DELIVERY_RETENTION_DAYS');
  });

  it('WEBHOOKS_DATABASE_URL overrides the database', () => {
    expect(loadConfig({ WEBHOOKS_DATABASE_URL: 'postgresql://x@db:5432/hooks' }).databaseUrl).to.equal(
      'postgresql://x@db:5432/hooks',
    );
  });
});

import { expect } from 'chai';
import { ConfigError, DEFAULT_BREAKER_OPTIONS } from '@tix/kit';
import { loadConfig } from '../../src/config.js';

describe('loadConfig: service circuit breakers', () => {
  it('defaults to the kit breaker defaults', () => {
    expect(loadConfig({}).serviceBreaker).to.deep.equal(DEFAULT_BREAKER_OPTIONS);
  });

  it('reads SERVICE_BREAKER_*', () => {
    const config = loadConfig({
      SERVICE_BREAKER_RESET_MS: '750',
      SERVICE_BREAKER_ERROR_PERCENT: '25',
      SERVICE_BREAKER_VOLUME: '3',
      SERVICE_BREAKER_WINDOW_MS: '2000',
    });
    expect(config.serviceBreaker).to.deep.equal({
      resetTimeoutMs: 750,
      errorThresholdPercentage: 25,
      volumeThreshold: 3,
      rollingCountTimeoutMs: 2000,
    });
  });

  it('turns the breakers off with SERVICE_BREAKER_ENABLED=false', () => {
    expect(loadConfig({ SERVICE_BREAKER_ENABLED: 'false' }).serviceBreaker).to.equal(false);
  });

  it('names each bad breaker variable', () => {
    const bad = {
      SERVICE_BREAKER_ENABLED: 'maybe',
      SERVICE_BREAKER_RESET_MS: '0',
      SERVICE_BREAKER_ERROR_PERCENT: '100',
      SERVICE_BREAKER_VOLUME: '-1',
      SERVICE_BREAKER_WINDOW_MS: '50',
    };
    let message = '';
    try {
      loadConfig(bad);
    } catch (error) {
      expect(error).to.be.instanceOf(ConfigError);
      message = (error as Error).message;
    }
    for (const variable of Object.keys(bad)) expect(message).to.contain(variable);
  });
});

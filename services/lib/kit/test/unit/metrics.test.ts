import { expect } from 'chai';
import { Registry } from 'prom-client';
import {
  BREAKER_STATE_VALUES,
  defineCounter,
  initProcessMetrics,
  metricsPortSchema,
  metricsRegistry,
  recordBreakerState,
  startMetricsServer,
  type MetricsServer,
} from '../../src/index.js';
import { metricValue, parseMetrics, scrapeMetrics } from '../../src/testing/index.js';

describe('metrics (kit)', () => {
  describe('the /metrics server', () => {
    let server: MetricsServer;
    let base: string;
    before(async () => {
      initProcessMetrics('kit-unit');
      server = await startMetricsServer({ host: '127.0.0.1', port: 0 });
      base = `http://127.0.0.1:${server.port}`;
    });
    after(() => server.close());

    it('serves the registry in the Prometheus text format, every series labelled with the process', async () => {
      const counter = defineCounter({
        name: 'tix_test_things_total',
        help: 'Things a test did.',
        labelNames: ['kind'] as const,
      });
      counter.inc({ kind: 'a' }, 3);
      const response = await fetch(`${base}/metrics`);
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
      const text = await response.text();
      expect(text).to.contain('# TYPE tix_test_things_total counter');
      expect(metricValue(text, 'tix_test_things_total', { kind: 'a', service: 'kit-unit' })).to.equal(3);
      // Node's default process metrics come along.
      expect(parseMetrics(text).some((sample) => sample.name === 'process_cpu_user_seconds_total')).to.equal(
        true,
      );
      expect(parseMetrics(text).every((sample) => sample.labels.service === 'kit-unit')).to.equal(true);
    });

    it('answers 404 elsewhere and 405 to other methods', async () => {
      expect((await fetch(`${base}/`)).status).to.equal(404);
      expect((await fetch(`${base}/metrics/extra`)).status).to.equal(404);
      const post = await fetch(`${base}/metrics`, { method: 'POST' });
      expect(post.status).to.equal(405);
      expect(post.headers.get('allow')).to.equal('GET, HEAD');
      const head = await fetch(`${base}/metrics`, { method: 'HEAD' });
      expect(head.status).to.equal(200);
    });

    it('stops listening when closed, keep-alive connections included', async () => {
      const other = await startMetricsServer({ host: '127.0.0.1', port: 0, registry: new Registry() });
      const url = `http://127.0.0.1:${other.port}/metrics`;
      expect(await scrapeMetrics(url)).to.equal('\n');
      await other.close();
      const refused = await fetch(url).then(
        () => false,
        () => true,
      );
      expect(refused).to.equal(true);
    });
  });

  it('defines each metric once, however often it is asked for', () => {
    const first = defineCounter({ name: 'tix_test_once_total', help: 'Once.' });
    const second = defineCounter({ name: 'tix_test_once_total', help: 'Once.' });
    expect(second).to.equal(first);
  });

  it('records breaker states as 0 closed, 1 half open, 2 open', async () => {
    recordBreakerState('tickets', 'open');
    recordBreakerState('lookup', 'half_open');
    const text = await metricsRegistry.metrics();
    expect(metricValue(text, 'tix_circuit_breaker_state', { target_service: 'tickets' })).to.equal(2);
    expect(metricValue(text, 'tix_circuit_breaker_state', { target_service: 'lookup' })).to.equal(1);
    recordBreakerState('tickets', 'closed');
    expect(
      metricValue(await metricsRegistry.metrics(), 'tix_circuit_breaker_state', {
        target_service: 'tickets',
      }),
    ).to.equal(BREAKER_STATE_VALUES.closed);
  });

  it('reads METRICS_PORT: a port, the process default when unset, 0 as "no endpoint"', () => {
    const schema = metricsPortSchema(9402);
    expect(schema.parse(undefined)).to.equal(9402);
    expect(schema.parse('9500')).to.equal(9500);
    expect(schema.parse('0')).to.equal(null);
    expect(schema.safeParse('70000').success).to.equal(false);
    expect(schema.safeParse('nine').success).to.equal(false);
  });
});

/**
 * Graceful shutdown of the real gateway process (node --import tsx src/main.ts), and its /metrics
 * endpoint on a port of its own. On SIGTERM the gateway stops accepting connections at once, answers
 * /readyz with 503 on a connection that was already open, lets the request in flight finish with 200,
 * and exits 0 within SHUTDOWN_GRACE_MS; a request slower than the grace period is cut and the process
 * still exits 0 on time. main-process.test.ts covers start-up and configuration refusals.
 */
import net from 'node:net';
import { expect } from 'chai';
import {
  createTestVhost,
  eventually,
  freePort,
  metricValue,
  scrapeMetrics,
  startMainProcess,
  type TestProcess,
  type TestVhost,
} from '@tix/kit/testing';
import { FULL_KEY, startFakeLookup, type FakeLookup } from '../support/fake-lookup.js';
import { bearer, onlyServices, request } from '../support/test-gateway.js';

interface RunningMain {
  main: TestProcess;
  api: string;
  metrics: string;
}

async function startMain(lookup: FakeLookup, amqpUrl: string, graceMs: number): Promise<RunningMain> {
  const [apiPort, appPort, metricsPort] = [await freePort(), await freePort(), await freePort()];
  const main = startMainProcess(
    import.meta.url,
    {
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      GATEWAY_API_PORT: String(apiPort),
      GATEWAY_APP_PORT: String(appPort),
      METRICS_PORT: String(metricsPort),
      SHUTDOWN_GRACE_MS: String(graceMs),
      ...onlyServices({ lookup: lookup.address }),
      AMQP_URL: amqpUrl,
    },
    { inheritEnv: false },
  );
  const api = `http://127.0.0.1:${apiPort}`;
  await eventually(() => request(`${api}/healthz`).then((response) => response.status === 200), 20_000, 100);
  return { main, api, metrics: `http://127.0.0.1:${metricsPort}/metrics` };
}

/** Sends raw HTTP/1.1 on one connection and collects everything until the server closes it. */
function rawExchange(
  url: string,
  payload: string,
): { connected: Promise<void>; replies: Promise<string>; send(more: string): void } {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  const connected = new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('error', reject);
  });
  const replies = new Promise<string>((resolve, reject) => {
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
  });
  socket.write(payload);
  return { connected, replies, send: (more) => socket.write(more) };
}

const refuses = (url: string) =>
  fetch(url, { signal: AbortSignal.timeout(2_000) }).then(
    () => false,
    () => true,
  );

describe('gateway graceful shutdown (real process)', function () {
  this.timeout(60_000);
  let lookup: FakeLookup;
  let vhost: TestVhost;
  let running: RunningMain | undefined;
  before(async () => {
    lookup = await startFakeLookup();
    vhost = await createTestVhost('gateway_shutdown');
  });
  afterEach(async () => {
    lookup.reset();
    await running?.main.kill();
    running = undefined;
  });
  after(async () => {
    await lookup.stop();
    await vhost.drop();
  });

  it('serves /metrics on its own port only, counting requests by route', async () => {
    running = await startMain(lookup, vhost.url, 5_000);
    expect((await request(`${running.api}/readyz`)).status).to.equal(200);
    const text = await scrapeMetrics(running.metrics);
    expect(metricValue(text, 'tix_http_requests_total', { route: '/readyz', status: '200' })).to.equal(1);
    expect(metricValue(text, 'process_resident_memory_bytes', { service: 'gateway' })).to.be.greaterThan(0);
    // The public listener knows nothing of it.
    expect((await request(`${running.api}/metrics`)).status).to.equal(404);
    expect(await running.main.stop()).to.equal(0);
  });

  it('on SIGTERM: refuses new connections, says not ready, finishes the request in flight, exits 0 in time', async () => {
    const graceMs = 5_000;
    running = await startMain(lookup, vhost.url, graceMs);
    lookup.override(
      'ListUsers',
      () => new Promise((resolve) => setTimeout(() => resolve({ users: [] }), 1_500)),
    );
    // A connection with a slow request in flight (an open connection is not closed by the drain).
    const exchange = rawExchange(
      running.api,
      `GET /v1/users HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${FULL_KEY}\r\n\r\n`,
    );
    await exchange.connected;
    await eventually(() => lookup.calls.ListUsers === 1);

    const signalledAt = Date.now();
    const stopped = running.main.stop();
    await eventually(() => refuses(`${running!.api}/healthz`), 1_000);
    expect(lookup.calls.ListUsers).to.equal(1);
    // A readiness probe on the open connection, during the drain (answered after the first reply).
    exchange.send('GET /readyz HTTP/1.1\r\nHost: localhost\r\n\r\n');

    const replies = await exchange.replies;
    const [first, second] = replies.split(/(?=HTTP\/1\.1 \d{3})/);
    expect(first).to.match(/^HTTP\/1\.1 200 /);
    expect(first).to.contain('"users":[]');
    expect(second).to.match(/^HTTP\/1\.1 503 /);
    expect(second).to.contain('"status":"shutting_down"');
    expect(second).to.match(/connection: close/i);

    expect(await stopped).to.equal(0);
    expect(running.main.exitedAt()! - signalledAt).to.be.lessThan(graceMs);
  });

  it('cuts a request that outlasts the grace period and still exits 0 on time', async () => {
    const graceMs = 1_000;
    running = await startMain(lookup, vhost.url, graceMs);
    lookup.override(
      'ListUsers',
      () => new Promise((resolve) => setTimeout(() => resolve({ users: [] }), 20_000)),
    );
    const slow = fetch(`${running.api}/v1/users`, { headers: bearer(FULL_KEY) }).then(
      (response) => response.status,
      () => 'cut' as const,
    );
    await eventually(() => lookup.calls.ListUsers === 1);
    const signalledAt = Date.now();
    const stopped = running.main.stop();
    expect(await stopped).to.equal(0);
    expect(running.main.exitedAt()! - signalledAt).to.be.within(graceMs, graceMs + 3_000);
    expect(await slow).to.equal('cut');
  });
});

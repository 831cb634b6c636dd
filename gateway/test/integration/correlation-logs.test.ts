/**
 * One correlation id end to end: the caller's X-Correlation-ID comes back on the response, travels
 * in gRPC metadata to the service, and is on the service's own JSON log lines about that call. The
 * service is the real webhook process (src/main.ts, LOG_LEVEL=debug) with its stdout captured.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { createServiceClient } from '@tix/kit';
import { createTestDatabase, eventually, freePort, type TestDatabase } from '@tix/kit/testing';
import { WEBHOOKS_MIGRATIONS_DIR } from '@tix/webhook-service/testing';
import { FULL_KEY, startFakeLookup, type FakeLookup } from '../support/fake-lookup.js';
import { bearer, request, startTestGateway, type TestGateway } from '../support/test-gateway.js';

const WEBHOOKS_MAIN = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../services/webhooks/src/main.ts',
);

describe('correlation id: gateway -> gRPC metadata -> service logs', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let lookup: FakeLookup;
  let webhooks: ChildProcess;
  let gateway: TestGateway;
  const lines: Record<string, unknown>[] = [];

  before(async () => {
    database = await createTestDatabase('gateway_correlation', WEBHOOKS_MIGRATIONS_DIR);
    lookup = await startFakeLookup();
    const port = await freePort();
    webhooks = spawn(process.execPath, ['--import', 'tsx', WEBHOOKS_MAIN], {
      env: {
        PATH: process.env.PATH ?? '',
        NODE_ENV: 'development',
        LOG_LEVEL: 'debug',
        WEBHOOKS_DATABASE_URL: database.url,
        AMQP_URL: 'amqp://guest:guest@127.0.0.1:1', // no broker needed for the API
        GRPC_PORT: String(port),
        METRICS_PORT: '0',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let pending = '';
    webhooks.stdout!.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const complete = pending.split('\n');
      pending = complete.pop() ?? '';
      for (const line of complete) lines.push(JSON.parse(line) as Record<string, unknown>);
    });
    const address = `127.0.0.1:${port}`;
    const probe = createServiceClient('webhooks', address, { deadlineMs: 1_000, breaker: false });
    await eventually(() => probe.checkHealth(), 20_000, 100);
    probe.close();
    gateway = await startTestGateway({ services: { lookup: lookup.address, webhooks: address } });
  });
  after(async () => {
    await gateway?.close();
    if (webhooks?.exitCode === null) {
      const exited = new Promise((resolve) => webhooks.once('exit', resolve));
      webhooks.kill('SIGTERM');
      await exited;
    }
    await lookup?.stop();
    await database?.drop();
  });

  it('logs the caller’s correlation id on the service’s lines about the call', async () => {
    const response = await request(`${gateway.apiUrl}/v1/webhooks?project=acme`, {
      headers: { ...bearer(FULL_KEY), 'X-Correlation-ID': 'trace-7f3a-webhooks' },
    });
    expect(response.status).to.equal(200);
    expect(response.headers.get('x-correlation-id')).to.equal('trace-7f3a-webhooks');

    const line = await eventually(() =>
      lines.find((entry) => entry.correlation_id === 'trace-7f3a-webhooks'),
    );
    expect(line).to.include({ service: 'webhooks', method: 'ListWebhooks', level: 'debug', msg: 'rpc ok' });
    expect(line.time).to.be.a('string');
  });

  it('gives a request without one a fresh id, the same on the response and in the service', async () => {
    const response = await request(`${gateway.apiUrl}/v1/webhooks?project=acme`, {
      headers: bearer(FULL_KEY),
    });
    const id = response.headers.get('x-correlation-id');
    expect(id).to.match(/^[0-9a-f-]{36}$/);
    const line = await eventually(() => lines.find((entry) => entry.correlation_id === id));
    expect(line).to.include({ service: 'webhooks', method: 'ListWebhooks' });
  });
});

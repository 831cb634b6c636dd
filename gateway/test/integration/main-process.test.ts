import { expect } from 'chai';
import {
  createTestVhost,
  eventually,
  freePort,
  startMainProcess,
  type TestProcess,
  type TestVhost,
} from '@tix/kit/testing';
import { FULL_KEY, startFakeLookup, type FakeLookup } from '../support/fake-lookup.js';
import { bearer, onlyServices, request } from '../support/test-gateway.js';

function startMain(env: Record<string, string>): TestProcess {
  return startMainProcess(
    import.meta.url,
    { NODE_ENV: 'test', LOG_LEVEL: 'silent', ...env },
    { inheritEnv: false },
  );
}

describe('the gateway process (src/main.ts)', () => {
  let lookup: FakeLookup;
  let vhost: TestVhost;
  before(async () => {
    lookup = await startFakeLookup();
    vhost = await createTestVhost('gateway_main');
  });
  after(async () => {
    await lookup.stop();
    await vhost.drop();
  });

  it('serves both ports, then on SIGTERM finishes in-flight requests, stops accepting and exits 0', async () => {
    const [apiPort, appPort] = [await freePort(), await freePort()];
    const gateway = startMain({
      GATEWAY_API_PORT: String(apiPort),
      GATEWAY_APP_PORT: String(appPort),
      ...onlyServices({ lookup: lookup.address }),
      AMQP_URL: vhost.url,
    });
    try {
      const api = `http://127.0.0.1:${apiPort}`;
      await eventually(() => request(`${api}/healthz`).then((response) => response.status === 200), 15_000);
      expect((await request(`http://127.0.0.1:${appPort}/api/csrf-token`)).status).to.equal(200);
      expect((await request(`${api}/readyz`)).status).to.equal(200);

      lookup.override(
        'ListUsers',
        () => new Promise((resolve) => setTimeout(() => resolve({ users: [] }), 700)),
      );
      const inFlight = request(`${api}/v1/users`, { headers: bearer(FULL_KEY) });
      await eventually(() => lookup.calls.ListUsers === 1);
      const stopped = gateway.stop();

      const response = await inFlight;
      expect(response.status).to.equal(200);
      expect(response.body).to.deep.equal({ ok: true, data: { users: [], count: 0 } });
      expect(await stopped).to.equal(0);
      const refused = await fetch(`${api}/healthz`).then(
        () => false,
        () => true,
      );
      expect(refused).to.equal(true);
    } finally {
      lookup.reset();
      await gateway.kill();
    }
  });

  it('refuses a bad configuration, naming the variable (exit 78, EX_CONFIG)', async () => {
    const gateway = startMain({ GATEWAY_API_PORT: 'eighty', CORS_ORIGINS: 'https://ok.example, not a url' });
    expect(await gateway.exited).to.equal(78);
    expect(gateway.output()).to.contain('GATEWAY_API_PORT').and.contain('CORS_ORIGINS');
  });

  it('refuses "none" service addresses in production', async () => {
    const gateway = startMain({ NODE_ENV: 'production', CORS_ORIGINS: '*', TICKETS_SERVICE_ADDR: 'none' });
    expect(await gateway.exited).to.equal(78);
    expect(gateway.output()).to.contain('TICKETS_SERVICE_ADDR');
  });
});

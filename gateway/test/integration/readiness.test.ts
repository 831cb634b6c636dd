import { expect } from 'chai';
import { freePort } from '@tix/kit/testing';
import { startFakeLookup, type FakeLookup } from '../support/fake-lookup.js';
import { notDeployedExcept, request, startTestGateway } from '../support/test-gateway.js';

describe('GET /readyz', () => {
  let lookup: FakeLookup;
  before(async () => {
    lookup = await startFakeLookup();
  });
  after(() => lookup.stop());

  it('200 ready when every deployed service serves, on both ports', async () => {
    const gateway = await startTestGateway({ services: { lookup: lookup.address } });
    try {
      for (const base of [gateway.apiUrl, gateway.appUrl]) {
        const response = await request(`${base}/readyz`);
        expect(response.status).to.equal(200);
        expect(response.body).to.deep.equal({
          ok: true,
          data: {
            status: 'ready',
            services: notDeployedExcept({ lookup: 'serving' }),
            breakers: notDeployedExcept({ lookup: 'closed' }),
          },
        });
      }
    } finally {
      await gateway.close();
    }
  });

  it('503 naming what is not ready, with the same detail', async () => {
    const gateway = await startTestGateway({
      services: { lookup: lookup.address, tickets: `127.0.0.1:${await freePort()}` },
    });
    try {
      const response = await request(`${gateway.apiUrl}/readyz`);
      expect(response.status).to.equal(503);
      expect(response.headers.get('x-correlation-id')).to.be.a('string');
      expect(response.body).to.deep.equal({
        ok: false,
        error: { code: 503, message: 'Not ready: tickets unreachable' },
        data: {
          status: 'not_ready',
          services: notDeployedExcept({ lookup: 'serving', tickets: 'unreachable' }),
          breakers: notDeployedExcept({ lookup: 'closed', tickets: 'closed' }),
        },
      });
    } finally {
      await gateway.close();
    }
  });

  it('treats a service reporting NOT_SERVING as unreachable', async () => {
    const gateway = await startTestGateway({ services: { lookup: lookup.address } });
    lookup.server.health.setStatus('', 'NOT_SERVING');
    try {
      const response = await request(`${gateway.apiUrl}/readyz`);
      expect(response.status).to.equal(503);
      expect(response.body.error.message).to.equal('Not ready: lookup unreachable');
      expect(response.body.data.services.lookup).to.equal('unreachable');
    } finally {
      lookup.server.health.setStatus('', 'SERVING');
      await gateway.close();
    }
  });

  it('503 while shutting down; /healthz stays 200', async () => {
    const gateway = await startTestGateway({ services: { lookup: lookup.address } });
    gateway.shuttingDown.value = true;
    try {
      const response = await request(`${gateway.apiUrl}/readyz`);
      expect(response.status).to.equal(503);
      expect(response.body).to.deep.equal({
        ok: false,
        error: { code: 503, message: 'Not ready: shutting down' },
        data: { status: 'shutting_down' },
      });
      expect(response.headers.get('connection')).to.equal('close');
      expect((await request(`${gateway.apiUrl}/healthz`)).status).to.equal(200);
    } finally {
      await gateway.close();
    }
  });
});

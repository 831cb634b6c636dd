import { expect } from 'chai';
import { SERVICE_NAMES } from '@tix/protos';
import { fleet } from '../support/fleet.js';
import { request } from '../support/http.js';

describe('health endpoints', () => {
  for (const host of ['api', 'app'] as const) {
    it(`answers /healthz on the ${host} host`, async () => {
      const response = await request('/healthz', { host });
      expect(response.status).to.equal(200);
      expect(response.body.ok).to.equal(true);
      expect(response.headers.get('x-correlation-id')).to.be.a('string').and.not.be.empty;
    });

    it(`answers /readyz on the ${host} host, naming every service and which are not built yet`, async () => {
      const response = await request('/readyz', { host });
      expect(response.status).to.equal(200);
      const services = response.body.data.services as Record<string, string>;
      expect(Object.keys(services).sort()).to.deep.equal([...SERVICE_NAMES].sort());
      for (const name of SERVICE_NAMES) {
        expect(services[name], name).to.equal(fleet().services.includes(name) ? 'serving' : 'not_deployed');
      }
    });
  }
});

import { expect } from 'chai';
import express, { type Request } from 'express';
import type { Logger } from '@tix/kit';
import {
  chooseCorrelationId,
  correlationId,
  installRequestLogger,
} from '../../src/middleware/correlation-id.js';
import { fakeRequest, recordingLogger, run } from '../support/fake-http.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('correlation id', () => {
  it('accepts a well-formed caller id', () => {
    for (const id of ['abc', 'trace-1.2:3@x/y+z=', 'A'.repeat(128), '3f2504e0-4f89-11d3-9a0c-0305e82c3301']) {
      expect(chooseCorrelationId(id)).to.equal(id);
    }
  });

  it('replaces a missing, repeated or malformed one with a UUID', () => {
    for (const header of [undefined, '', 'has space', 'a;b', 'A'.repeat(129), ['a', 'b'], '<script>']) {
      expect(chooseCorrelationId(header)).to.match(UUID);
    }
  });

  it('sets the header and the request id', async () => {
    const logger = recordingLogger();
    const request = fakeRequest({ headers: { 'x-correlation-id': 'from-caller' } });
    const { nextCalled, response } = await run(correlationId(logger), request);
    expect(nextCalled).to.equal(true);
    expect(request.correlationId).to.equal('from-caller');
    expect(response.getHeader('X-Correlation-ID')).to.equal('from-caller');
  });

  it('gives every request a child logger carrying its correlation id, made on first use', () => {
    const app = express();
    const children: unknown[] = [];
    const logger = {
      child: (bindings: unknown) => (children.push(bindings), { bindings }),
    } as unknown as Logger;
    installRequestLogger(app, logger);
    const request = Object.create(app.request) as Request;
    request.correlationId = 'abc';
    expect(children).to.have.length(0);
    expect(request.log).to.deep.equal({ bindings: { correlation_id: 'abc' } });
    expect(request.log).to.equal(request.log);
    expect(children).to.have.length(1);
  });
});

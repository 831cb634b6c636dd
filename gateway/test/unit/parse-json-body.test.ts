import { expect } from 'chai';
import { AppError } from '@tix/kit';
import { hasBody, isJsonContentType, parseJsonBody } from '../../src/middleware/parse-json-body.js';
import { fakeRequest, run } from '../support/fake-http.js';

describe('parseJsonBody', () => {
  it('recognises JSON content types', () => {
    for (const type of [
      'application/json',
      'Application/JSON; charset=utf-8',
      'application/merge-patch+json',
    ]) {
      expect(isJsonContentType(type), type).to.equal(true);
    }
    for (const type of [
      undefined,
      '',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonp',
    ]) {
      expect(isJsonContentType(type), String(type)).to.equal(false);
    }
  });

  it('knows when a request has a body', () => {
    expect(hasBody(fakeRequest({ headers: { 'content-length': '2' } }))).to.equal(true);
    expect(hasBody(fakeRequest({ headers: { 'transfer-encoding': 'chunked' } }))).to.equal(true);
    expect(hasBody(fakeRequest({ headers: { 'content-length': '0' } }))).to.equal(false);
    expect(hasBody(fakeRequest())).to.equal(false);
  });

  const middleware = parseJsonBody({ limitBytes: 1024, isExempt: (request) => request.path === '/upload' });

  it('refuses a non-JSON body on POST, PUT and PATCH with 415', async () => {
    for (const method of ['POST', 'PUT', 'PATCH']) {
      for (const headers of [
        { 'content-length': '5', 'content-type': 'text/plain' },
        { 'content-length': '5' },
      ]) {
        const { error, nextCalled } = await run(middleware, fakeRequest({ method, headers }));
        expect(nextCalled).to.equal(false);
        expect(error).to.be.instanceOf(AppError);
        expect([(error as AppError).httpStatus, (error as AppError).message]).to.deep.equal([
          415,
          'Content-Type must be application/json',
        ]);
      }
    }
  });

  it('lets through bodiless requests, other methods and exempt routes', async () => {
    const cases = [
      fakeRequest({ method: 'POST', headers: { 'content-type': 'text/plain' } }),
      fakeRequest({ method: 'DELETE', headers: { 'content-length': '5', 'content-type': 'text/plain' } }),
      fakeRequest({
        method: 'POST',
        path: '/upload',
        headers: { 'content-length': '5', 'content-type': 'multipart/form-data' },
      }),
    ];
    for (const request of cases) {
      const { error, nextCalled } = await run(middleware, request);
      expect([nextCalled, error]).to.deep.equal([true, undefined]);
    }
  });
});

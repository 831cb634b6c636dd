import { expect } from 'chai';
import type { AppError } from '@tix/kit';
import { requireCsrfToken, tokensMatch } from '../../src/middleware/csrf.js';
import { fakeRequest, run } from '../support/fake-http.js';

const session = { id: 'x'.repeat(43), data: { csrfToken: 'the-token-value', createdAt: '' } };

describe('CSRF', () => {
  it('tokensMatch compares exactly, any length', () => {
    expect(tokensMatch('abc', 'abc')).to.equal(true);
    expect(tokensMatch('abd', 'abc')).to.equal(false);
    expect(tokensMatch('ab', 'abc')).to.equal(false);
    expect(tokensMatch('', 'abc')).to.equal(false);
    expect(tokensMatch('é', 'e')).to.equal(false);
  });

  const middleware = requireCsrfToken();

  it('lets safe methods through without a token', async () => {
    for (const method of ['GET', 'HEAD', 'OPTIONS']) {
      expect((await run(middleware, fakeRequest({ method, session: null }))).nextCalled).to.equal(true);
    }
  });

  it('requires the session token on POST, PUT, PATCH and DELETE', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const ok = await run(
        middleware,
        fakeRequest({ method, session, headers: { 'x-csrf-token': 'the-token-value' } }),
      );
      expect([ok.nextCalled, ok.error]).to.deep.equal([true, undefined]);
      for (const request of [
        fakeRequest({ method, session }),
        fakeRequest({ method, session, headers: { 'x-csrf-token': 'the-token-valuE' } }),
        fakeRequest({ method, session: null, headers: { 'x-csrf-token': 'the-token-value' } }),
      ]) {
        const { error } = await run(middleware, request);
        expect([(error as AppError).httpStatus, (error as AppError).message]).to.deep.equal([
          403,
          'Invalid CSRF token',
        ]);
      }
    }
  });

  it('refuses Sec-Fetch-Site: cross-site on state-changing requests, allows same-origin', async () => {
    const fetchedFrom = (site: string) =>
      run(
        middleware,
        fakeRequest({
          method: 'POST',
          session,
          headers: { 'x-csrf-token': 'the-token-value', 'sec-fetch-site': site },
        }),
      );
    const crossSite = await fetchedFrom('cross-site');
    expect((crossSite.error as AppError).message).to.equal('Cross-site requests are not allowed');
    const sameOrigin = await fetchedFrom('same-origin');
    expect(sameOrigin.error).to.equal(undefined);
    const crossSiteRead = await run(
      middleware,
      fakeRequest({ method: 'GET', headers: { 'sec-fetch-site': 'cross-site' } }),
    );
    expect(crossSiteRead.nextCalled).to.equal(true);
  });

  it("refuses a state-changing request whose Origin is neither the host's own nor trusted", async () => {
    const checked = requireCsrfToken({ trustedOrigins: ['https://console.example.com'] });
    const post = (origin: string | undefined) =>
      run(
        checked,
        fakeRequest({
          method: 'POST',
          session,
          headers: {
            host: 'app.example.com',
            'x-csrf-token': 'the-token-value',
            ...(origin === undefined ? {} : { origin }),
          },
        }),
      );
    for (const origin of [
      undefined,
      'https://app.example.com',
      'https://APP.example.com',
      'https://console.example.com',
    ]) {
      expect((await post(origin)).error, String(origin)).to.equal(undefined);
    }
    for (const origin of ['https://api.example.com', 'https://evil.example', 'null', 'not a url']) {
      const { error, nextCalled } = await post(origin);
      expect(nextCalled, origin).to.equal(false);
      expect([(error as AppError).httpStatus, (error as AppError).message], origin).to.deep.equal([
        403,
        'Cross-site requests are not allowed',
      ]);
    }
    const read = await run(
      checked,
      fakeRequest({ method: 'GET', headers: { origin: 'https://evil.example' } }),
    );
    expect(read.nextCalled).to.equal(true);
  });
});

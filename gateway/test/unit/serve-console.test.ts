import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { expect } from 'chai';
import express from 'express';
import {
  ASSET_CACHE_CONTROL,
  ASSET_NOT_FOUND_MESSAGE,
  CONSOLE_CONTENT_SECURITY_POLICY,
  CONSOLE_NOT_BUILT_MESSAGE,
  serveConsole,
} from '../../src/console/serve-console.js';
import { notFound } from '../../src/http/routing.js';
import { recordingLogger } from '../support/fake-http.js';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const SCRIPT = `console.log(${JSON.stringify('x'.repeat(2000))});`;

/** Serves `dir` the way createApp does (console, then the 404 envelope) on a free port. */
async function serve(dir: string, logger = recordingLogger()) {
  const app = express();
  app.use(serveConsole({ dir, logger }));
  app.use(notFound());
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    get: (url: string, headers: Record<string, string> = {}) => fetch(`${base}${url}`, { headers }),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

describe('serveConsole', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'tix-console-'));
    mkdirSync(path.join(dir, 'assets'));
    writeFileSync(path.join(dir, 'index.html'), '<!doctype html><div id="app"></div>');
    writeFileSync(path.join(dir, 'assets/app-ABC123.js'), SCRIPT);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('answers a browser navigation to any client route with index.html, not cached, under the CSP', async () => {
    const server = await serve(dir);
    try {
      for (const url of ['/', '/board?project=sup', '/tickets/42']) {
        const response = await server.get(url, { accept: BROWSER_ACCEPT });
        expect(response.status, url).to.equal(200);
        expect(await response.text()).to.contain('<div id="app">');
        expect(response.headers.get('content-type')).to.equal('text/html; charset=utf-8');
        expect(response.headers.get('cache-control')).to.equal('no-cache');
        expect(response.headers.get('content-security-policy')).to.equal(CONSOLE_CONTENT_SECURITY_POLICY);
        expect(response.headers.get('x-content-type-options')).to.equal('nosniff');
        expect(response.headers.get('referrer-policy')).to.equal('same-origin');
      }
      expect(CONSOLE_CONTENT_SECURITY_POLICY)
        .to.contain("script-src 'self'")
        .and.not.contain('unsafe-inline');
    } finally {
      await server.close();
    }
  });

  it('serves a hashed asset for a year, immutable, gzipped when accepted', async () => {
    const server = await serve(dir);
    try {
      const plain = await server.get('/assets/app-ABC123.js', { 'accept-encoding': 'identity' });
      expect(plain.status).to.equal(200);
      expect(plain.headers.get('cache-control')).to.equal(ASSET_CACHE_CONTROL);
      expect(plain.headers.get('content-type')).to.equal('text/javascript; charset=utf-8');
      expect(plain.headers.get('content-encoding')).to.equal(null);
      expect(await plain.text()).to.equal(SCRIPT);

      // fetch would decompress on its own; read the raw bytes through node's http instead.
      const url = new URL('/assets/app-ABC123.js', server.base);
      const raw = await new Promise<{ encoding: string | undefined; body: Buffer }>((resolve, reject) => {
        request(url, { headers: { 'accept-encoding': 'gzip' } }, (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({ encoding: response.headers['content-encoding'], body: Buffer.concat(chunks) }),
          );
        })
          .on('error', reject)
          .end();
      });
      expect(raw.encoding).to.equal('gzip');
      expect(raw.body.length).to.be.lessThan(SCRIPT.length);
      expect(gunzipSync(raw.body).toString()).to.equal(SCRIPT);
    } finally {
      await server.close();
    }
  });

  it('answers a missing asset, an API path and a non-HTML request with the 404 envelope', async () => {
    const server = await serve(dir);
    try {
      const missing = await server.get('/assets/app-OLD.js', { accept: BROWSER_ACCEPT });
      expect(missing.status).to.equal(404);
      expect(await missing.json()).to.deep.equal({
        ok: false,
        error: { code: 404, message: ASSET_NOT_FOUND_MESSAGE },
      });
      for (const [url, accept] of [
        ['/api/nope', BROWSER_ACCEPT],
        ['/board', 'application/json'],
        ['/board', '*/*'],
      ] as const) {
        const response = await server.get(url, { accept });
        expect(response.status, `${url} ${accept}`).to.equal(404);
        expect(response.headers.get('content-type')).to.contain('application/json');
      }
    } finally {
      await server.close();
    }
  });

  it('without a build, still serves: pages answer 503 telling to run pnpm install', async () => {
    const empty = mkdtempSync(path.join(os.tmpdir(), 'tix-console-empty-'));
    const logger = recordingLogger();
    const server = await serve(empty, logger);
    try {
      const page = await server.get('/', { accept: BROWSER_ACCEPT });
      expect(page.status).to.equal(503);
      expect(await page.text()).to.equal(`${CONSOLE_NOT_BUILT_MESSAGE}\n`);
      expect(CONSOLE_NOT_BUILT_MESSAGE).to.contain('pnpm install');
      expect((await server.get('/assets/app-ABC123.js')).status).to.equal(404);
      // Once per process: this is the first console of this run without a build.
      const warnings = logger.calls.filter((call) => call.level === 'warn');
      expect(warnings.map((call) => call.message)).to.deep.equal([
        'the console is not built: run `pnpm install`; / answers 503 until then',
      ]);
      await serve(empty, logger).then((again) => again.close());
      expect(logger.calls.filter((call) => call.level === 'warn')).to.have.length(1);
    } finally {
      await server.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { expect } from 'chai';
import express from 'express';
import { compressJson, encodedEtag, negotiateCoding } from '../../src/http/compression.js';
import { expectedTicketVersion, ifNoneMatchNames, sendTagged } from '../../src/http/conditional.js';
import { sendDataStream, writeJsonText } from '../../src/http/envelope.js';

const THRESHOLD = 1024;
const bigData = { items: Array.from({ length: 200 }, (_, index) => ({ index, title: `Item ${index}` })) };
const big = JSON.stringify({ ok: true, data: bigData });

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A request whose body is read as sent (fetch would decode it). */
function get(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Raw> {
  return new Promise((resolve, reject) => {
    http
      .request(url, { method, headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }),
        );
      })
      .on('error', reject)
      .end();
  });
}

function decoded(raw: Raw): string {
  const coding = raw.headers['content-encoding'];
  if (coding === 'gzip') return gunzipSync(raw.body).toString();
  if (coding === 'br') return brotliDecompressSync(raw.body).toString();
  return raw.body.toString();
}

describe('compression', () => {
  describe('negotiateCoding', () => {
    const cases: [string | undefined, string | null][] = [
      [undefined, null],
      ['', null],
      ['identity', null],
      ['gzip', 'gzip'],
      ['x-gzip', 'gzip'],
      ['GZIP', 'gzip'],
      ['br', 'br'],
      ['gzip, deflate, br', 'gzip'],
      ['br, gzip', 'gzip'],
      ['br;q=1, gzip;q=0.9', 'br'],
      ['gzip;q=1, br;q=0.5', 'gzip'],
      ['br;q=0, gzip', 'gzip'],
      ['gzip;q=0, br;q=0', null],
      ['*', 'gzip'],
      ['*;q=0.5, gzip;q=0', 'br'],
      ['gzip;q=0.2, identity;q=0.8', null],
      ['gzip;q=0.8, identity;q=0.8', 'gzip'],
      ['deflate', null],
      ['gzip;q=2', null],
      ['gzip;q=abc, br', 'br'],
      [' , ;, gzip ; q=0.5 ', 'gzip'],
    ];
    for (const [header, expected] of cases) {
      it(`${JSON.stringify(header)} -> ${expected}`, () => {
        expect(negotiateCoding(header)).to.equal(expected);
      });
    }
  });

  describe('ETags of compressed forms', () => {
    it('puts the coding before the closing quote of a strong tag and leaves a weak one', () => {
      expect(encodedEtag('"t42.3"', 'gzip')).to.equal('"t42.3-gzip"');
      expect(encodedEtag('"dabc"', 'br')).to.equal('"dabc-br"');
      expect(encodedEtag('W/"a-7"', 'gzip')).to.equal('W/"a-7"');
    });

    it('If-None-Match names a tag in any of its forms, and no other tag', () => {
      expect(ifNoneMatchNames('"t42.3-gzip"', '"t42.3"')).to.equal(true);
      expect(ifNoneMatchNames('W/"t42.3-br"', '"t42.3"')).to.equal(true);
      expect(ifNoneMatchNames('"t42.3"', '"t42.3"')).to.equal(true);
      expect(ifNoneMatchNames('"t42.3-deflate"', '"t42.3"')).to.equal(false);
      expect(ifNoneMatchNames('"t42.3-gzip-gzip"', '"t42.3"')).to.equal(false);
      expect(ifNoneMatchNames('"t42.4-gzip"', '"t42.3"')).to.equal(false);
    });

    it('If-Match takes a compressed form as the version it names', () => {
      const ask = (header: string) => expectedTicketVersion(header, 42);
      expect(ask('"t42.3-gzip"')).to.equal(3);
      expect(ask('"t42.3-br"')).to.equal(3);
      expect(ask('"t42.3-gzip", "t42.3"')).to.equal(3);
      expect(ask('W/"t42.3-gzip"')).to.equal(0);
      expect(ask('"t42.3-zstd"')).to.equal(0);
    });
  });

  describe('the middleware', () => {
    let server: http.Server;
    let base: string;

    before(async () => {
      const app = express();
      app.use(compressJson({ thresholdBytes: THRESHOLD }));
      app.get('/big', (_request, response) => writeJsonText(response, 200, big));
      app.get('/small', (_request, response) => writeJsonText(response, 200, '{"ok":true,"data":{}}'));
      app.get('/tagged', (request, response) => sendTagged(request, response, '"t42.3"', bigData));
      app.get('/tagged-small', (request, response) => sendTagged(request, response, '"t7.1"', { a: 1 }));
      app.get('/stream', async (_request, response) => {
        async function* items() {
          for (let index = 0; index < 20_000; index += 1) {
            // Now and then the producer waits, as a gRPC stream does.
            if (index % 5000 === 0) await new Promise((resolve) => setImmediate(resolve));
            yield { index, title: `Streamed ${index}` };
          }
        }
        await sendDataStream(response, 'items', items());
      });
      app.get('/download', (_request, response) => {
        response.setHeader('Content-Type', 'application/json');
        response.setHeader('Content-Disposition', 'attachment; filename="a.json"');
        response.setHeader('Content-Length', Buffer.byteLength(big));
        response.end(big);
      });
      app.get('/text', (_request, response) => {
        response.setHeader('Content-Type', 'text/plain');
        response.end('x'.repeat(5000));
      });
      app.get('/no-transform', (_request, response) => {
        response.setHeader('Cache-Control', 'no-transform');
        writeJsonText(response, 200, big);
      });
      server = app.listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });

    after(() => new Promise((resolve) => server.close(resolve)));

    for (const coding of ['gzip', 'br']) {
      it(`compresses a JSON body above the threshold with ${coding}`, async () => {
        const raw = await get(`${base}/big`, { 'accept-encoding': coding });
        expect(raw.headers['content-encoding']).to.equal(coding);
        // Compressed in one call, so sent with the compressed length (not chunked).
        expect(raw.headers['content-length']).to.equal(String(raw.body.length));
        expect(raw.headers.vary).to.equal('Accept-Encoding');
        expect(raw.body.length).to.be.below(Buffer.byteLength(big) / 3);
        expect(decoded(raw)).to.equal(big);
      });
    }

    it('sends identity without Accept-Encoding, or when identity is preferred, still with Vary', async () => {
      const asks: Record<string, string>[] = [
        {},
        { 'accept-encoding': 'identity' },
        { 'accept-encoding': 'gzip;q=0' },
      ];
      for (const headers of asks) {
        const raw = await get(`${base}/big`, headers);
        expect(raw.headers['content-encoding']).to.equal(undefined);
        expect(raw.headers['content-length']).to.equal(String(Buffer.byteLength(big)));
        expect(raw.headers.vary).to.equal('Accept-Encoding');
        expect(raw.body.toString()).to.equal(big);
      }
    });

    it('never compresses a small body, a HEAD, a download, other types or a no-transform answer', async () => {
      const asks = { 'accept-encoding': 'gzip, br' };
      const small = await get(`${base}/small`, asks);
      expect([small.headers['content-encoding'], small.headers.vary]).to.deep.equal([
        undefined,
        'Accept-Encoding',
      ]);
      const head = await get(`${base}/big`, asks, 'HEAD');
      expect(head.headers['content-encoding']).to.equal(undefined);
      expect(head.headers['content-length']).to.equal(String(Buffer.byteLength(big)));
      for (const path of ['/download', '/text', '/no-transform']) {
        const raw = await get(`${base}${path}`, asks);
        expect(raw.headers['content-encoding'], path).to.equal(undefined);
        expect(raw.headers.vary, path).to.equal(undefined);
      }
      expect((await get(`${base}/download`, asks)).body.toString()).to.equal(big);
    });

    it('compresses a streamed list as it is written', async () => {
      const raw = await get(`${base}/stream`, { 'accept-encoding': 'gzip' });
      expect(raw.headers['content-encoding']).to.equal('gzip');
      expect(raw.headers['transfer-encoding']).to.equal('chunked');
      const body = JSON.parse(decoded(raw));
      expect(body.data.items).to.have.length(20_000);
      expect(body.data.items[19_999]).to.deep.equal({ index: 19_999, title: 'Streamed 19999' });
    });

    it('tags a compressed answer with its own strong tag, and a 304 with the form the request would get', async () => {
      const gzip = await get(`${base}/tagged`, { 'accept-encoding': 'gzip' });
      expect(gzip.headers.etag).to.equal('"t42.3-gzip"');
      const br = await get(`${base}/tagged`, { 'accept-encoding': 'br' });
      expect(br.headers.etag).to.equal('"t42.3-br"');
      const plain = await get(`${base}/tagged`);
      expect(plain.headers.etag).to.equal('"t42.3"');

      for (const held of ['"t42.3-gzip"', '"t42.3"', '"t42.3-br"']) {
        const again = await get(`${base}/tagged`, { 'accept-encoding': 'gzip', 'if-none-match': held });
        expect(again.status, held).to.equal(304);
        expect(again.headers.etag).to.equal('"t42.3-gzip"');
        expect(again.headers.vary).to.equal('Accept-Encoding');
        expect(again.body.length).to.equal(0);
      }
      const identity = await get(`${base}/tagged`, { 'if-none-match': '"t42.3-gzip"' });
      expect([identity.status, identity.headers.etag]).to.deep.equal([304, '"t42.3"']);
      // Small: never compressed, so its tag never changes form.
      const small = await get(`${base}/tagged-small`, {
        'accept-encoding': 'gzip',
        'if-none-match': '"t7.1"',
      });
      expect([small.status, small.headers.etag]).to.deep.equal([304, '"t7.1"']);
    });
  });
});

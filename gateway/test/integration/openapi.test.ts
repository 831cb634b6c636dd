/**
 * The API description over real HTTP: GET /api/openapi on the app host answers the document as plain
 * JSON, without credentials; GET /api/docs answers the reference page with a strict CSP, and every
 * file the page loads is served from swagger-ui-dist with its content type. Every operation the
 * served document lists is served on its host, with exactly the methods it lists on each path.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { expect } from 'chai';
import { suiteFixture } from '@tix/kit/testing';
import type { OpenAPIV3_1 } from 'openapi-types';
import { buildOpenApiDocument } from '../../src/openapi/document.js';
import { FULL_KEY, PASSWORDS, startFakeLookupGateway } from '../support/fake-lookup.js';
import { bearer, request, signedInBrowser } from '../support/test-gateway.js';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** A concrete URL path for a documented one (ids 1, a delivery UUID, a real asset of the page). */
function concretePath(path: string): string {
  return path
    .replace('{deliveryId}', '0b3f8a0e-6f5c-4a59-9a53-8d3f3a4f9c01')
    .replace('{asset}', 'swagger-ui.css')
    .replace(/\{[^}]+\}/g, '1');
}

describe('the API description on the app host', () => {
  const fake = suiteFixture(() => startFakeLookupGateway());

  it('GET /api/openapi answers the OpenAPI 3.1 document as plain JSON, without credentials', async () => {
    const response = await fetch(`${fake.gateway.appUrl}/api/openapi`);
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    expect(response.headers.get('x-correlation-id')).to.be.a('string').and.not.equal('');
    const document = (await response.json()) as OpenAPIV3_1.Document;
    expect(document).to.not.have.property('ok');
    expect(document.openapi).to.equal('3.1.0');
    expect(document).to.deep.equal(JSON.parse(JSON.stringify(buildOpenApiDocument())));
    await SwaggerParser.validate(document);
  });

  it('answers HEAD /api/openapi without a body', async () => {
    const response = await fetch(`${fake.gateway.appUrl}/api/openapi`, { method: 'HEAD' });
    expect(response.status).to.equal(200);
    expect(await response.text()).to.equal('');
  });

  it('is not served on the API host', async () => {
    const response = await fetch(`${fake.gateway.apiUrl}/v1/openapi`);
    expect(response.status).to.equal(401);
    expect(((await response.json()) as { ok: boolean }).ok).to.equal(false);
  });

  it('GET /api/docs answers the reference page with a self-only script policy', async () => {
    const response = await fetch(`${fake.gateway.appUrl}/api/docs`);
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).to.include("default-src 'self'").and.include("script-src 'self'");
    expect(policy).to.not.match(/script-src[^;]*(unsafe|https?:)/);
    expect(response.headers.get('x-content-type-options')).to.equal('nosniff');
    const html = await response.text();
    expect(html).to.include('data-openapi-url="/api/openapi"');
    expect(html).to.not.match(/<script>(?!<\/script>)/); // no inline script
    expect(html).to.not.match(/https?:\/\//); // no CDN
  });

  it('serves every file the page loads, with its content type', async () => {
    const html = await (await fetch(`${fake.gateway.appUrl}/api/docs`)).text();
    const urls = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    const expected: Record<string, string> = {
      '.js': 'text/javascript; charset=utf-8',
      '.css': 'text/css; charset=utf-8',
      '.png': 'image/png',
    };
    expect(urls).to.have.length.greaterThanOrEqual(4);
    for (const url of urls) {
      expect(url.startsWith('/api/docs/'), url).to.equal(true);
      const response = await fetch(`${fake.gateway.appUrl}${url}`);
      expect(response.status, url).to.equal(200);
      const extension = url.slice(url.lastIndexOf('.'));
      expect(response.headers.get('content-type'), url).to.equal(expected[extension]);
      const body = Buffer.from(await response.arrayBuffer());
      expect(body.length, url).to.be.greaterThan(0);
      expect(Number(response.headers.get('content-length')), url).to.equal(body.length);
    }
  });

  it('configures Swagger UI without the public validator and without sending requests', async () => {
    const html = await (await fetch(`${fake.gateway.appUrl}/api/docs`)).text();
    const init = /src="([^"]*tix-init\.js)"/.exec(html)![1]!;
    const script = await (await fetch(`${fake.gateway.appUrl}${init}`)).text();
    expect(script).to.include('validatorUrl: null').and.include('supportedSubmitMethods: []');
    const bundle = await fetch(`${fake.gateway.appUrl}/api/docs/swagger-ui-bundle.js`);
    expect((await bundle.text()).length).to.be.greaterThan(500_000);
  });

  it('answers an unknown file of the page with a 404 envelope', async () => {
    for (const name of ['nope.js', '..%2Fpackage.json', 'index.html']) {
      const response = await fetch(`${fake.gateway.appUrl}/api/docs/${name}`);
      expect(response.status, name).to.equal(404);
      const body = (await response.json()) as { ok: boolean; error: { code: number } };
      expect(body.ok).to.equal(false);
      expect(body.error.code).to.equal(404);
    }
  });

  it('serves every documented operation on each of its hosts, with exactly the documented methods', async () => {
    const document = (await request(`${fake.gateway.appUrl}/api/openapi`)).body as OpenAPIV3_1.Document;
    // Signed in afresh for each path: the loop itself signs out (POST /auth/logout).
    const signIn = () =>
      signedInBrowser(fake.gateway.appUrl, 'alice@example.com', PASSWORDS['alice@example.com']!);
    const problems: string[] = [];
    for (const [path, item] of Object.entries(document.paths ?? {})) {
      // An operation names its servers when the session host serves it; otherwise it is the API host's.
      const serversOf = (method: (typeof METHODS)[number]) =>
        item![method]!.servers?.map((server) => server.url) ?? ['{api_url}/v1'];
      const documented = METHODS.filter((method) => item?.[method]);
      for (const server of new Set(documented.flatMap(serversOf))) {
        const methods = documented.filter((method) => serversOf(method).includes(server));
        const onApp = server.startsWith('{app_url}');
        const url = onApp
          ? `${fake.gateway.appUrl}/api${concretePath(path)}?project_id=1`
          : `${fake.gateway.apiUrl}/v1${concretePath(path)}?project_id=1`;
        const headers = onApp ? await signIn() : bearer(FULL_KEY);

        const options = await fetch(url, { method: 'OPTIONS', headers });
        const allowed = methods.flatMap((method) =>
          method === 'get' ? ['GET', 'HEAD'] : [method.toUpperCase()],
        );
        expect(options.status, `OPTIONS ${path}`).to.equal(204);
        expect(options.headers.get('allow')?.split(', ').sort(), `Allow of ${path}`).to.deep.equal(
          [...allowed, 'OPTIONS'].sort(),
        );

        for (const method of methods) {
          const response = await fetch(url, {
            method: method.toUpperCase(),
            headers: { ...headers, 'Content-Type': 'application/json' },
            ...(method === 'get' || method === 'delete' ? {} : { body: '{}' }),
          });
          const isJson = response.headers.get('content-type')?.startsWith('application/json') ?? false;
          const body = (isJson ? await response.json() : await response.text()) as {
            error?: { message?: string };
          };
          const message = String(body.error?.message ?? '');
          if (response.status === 405 || message.startsWith('Route ') || message === 'Not signed in') {
            problems.push(`${method.toUpperCase()} ${server}${path}: ${response.status} ${message}`);
          }
        }
      }
    }
    expect(problems, 'documented but not served').to.deep.equal([]);
  });
});

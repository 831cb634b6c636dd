/**
 * Starts the gateway's express apps on real loopback listeners (port 0) around the given service
 * addresses, with the same wiring as src/gateway.ts but every knob open to tests.
 */
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { testLogger } from '@tix/kit/testing';
import { serviceAddressVariable, SERVICE_NAMES, SERVICE_NOT_DEPLOYED, type ServiceName } from '@tix/protos';
import { createApp, type AppDeps } from '../../src/app.js';
import { createApiKeyAuthenticator, type ApiKeyAuthenticator } from '../../src/auth/api-key-authenticator.js';
import type { HostRole } from '../../src/http/request-context.js';
import {
  DEFAULT_ATTACHMENT_MAX_BYTES,
  type AttachmentLimits,
} from '../../src/routes/v1/attachments.schemas.js';
import type { CorsPolicy } from '../../src/middleware/cors.js';
import { createMailTransport, type MailConfig } from '../../src/mail/mail-transport.js';
import { createPasswordResetMailer } from '../../src/mail/password-reset-mail.js';
import { createProjectResolver } from '../../src/projects/project-resolver.js';
import {
  closeServiceClients,
  createServiceClients,
  type ServiceClients,
  type ServiceClientsOptions,
} from '../../src/services.js';
import { createMemorySessionStore, type SessionStore } from '../../src/sessions/session-store.js';
import type { GatewayLimits } from '../../src/limits/index.js';

export interface TestGatewayOptions {
  /** host:port of each service; unlisted services are not deployed. */
  services: Partial<Record<ServiceName, string>>;
  cors?: CorsPolicy;
  /** Attachment upload limits (default: 25 MiB, 10 minutes). */
  attachments?: Partial<AttachmentLimits>;
  bodyLimitBytes?: number;
  deadlineMs?: number;
  /** Circuit breakers of the service clients (default: kit defaults); false turns them off. */
  breaker?: ServiceClientsOptions['breaker'];
  authCacheTtlMs?: number;
  sessionStore?: SessionStore;
  apiHosts?: string[];
  appHosts?: string[];
  /** One listener serving both roles by Host (needs apiHosts and appHosts). */
  sharedListener?: boolean;
  secureCookie?: boolean;
  /** Where mail goes (default: .eml files in a folder under the OS temp dir). */
  mail?: MailConfig;
  appUrl?: string;
  /** Rate limits, quotas and idempotency (default: none); see limits-gateway.ts. */
  limits?: GatewayLimits;
}

export interface TestGateway {
  /** Base URL of the API-role listener (the shared one when sharedListener). */
  apiUrl: string;
  /** Base URL of the app-role listener (the shared one when sharedListener). */
  appUrl: string;
  apiKeys: ApiKeyAuthenticator;
  services: ServiceClients;
  shuttingDown: { value: boolean };
  close(): Promise<void>;
}

/** The default mail folder of test gateways. */
export const TEST_MAIL_DIR = path.join(os.tmpdir(), 'tix-test-mail');

function listen(server: http.Server): Promise<string> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    );
  });
}

/** Starts the test gateway; close() stops listeners and clients. */
export async function startTestGateway(options: TestGatewayOptions): Promise<TestGateway> {
  const addresses = Object.fromEntries(
    SERVICE_NAMES.map((name) => [name, options.services[name] ?? null]),
  ) as Record<ServiceName, string | null>;
  const services = createServiceClients(addresses, options.deadlineMs ?? 5_000, {
    ...(options.breaker === undefined ? {} : { breaker: options.breaker }),
  });
  const apiKeys = createApiKeyAuthenticator({
    lookup: services.lookup,
    ttlMs: options.authCacheTtlMs ?? 60_000,
  });
  const shuttingDown = { value: false };
  const deps: Omit<AppDeps, 'listenerRole'> = {
    apiHosts: options.apiHosts ?? [],
    appHosts: options.appHosts ?? [],
    cors: options.cors ?? { mode: 'wildcard' },
    bodyLimitBytes: options.bodyLimitBytes ?? 1024 * 1024,
    attachments: {
      maxBytes: options.attachments?.maxBytes ?? DEFAULT_ATTACHMENT_MAX_BYTES,
      transferDeadlineMs: options.attachments?.transferDeadlineMs ?? 600_000,
    },
    readinessTimeoutMs: 500,
    logger: testLogger('gateway'),
    services,
    apiKeys,
    projects: createProjectResolver({ lookup: services.lookup, ttlMs: 30_000 }),
    sessions: {
      store: options.sessionStore ?? createMemorySessionStore({ ttlSeconds: 3600 }),
      secureCookie: options.secureCookie ?? false,
    },
    isShuttingDown: () => shuttingDown.value,
    ...(options.limits ? { limits: options.limits } : {}),
    passwordResetMail: createPasswordResetMailer(
      createMailTransport(
        options.mail ?? { smtpUrl: undefined, from: 'Tix <no-reply@localhost>', dir: TEST_MAIL_DIR },
        testLogger('mail'),
      ),
      options.appUrl ?? 'http://localhost:8081',
    ),
  };
  const roles: (HostRole | null)[] = options.sharedListener ? [null] : ['api', 'app'];
  const servers = roles.map((role) => http.createServer(createApp({ ...deps, listenerRole: role })));
  const urls = await Promise.all(servers.map(listen));
  return {
    apiUrl: urls[0]!,
    appUrl: urls[urls.length - 1]!,
    apiKeys,
    services,
    shuttingDown,
    async close() {
      await Promise.all(
        servers.map(
          (server) =>
            new Promise<void>((resolve) => {
              server.close(() => resolve());
              server.closeAllConnections();
            }),
        ),
      );
      closeServiceClients(services);
    },
  };
}

export interface JsonResponse {
  status: number;
  headers: Headers;

  body: any;
}

/** fetch, with the body parsed as JSON (undefined when empty). */
export async function request(url: string, init: RequestInit = {}): Promise<JsonResponse> {
  const response = await fetch(url, init);
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text === '' ? undefined : JSON.parse(text),
  };
}

/** A request whose body, when given, goes as JSON (with its Content-Type) beside `headers`. */
export function sendJson(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<JsonResponse> {
  return request(url, {
    method,
    headers: body === undefined ? headers : { ...headers, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** A suite's `call(method, path, body?, key?)`: the API host under /v1, with `key` (default: `defaultKey()`). */
export function apiCaller(
  gateway: () => TestGateway,
  defaultKey: () => string,
): (method: string, path: string, body?: unknown, key?: string) => Promise<JsonResponse> {
  return (method, path, body, key = defaultKey()) =>
    sendJson(`${gateway().apiUrl}/v1${path}`, method, bearer(key), body);
}

/**
 * Signs in on the session host (CSRF token, then POST /api/auth/login) and answers the headers a
 * signed-in browser sends: the session cookie and its CSRF token.
 */
export async function signedInBrowser(
  appUrl: string,
  email: string,
  password: string,
): Promise<{ Cookie: string; 'X-CSRF-Token': string }> {
  const start = await request(`${appUrl}/api/csrf-token`);
  const login = await request(`${appUrl}/api/auth/login`, {
    method: 'POST',
    headers: {
      Cookie: start.headers.get('set-cookie')!.split(';')[0]!,
      'X-CSRF-Token': start.body.data.token as string,
      'Content-Type': 'application/json',
    },
    body: JSON.stringify({ email, password }),
  });
  if (login.status !== 200) throw new Error(`sign-in failed: ${login.status} ${JSON.stringify(login.body)}`);
  return {
    Cookie: login.headers.get('set-cookie')!.split(';')[0]!,
    'X-CSRF-Token': login.body.data.csrf_token as string,
  };
}

/** Authorization header for a key. */
export function bearer(key: string): Record<string, string> {
  return { Authorization: `Bearer ${key}` };
}

/** A request through node:http, which (unlike fetch) may set the Host header. */
export function requestWithHost(
  url: string,
  options: { host: string; method?: string; headers?: Record<string, string> },
): Promise<Omit<JsonResponse, 'headers'> & { headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      url,
      { method: options.method ?? 'GET', headers: { ...options.headers, Host: options.host } },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: incoming.statusCode ?? 0,
            headers: incoming.headers,
            body: text === '' ? undefined : JSON.parse(text),
          });
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/**
 * The <NAME>_SERVICE_ADDR environment of a gateway process that reaches only `addresses`: every other
 * service of the fleet is `none` (not deployed), so a new service never makes such a test's /readyz fail.
 */
export function onlyServices(addresses: Partial<Record<ServiceName, string>>): Record<string, string> {
  return Object.fromEntries(
    SERVICE_NAMES.map((name) => [serviceAddressVariable(name), addresses[name] ?? SERVICE_NOT_DEPLOYED]),
  );
}

/** A /readyz map (`services` or `breakers`) of a gateway that reaches only the services named: the rest are `not_deployed`. */
export function notDeployedExcept(
  reached: Partial<Record<ServiceName, string>>,
): Record<ServiceName, string> {
  return Object.fromEntries(SERVICE_NAMES.map((name) => [name, reached[name] ?? 'not_deployed'])) as Record<
    ServiceName,
    string
  >;
}

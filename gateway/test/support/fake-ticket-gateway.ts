/**
 * The setup the ticket route tests share: a fake lookup (with two more keys: read+write without
 * delete, and read-only unscoped), a fake ticket service, and a test gateway in front of both,
 * started once per describe block and reset after each test.
 */
import { AppError } from '@tix/kit';
import type { lookup as lookupTypes } from '@tix/protos';
import { FULL_KEY, KEYS, startFakeLookup, type FakeLookup } from './fake-lookup.js';
import { startFakeTickets, type FakeTickets } from './fake-tickets.js';
import { bearer, request, startTestGateway, type JsonResponse, type TestGateway } from './test-gateway.js';

export const READ_WRITE_KEY = 'tix_read_write_key_0004';
export const READ_ONLY_KEY = 'tix_read_only_key_0005';
const EXTRA_KEYS: Record<string, lookupTypes.ApiKeyPrincipal__Output> = {
  [READ_WRITE_KEY]: { key_id: 4, user_id: 11, role: 'agent', scopes: ['tickets:read', 'tickets:write'] },
  [READ_ONLY_KEY]: { key_id: 5, user_id: 11, role: 'agent', scopes: ['tickets:read'] },
};

export interface CallOptions {
  key?: string;
  /** JSON-encoded and sent with Content-Type application/json. */
  body?: unknown;
  /** Sent as-is (with Content-Type application/json). */
  raw?: string;
}

export interface FakeTicketGateway {
  lookup: FakeLookup;
  tickets: FakeTickets;
  gateway: TestGateway;
  /** A request to /v1<path> with a key (FULL_KEY by default). */
  call(method: string, path: string, options?: CallOptions): Promise<JsonResponse>;
}

/** Registers the mocha hooks of the shared setup; the fields are set once `before` ran. */
export function useFakeTicketGateway(): FakeTicketGateway {
  const harness = {
    call(method: string, path: string, options: CallOptions = {}) {
      const headers: Record<string, string> = bearer(options.key ?? FULL_KEY);
      let body: string | undefined = options.raw;
      if (body === undefined && options.body !== undefined) body = JSON.stringify(options.body);
      if (body !== undefined) headers['Content-Type'] = 'application/json';
      return request(`${harness.gateway.apiUrl}/v1${path}`, { method, headers, body });
    },
  } as FakeTicketGateway;

  before(async () => {
    harness.lookup = await startFakeLookup();
    harness.tickets = await startFakeTickets();
    harness.gateway = await startTestGateway({
      services: { lookup: harness.lookup.address, tickets: harness.tickets.address },
    });
  });
  after(async () => {
    await harness.gateway?.close();
    await harness.tickets?.stop();
    await harness.lookup?.stop();
  });
  beforeEach(() => {
    harness.lookup.override('AuthenticateApiKey', (input: lookupTypes.AuthenticateApiKeyRequest__Output) => {
      const principal = EXTRA_KEYS[input.key] ?? KEYS[input.key];
      if (!principal) throw AppError.unauthenticated('API key is not valid');
      return principal;
    });
  });
  afterEach(() => {
    harness.lookup.reset();
    harness.tickets.reset();
  });
  return harness;
}

/**
 * A fake lookup service: a real gRPC server (kit startGrpcServer, port 0) answering from a small
 * in-memory data set. Tests swap individual handlers (`override`) and read call counts. Suites that
 * need only it behind a test gateway start both with startFakeLookupGateway.
 */
import { serviceDefinition, type lookup } from '@tix/protos';
import { AppError, startGrpcServer, type CallContext, type RunningGrpcServer } from '@tix/kit';
import { testLogger } from '@tix/kit/testing';
import { startTestGateway, type TestGateway, type TestGatewayOptions } from './test-gateway.js';

type Handler = (request: never, context: CallContext) => unknown;

export const PROJECTS: lookup.Project__Output[] = [
  {
    id: 1,
    name: 'Acme Support',
    slug: 'acme',
    prefix: 'ACME',
    description: 'Acme customers',
    statuses: [
      { slug: 'open', label: 'Open', is_closed: false, position: 0 },
      { slug: 'closed', label: 'Closed', is_closed: true, position: 1 },
    ],
  },
  {
    id: 2,
    name: 'Globex',
    slug: 'globex',
    prefix: 'GLX',
    description: '',
    statuses: [{ slug: 'open', label: 'Open', is_closed: false, position: 0 }],
  },
  // Its ticket types carry a corrupt field schema: the gateway's presenter throws on it.
  { id: 3, name: 'Broken', slug: 'broken', prefix: 'BRK', description: '', statuses: [] },
];

export const FIELD_SCHEMA = [
  {
    name: 'severity',
    label: 'Severity',
    type: 'select',
    required: true,
    constraints: { allowed_values: ['low', 'high'] },
    default_value: null,
    order: 1,
  },
];

export const TICKET_TYPES: lookup.TicketType__Output[] = [
  {
    id: 1,
    project_id: 1,
    name: 'Bug',
    slug: 'bug',
    description: 'Something broke',
    is_default: true,
    field_schema_json: JSON.stringify(FIELD_SCHEMA),
  },
  {
    id: 2,
    project_id: 1,
    name: 'Question',
    slug: 'question',
    description: '',
    is_default: false,
    field_schema_json: '',
  },
  {
    id: 3,
    project_id: 2,
    name: 'Task',
    slug: 'task',
    description: '',
    is_default: true,
    field_schema_json: '[]',
  },
  {
    id: 4,
    project_id: 3,
    name: 'Odd',
    slug: 'odd',
    description: '',
    is_default: true,
    field_schema_json: '{not json',
  },
];

export const USERS: lookup.User__Output[] = [
  {
    id: 10,
    name: 'Alice Admin',
    email: 'alice@example.com',
    role: 'admin',
    is_active: true,
    is_system: false,
  },
  { id: 11, name: 'Bob Agent', email: 'bob@example.com', role: 'agent', is_active: true, is_system: false },
  {
    id: 12,
    name: 'Carol Viewer',
    email: 'carol@example.com',
    role: 'viewer',
    is_active: false,
    is_system: false,
  },
];

export const PASSWORDS: Record<string, string> = { 'alice@example.com': 'correct horse battery' };

/** Keys the fake knows: value -> principal. */
export const KEYS: Record<string, lookup.ApiKeyPrincipal__Output> = {
  tix_full_access_key_0001: {
    key_id: 1,
    user_id: 10,
    role: 'admin',
    scopes: ['tickets:read', 'tickets:write', 'tickets:delete', 'comments:read', 'comments:write'],
  },
  tix_scoped_to_globex_0002: {
    key_id: 2,
    user_id: 11,
    role: 'agent',
    scopes: ['tickets:read'],
    project_id: 2,
  },
  tix_comments_only_key_0003: { key_id: 3, user_id: 11, role: 'agent', scopes: ['comments:read'] },
};
export const FULL_KEY = 'tix_full_access_key_0001';
export const SCOPED_KEY = 'tix_scoped_to_globex_0002';
export const NO_TICKETS_READ_KEY = 'tix_comments_only_key_0003';

const defaultHandlers: Record<string, Handler> = {
  AuthenticateApiKey(request: lookup.AuthenticateApiKeyRequest__Output) {
    const principal = KEYS[request.key];
    if (!principal) throw AppError.unauthenticated('API key is not valid');
    return principal;
  },
  AuthenticatePassword(request: lookup.AuthenticatePasswordRequest__Output) {
    const user = USERS.find((candidate) => candidate.email === request.email);
    if (!user || !user.is_active || PASSWORDS[request.email] !== request.password) {
      throw AppError.unauthenticated('Wrong credentials');
    }
    return user;
  },
  ResolveProject(request: lookup.ResolveProjectRequest__Output) {
    const project = PROJECTS.find((candidate) =>
      request.selector === 'id' ? candidate.id === request.id : candidate.slug === request.slug,
    );
    if (!project) throw AppError.notFound('No such project');
    return project;
  },
  ListProjects(request: lookup.ListProjectsRequest__Output) {
    return {
      projects: PROJECTS.filter(
        (project) => request.only_project_id === undefined || project.id === request.only_project_id,
      ),
    };
  },
  ListTicketTypes(request: lookup.ListTicketTypesRequest__Output) {
    return { ticket_types: TICKET_TYPES.filter((type) => type.project_id === request.project_id) };
  },
  GetTicketType(request: lookup.GetTicketTypeRequest__Output) {
    const type = TICKET_TYPES.find(
      (candidate) => candidate.id === request.id && candidate.project_id === request.project_id,
    );
    if (!type) throw AppError.notFound('Ticket type not found');
    return type;
  },
  ListUsers() {
    return { users: USERS };
  },
  GetUsers(request: lookup.GetUsersRequest__Output) {
    return { users: USERS.filter((user) => request.ids.includes(user.id)) };
  },
};

export interface FakeLookup {
  address: string;
  server: RunningGrpcServer;
  /** Calls received, by method. */
  calls: Record<string, number>;
  /** The context of the most recent call, by method. */
  lastContext: Record<string, CallContext>;
  /** Replaces one handler until reset(). */
  override(method: string, handler: Handler): void;
  reset(): void;
  stop(): Promise<void>;
}

/** Starts the fake on 127.0.0.1, port 0. */
export async function startFakeLookup(): Promise<FakeLookup> {
  const overrides: Record<string, Handler> = {};
  const calls: Record<string, number> = {};
  const lastContext: Record<string, CallContext> = {};
  const handlers = new Proxy(
    {},
    {
      get: (_target, method: string) => async (request: never, context: CallContext) => {
        calls[method] = (calls[method] ?? 0) + 1;
        lastContext[method] = context;
        const handler = overrides[method] ?? defaultHandlers[method];
        if (!handler) throw new AppError('not_implemented', `${method} is not faked`);
        return await handler(request, context);
      },
    },
  );
  const server = await startGrpcServer({
    host: '127.0.0.1',
    port: 0,
    services: [{ name: 'lookup', definition: serviceDefinition('lookup'), handlers }],
    logger: testLogger('fake-lookup'),
  });
  return {
    address: `127.0.0.1:${server.port}`,
    server,
    calls,
    lastContext,
    override(method, handler) {
      overrides[method] = handler;
    },
    reset() {
      for (const key of Object.keys(overrides)) delete overrides[key];
      for (const key of Object.keys(calls)) delete calls[key];
    },
    stop: () => server.shutdown(100),
  };
}

export interface FakeLookupGateway {
  lookup: FakeLookup;
  /** A test gateway in front of the fake lookup alone. */
  gateway: TestGateway;
  stop(): Promise<void>;
}

/** Starts the fake and a test gateway (`options` besides its services); a suite takes it with kit's suiteFixture. */
export async function startFakeLookupGateway(
  options: Omit<TestGatewayOptions, 'services'> = {},
): Promise<FakeLookupGateway> {
  const lookup = await startFakeLookup();
  const gateway = await startTestGateway({ ...options, services: { lookup: lookup.address } }).catch(
    async (error: unknown) => {
      await lookup.stop();
      throw error;
    },
  );
  return {
    lookup,
    gateway,
    async stop() {
      await gateway.close();
      await lookup.stop();
    },
  };
}

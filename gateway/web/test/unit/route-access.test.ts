/**
 * Who opens which screen: the route table (src/routes.ts) and its access check (src/access.ts) against
 * the server's own facts, the session host's OpenAPI document (generated/openapi.json, whose
 * SessionCookie requirement names the least role of each operation, as the gateway builds
 * `allowed_operations`). The route table imports every screen, so it is bundled for node (CSS left
 * out) over a stub of the few browser globals its modules read when loaded.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { roleAtLeast, ROLES, type Role } from '@tix/contract';
import { expect } from 'chai';
import * as esbuild from 'esbuild';
import { allows, mayOpen, needsSignIn, type Access, type Grants } from '../../src/access';

interface RouteEntry {
  path: string;
  access: Access;
  nav?: { label: string; section: 'work' | 'admin' };
}

const webRoot = path.resolve(import.meta.dirname, '../..');

type OpenApiDocument = {
  paths: Record<string, Record<string, { operationId?: string; security?: Record<string, string[]>[] }>>;
};
let openApi: OpenApiDocument | undefined;

/** The operations a session of `role` may call, read from the OpenAPI document as the gateway does. */
function operationsOf(role: Role): ReadonlySet<string> {
  openApi ??= JSON.parse(
    readFileSync(path.join(webRoot, 'generated/openapi.json'), 'utf8'),
  ) as OpenApiDocument;
  const document = openApi;
  const allowed = new Set<string>();
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item)) {
      const least = operation.security?.find((each) => each.SessionCookie)?.SessionCookie?.[0];
      if (operation.operationId && least && roleAtLeast(role, least as Role))
        allowed.add(operation.operationId);
    }
  }
  return allowed;
}

const grantsOf = (role: Role): Grants => ({ role, operations: operationsOf(role) });

/** The console's route table, loaded in node. */
async function loadRoutes(): Promise<RouteEntry[]> {
  const stub = { addEventListener() {}, location: { pathname: '/', search: '' }, localStorage: undefined };
  Object.assign(globalThis, { window: stub, document: { addEventListener() {} } });
  const outdir = await mkdtemp(path.join(os.tmpdir(), 'tix-web-routes-'));
  try {
    await esbuild.build({
      absWorkingDir: webRoot,
      entryPoints: ['src/routes.ts'],
      bundle: true,
      platform: 'node',
      format: 'esm',
      jsx: 'automatic',
      jsxImportSource: 'preact',
      loader: { '.css': 'empty' },
      // The board's drag and drop reads the DOM when loaded; no test here drags.
      plugins: [
        {
          name: 'no-sortable',
          setup(build) {
            build.onResolve({ filter: /^sortablejs$/ }, () => ({ path: 'sortablejs', namespace: 'stub' }));
            build.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({
              contents: 'export default class {}',
            }));
          },
        },
      ],
      outfile: path.join(outdir, 'routes.mjs'),
      logLevel: 'error',
    });
    const loaded = (await import(pathToFileURL(path.join(outdir, 'routes.mjs')).href)) as {
      ROUTES: RouteEntry[];
    };
    return loaded.ROUTES;
  } finally {
    await rm(outdir, { recursive: true, force: true });
  }
}

/** The least role that opens each signed-in screen (what the console showed by role before). */
const LEAST_ROLE: Record<string, Role> = {
  '/board': 'viewer',
  '/tickets': 'viewer',
  '/tickets/:id': 'viewer',
  '/customers': 'viewer',
  '/customers/:id': 'viewer',
  '/organizations': 'viewer',
  '/organizations/:id': 'viewer',
  '/activity': 'viewer',
  '/assistant': 'agent',
  '/audit-queue': 'team_lead',
  '/admin/users': 'admin',
  '/admin/projects': 'admin',
  '/admin/ticket-types': 'admin',
  '/admin/api-keys': 'admin',
  '/admin/webhooks': 'admin',
  '/admin/mailboxes': 'admin',
  '/admin/guardrails': 'admin',
  '/admin/kill-switch': 'admin',
};

describe('the console opens a screen by the operations the server allows', function () {
  this.timeout(30_000);
  let routes: RouteEntry[];
  before(async () => {
    routes = await loadRoutes();
  });

  it('gives every signed-in screen an operation of the OpenAPI document', () => {
    const known = operationsOf('admin');
    const signedIn = routes.filter((route) => needsSignIn(route.access));
    expect(signedIn.map((route) => route.path)).to.have.members(Object.keys(LEAST_ROLE));
    for (const route of signedIn) {
      const { operation } = route.access as { operation: string };
      expect(known.has(operation), `${route.path} needs ${operation}`).to.equal(true);
    }
  });

  for (const role of ROLES) {
    it(`opens for a ${role} exactly the screens of that role and below`, () => {
      const grants = grantsOf(role);
      for (const route of routes.filter((each) => needsSignIn(each.access))) {
        const expected = roleAtLeast(role, LEAST_ROLE[route.path]!);
        expect(mayOpen(route.access, grants), `${role} on ${route.path}`).to.equal(expected);
      }
    });
  }

  it('opens the signed-out and anyone pages to all, and no signed-in screen to the signed-out', () => {
    for (const route of routes) {
      expect(mayOpen(route.access, null), route.path).to.equal(!needsSignIn(route.access));
      expect(mayOpen(route.access, grantsOf('viewer')), route.path).to.equal(
        !needsSignIn(route.access) || roleAtLeast('viewer', LEAST_ROLE[route.path]!),
      );
    }
  });

  it('shows in the navigation only what the user may open', () => {
    const navFor = (role: Role) =>
      routes
        .filter((route) => route.nav && mayOpen(route.access, grantsOf(role)))
        .map((route) => route.nav!.label);
    const work = ['Board', 'Tickets', 'Customers', 'Organizations', 'Activity'];
    expect(navFor('viewer')).to.deep.equal(work);
    expect(navFor('agent')).to.deep.equal([...work, 'Assistant']);
    expect(navFor('team_lead')).to.deep.equal([...work, 'Assistant', 'Audit queue']);
    expect(navFor('admin')).to.have.length(15);
    expect(navFor('admin')).to.include('Mailboxes');
  });
});

describe('capabilities', () => {
  it('are nothing when signed out', () => {
    expect(allows('tickets.read', null)).to.equal(false);
    expect(allows('comments.edit_any', null)).to.equal(false);
  });

  it('follow the operations the server allows', () => {
    expect(allows('tickets.read', grantsOf('viewer'))).to.equal(true);
    expect(allows('tickets.write', grantsOf('viewer'))).to.equal(false);
    expect(allows('tickets.write', grantsOf('agent'))).to.equal(true);
    expect(allows('comments.write', grantsOf('agent'))).to.equal(true);
    expect(allows('tickets.delete', grantsOf('agent'))).to.equal(false);
    expect(allows('tickets.delete', grantsOf('team_lead'))).to.equal(true);
    expect(allows('ai.suggest', grantsOf('viewer'))).to.equal(false);
    expect(allows('ai.suggest', grantsOf('agent'))).to.equal(true);
    expect(allows('ai.review', grantsOf('agent'))).to.equal(false);
    expect(allows('ai.review', grantsOf('team_lead'))).to.equal(true);
    expect(allows('ai.admin', grantsOf('team_lead'))).to.equal(false);
    expect(allows('admin', grantsOf('admin'))).to.equal(true);
  });

  it('take the customer rules from the server: agents edit, team leads merge, admins delete', () => {
    const table = ROLES.map((role) => [
      role,
      allows('customers.write', grantsOf(role)),
      allows('customers.merge', grantsOf(role)),
      allows('customers.delete', grantsOf(role)),
      allows('organizations.write', grantsOf(role)),
      allows('organizations.delete', grantsOf(role)),
    ]);
    expect(table).to.deep.equal([
      ['admin', true, true, true, true, true],
      ['team_lead', true, true, false, true, false],
      ['agent', true, false, false, true, false],
      ['viewer', false, false, false, false, false],
    ]);
  });

  it("take another person's comment from the contract's rule: team leads edit, admins delete", () => {
    const table = ROLES.map((role) => [
      role,
      allows('comments.edit_any', grantsOf(role)),
      allows('comments.delete_any', grantsOf(role)),
    ]);
    expect(table).to.deep.equal([
      ['admin', true, true],
      ['team_lead', true, false],
      ['agent', false, false],
      ['viewer', false, false],
    ]);
  });

  it('refuse a role the contract does not know', () => {
    const grants = { role: 'owner', operations: operationsOf('admin') };
    expect(allows('comments.edit_any', grants)).to.equal(false);
    expect(allows('admin', grants)).to.equal(true);
  });
});

/**
 * Test data, one builder per resource: projects, users, keys and ticket types through the admin CLI,
 * as an operator makes them; tickets and comments through the API, as an integrator does.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { tixJson } from './cli.js';
import { request } from './http.js';

export interface ProjectFixture {
  id: number;
  slug: string;
  prefix: string;
  statuses: { slug: string; label: string; is_closed: boolean; position: number }[];
}

/** A unique suffix so tests never collide, also when rerun against one fleet. */
export function unique(label: string): string {
  return `${label}${randomBytes(3).toString('hex')}`;
}

export async function createProject(options: { statuses?: string } = {}): Promise<ProjectFixture> {
  const slug = unique('proj-');
  // 8 hex digits: the suites make hundreds of projects in one fleet, and 4 collided (422 "already used").
  const prefix = `P${randomBytes(4).toString('hex').toUpperCase()}`;
  const args = ['project', 'create', '--name', `Project ${slug}`, '--slug', slug, '--prefix', prefix];
  if (options.statuses) args.push('--statuses', options.statuses);
  return tixJson<ProjectFixture>(args);
}

export type Role = 'admin' | 'team_lead' | 'agent' | 'viewer';

/** Creates a user (with a password when given, so that it can sign in on the session host). */
export async function createUser(
  role: Role = 'agent',
  options: { password?: string } = {},
): Promise<{ id: number; email: string }> {
  const email = `${unique(role)}@example.com`;
  const args = ['user', 'create', '--name', `User ${email}`, '--email', email, '--role', role];
  if (options.password === undefined) return tixJson(args);
  return tixJson([...args, '--password-stdin'], { input: `${options.password}\n` });
}

/** Creates a user and a key for it; returns the key value and ids. */
export async function createKey(options: { scopes?: string; project?: string; role?: Role } = {}) {
  const user = await createUser(options.role ?? 'agent');
  const args = [
    'key',
    'create',
    '--user',
    user.email,
    '--scopes',
    options.scopes ?? 'tickets:read,tickets:write,tickets:delete,comments:read,comments:write',
  ];
  if (options.project) args.push('--project', options.project);
  const key = await tixJson<{
    id: number;
    key: string;
    scopes: string[];
    project_id: number | null;
    user_id: number;
  }>(args);
  return { ...key, user };
}

/** Creates a ticket type (default name Task, slug task) in a project; prints the TicketType object. */
export async function createTicketType(
  projectSlug: string,
  options: { name?: string; slug?: string; isDefault?: boolean; fields?: unknown[] } = {},
): Promise<{ id: number; name: string; slug: string; is_default: boolean }> {
  const args = ['ticket-type', 'create', '--project', projectSlug, '--name', options.name ?? 'Task'];
  args.push('--slug', options.slug ?? 'task');
  if (options.isDefault) args.push('--default');
  if (options.fields) args.push('--fields', JSON.stringify(options.fields));
  return tixJson(args);
}

/** Creates a ticket through the API as the key's user (201 asserted); answers the spec Ticket. */
export async function createTicket<T = any>(key: string, body: Record<string, unknown>): Promise<T> {
  const response = await request('/v1/tickets', { method: 'POST', key, body });
  expect(response.status, response.text).to.equal(201);
  return response.body.data.ticket as T;
}

/** Adds a comment through the API as the key's user (201 asserted); answers the spec Comment. */
export async function createComment<T = any>(
  key: string,
  ticketId: number,
  body: Record<string, unknown>,
): Promise<T> {
  const response = await request(`/v1/tickets/${ticketId}/comments`, { method: 'POST', key, body });
  expect(response.status, response.text).to.equal(201);
  return response.body.data.comment as T;
}

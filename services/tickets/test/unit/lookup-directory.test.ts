import { expect } from 'chai';
import { AppError } from '@tix/kit';
import type { lookup } from '@tix/protos';
import { createLookupDirectory } from '../../src/lookup/lookup-directory.js';
import { describeError, refusal } from './support.js';

const PROJECT: lookup.Project__Output = {
  id: 3,
  name: 'Support',
  slug: 'support',
  prefix: 'SUP',
  description: '',
  statuses: [
    { slug: 'closed', label: 'Closed', is_closed: true, position: 1 },
    { slug: 'open', label: 'Open', is_closed: false, position: 0 },
  ],
};

function fakeLookup() {
  const calls: string[] = [];
  const client = {
    ResolveProject(request: lookup.ResolveProjectRequest) {
      calls.push(`project:${request.id}`);
      if (request.id === 3) return Promise.resolve(PROJECT);
      return Promise.reject(AppError.notFound('Project not found'));
    },
    GetTicketType(request: lookup.GetTicketTypeRequest) {
      calls.push(`type:${request.project_id}:${request.id}`);
      if (request.id === 5)
        return Promise.resolve({
          id: 5,
          project_id: 3,
          name: 'Q',
          slug: 'q',
          description: '',
          is_default: true,
          field_schema_json:
            '[{"name":"a","label":"A","type":"text","required":false,"constraints":{},"default_value":null,"order":1}]',
        });
      return Promise.reject(AppError.notFound('Ticket type not found'));
    },
    GetUsers(request: lookup.GetUsersRequest) {
      calls.push(`users:${request.ids?.join(',')}`);
      const users = (request.ids ?? [])
        .filter((id) => id === 4)
        .map((id) => ({ id, name: 'U', email: 'u@x.io', role: 'agent', is_active: false, is_system: false }));
      return Promise.resolve({ users });
    },
  };
  return { client, calls };
}

const caller = { correlationId: 'c-1', principal: null };
const ttls = { projectMs: 1_000, ticketTypeMs: 1_000, userMs: 1_000 };

describe('lookup directory', () => {
  it('reads a project once per TTL, with statuses in position order', async () => {
    const { client, calls } = fakeLookup();
    const directory = createLookupDirectory({ client: client, ttls });
    const project = await directory.project(3, caller);
    await directory.project(3, caller);
    expect(project).to.deep.equal({
      id: 3,
      prefix: 'SUP',
      statuses: [
        { slug: 'open', label: 'Open', isClosed: false },
        { slug: 'closed', label: 'Closed', isClosed: true },
      ],
    });
    expect(calls).to.deep.equal(['project:3']);
  });

  it('answers 404 Project not found for unknown and impossible ids, without caching misses', async () => {
    const { client, calls } = fakeLookup();
    const directory = createLookupDirectory({ client: client, ttls });
    for (const id of [9, 9, 0, -1, 2 ** 31])
      expect(describeError(await refusal(() => directory.project(id, caller)))).to.deep.equal({
        kind: 'not_found',
        message: 'Project not found',
        validationErrors: undefined,
      });
    expect(calls).to.deep.equal(['project:9', 'project:9']);
  });

  it('turns a missing ticket type into null and parses the schema of a found one', async () => {
    const { client } = fakeLookup();
    const directory = createLookupDirectory({ client: client, ttls });
    expect(await directory.ticketType(3, 6, caller)).to.equal(null);
    const type = await directory.ticketType(3, 5, caller);
    expect(type?.fieldSchema.map((field) => field.name)).to.deep.equal(['a']);
  });

  it('reports users with their active flag, null when unknown', async () => {
    const { client, calls } = fakeLookup();
    const directory = createLookupDirectory({ client: client, ttls });
    expect(await directory.user(4, caller)).to.deep.equal({ id: 4, isActive: false });
    expect(await directory.user(4, caller)).to.deep.equal({ id: 4, isActive: false });
    expect(await directory.user(8, caller)).to.equal(null);
    expect(await directory.user(-2, caller)).to.equal(null);
    expect(calls).to.deep.equal(['users:4', 'users:8']);
  });

  it('passes other lookup failures through (e.g. lookup unavailable)', async () => {
    const directory = createLookupDirectory({
      client: {
        ResolveProject: () => Promise.reject(AppError.unavailable('Service temporarily unavailable')),
      } as never,
      ttls,
    });
    expect((await refusal(() => directory.project(3, caller))).kind).to.equal('unavailable');
  });
});

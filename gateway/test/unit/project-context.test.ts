import { expect } from 'chai';
import { AppError, type OutgoingContext } from '@tix/kit';
import type { Principal } from '@tix/protos';
import {
  projectContext,
  resolveProjectContext,
  selectProject,
  type ProjectContextInput,
} from '../../src/middleware/project-context.js';
import type { Project, ProjectResolver } from '../../src/projects/project-resolver.js';
import { fakeRequest, run } from '../support/fake-http.js';
import { thrownAppError as thrown } from '../support/refusals.js';

const unscoped: Principal = {
  kind: 'api_key',
  user_id: 1,
  role: 'agent',
  scopes: ['tickets:read'],
  key_id: 1,
};
const scoped: Principal = { ...unscoped, key_id: 2, project_id: 7 };

function input(parts: Partial<ProjectContextInput>): ProjectContextInput {
  return { principal: unscoped, query: {}, body: undefined, acceptBodyProjectId: false, ...parts };
}

const project = (id: number, slug: string): Project => ({
  id,
  slug,
  name: slug,
  prefix: 'P',
  description: '',
  statuses: [],
});

/** A resolver over projects 7 (seven) and 8 (eight) that records what it was asked. */
function fakeResolver() {
  const asked: string[] = [];
  const known = [project(7, 'seven'), project(8, 'eight')];
  const resolver: ProjectResolver = {
    byId(id: number, _context: OutgoingContext) {
      asked.push(`id:${id}`);
      const found = known.find((candidate) => candidate.id === id);
      return found ? Promise.resolve(found) : Promise.reject(AppError.notFound('Project not found'));
    },
    bySlug(slug: string) {
      asked.push(`slug:${slug}`);
      const found = known.find((candidate) => candidate.slug === slug);
      return found ? Promise.resolve(found) : Promise.reject(AppError.notFound('Project not found'));
    },
  };
  return { resolver, asked };
}

describe('selectProject (resolution order)', () => {
  it('1. the key scope comes first, and needs no parameter', () => {
    expect(selectProject(input({ principal: scoped }))).to.deep.equal({ source: 'scope', id: 7 });
  });

  it('1. a scoped key ignores project (slug), even one naming another project', () => {
    expect(selectProject(input({ principal: scoped, query: { project: 'eight' } }))).to.deep.equal({
      source: 'scope',
      id: 7,
    });
  });

  it('1. a scoped key may repeat its own project_id, but another one is out of scope (404)', () => {
    expect(selectProject(input({ principal: scoped, query: { project_id: '7' } }))).to.deep.equal({
      source: 'scope',
      id: 7,
    });
    const error = thrown(() => selectProject(input({ principal: scoped, query: { project_id: '8' } })));
    expect([error.kind, error.message]).to.deep.equal(['not_found', 'Project not found']);
  });

  it('2. query project_id comes before project', () => {
    expect(selectProject(input({ query: { project_id: '8', project: 'seven' } }))).to.deep.equal({
      source: 'project_id',
      id: 8,
    });
  });

  it('2. body project_id counts only where the route opts in (ticket creation), after query project_id', () => {
    const body = { project_id: 8, project: 'seven' };
    expect(selectProject(input({ body, acceptBodyProjectId: true }))).to.deep.equal({
      source: 'project_id',
      id: 8,
    });
    expect(selectProject(input({ body, acceptBodyProjectId: false }))).to.deep.equal({
      source: 'project',
      slug: 'seven',
    });
    expect(
      selectProject(input({ query: { project_id: '7' }, body, acceptBodyProjectId: true })),
    ).to.deep.equal({
      source: 'project_id',
      id: 7,
    });
    expect(selectProject(input({ body: { project_id: '8' }, acceptBodyProjectId: true }))).to.deep.equal({
      source: 'project_id',
      id: 8,
    });
  });

  it('3. query or body project (slug) comes last', () => {
    expect(selectProject(input({ query: { project: 'seven' } }))).to.deep.equal({
      source: 'project',
      slug: 'seven',
    });
    expect(selectProject(input({ body: { project: 'eight' } }))).to.deep.equal({
      source: 'project',
      slug: 'eight',
    });
    expect(selectProject(input({ query: { project: 'seven' }, body: { project: 'eight' } }))).to.deep.equal({
      source: 'project',
      slug: 'seven',
    });
  });

  it('none -> 400 Project ID is required.', () => {
    for (const parts of [{}, { body: [] }, { body: 'x' }, { query: { other: '1' } }]) {
      const error = thrown(() => selectProject(input(parts)));
      expect([error.httpStatus, error.message, error.validationErrors]).to.deep.equal([
        400,
        'Project ID is required.',
        undefined,
      ]);
    }
  });

  it('rejects a project_id that is not strictly digits (400 with validation_errors)', () => {
    for (const value of ['', 'abc', '1.5', '-1', ' 1', '1e3', '0x10', ['1', '2']]) {
      const error = thrown(() => selectProject(input({ principal: scoped, query: { project_id: value } })));
      expect(error.httpStatus, String(value)).to.equal(400);
      expect(error.validationErrors).to.deep.equal({ project_id: ['must be an integer'] });
    }
    for (const value of [1.5, -1, true, {}, 'x']) {
      const error = thrown(() =>
        selectProject(input({ body: { project_id: value }, acceptBodyProjectId: true })),
      );
      expect(error.validationErrors, JSON.stringify(value)).to.deep.equal({
        project_id: ['must be an integer'],
      });
    }
  });

  it('rejects an empty or repeated project slug (400)', () => {
    for (const value of ['', '  ', ['a', 'b']]) {
      const error = thrown(() => selectProject(input({ query: { project: value } })));
      expect(error.validationErrors).to.deep.equal({ project: ['must be a project slug'] });
    }
  });
});

describe('resolveProjectContext', () => {
  it('asks the resolver by id or slug as selected', async () => {
    const { resolver, asked } = fakeResolver();
    expect((await resolveProjectContext(input({ principal: scoped }), resolver, {})).slug).to.equal('seven');
    expect((await resolveProjectContext(input({ query: { project_id: '8' } }), resolver, {})).slug).to.equal(
      'eight',
    );
    expect((await resolveProjectContext(input({ query: { project: 'seven' } }), resolver, {})).id).to.equal(
      7,
    );
    expect(asked).to.deep.equal(['id:7', 'id:8', 'slug:seven']);
  });

  it('passes on 404 for an unknown project', async () => {
    const { resolver } = fakeResolver();
    const error = await resolveProjectContext(input({ query: { project: 'nine' } }), resolver, {}).catch(
      (caught: unknown) => caught,
    );
    expect((error as AppError).message).to.equal('Project not found');
  });
});

describe('projectContext middleware', () => {
  it('attaches the project to the request', async () => {
    const { resolver } = fakeResolver();
    const request = fakeRequest({ principal: unscoped, query: { project: 'eight' } });
    const outcome = await run(projectContext({ resolver }), request);
    expect(outcome.error).to.equal(undefined);
    expect(outcome.nextCalled).to.equal(true);
    expect(request.project?.id).to.equal(8);
  });

  it('reads body project_id only when asked to', async () => {
    const { resolver } = fakeResolver();
    const request = fakeRequest({ principal: unscoped, body: { project_id: 7 } });
    expect((await run(projectContext({ resolver }), request)).error).to.be.instanceOf(AppError);
    await run(projectContext({ resolver, acceptBodyProjectId: true }), request);
    expect(request.project?.id).to.equal(7);
  });

  it('optional: a request naming no project goes on without one; a bad or unknown one is refused', async () => {
    const { resolver, asked } = fakeResolver();
    const optional = projectContext({ resolver, optional: true });
    const none = fakeRequest({ principal: unscoped, query: {} });
    expect(await run(optional, none)).to.include({ nextCalled: true, error: undefined });
    expect([none.project, asked]).to.deep.equal([undefined, []]);
    const named = fakeRequest({ principal: unscoped, query: { project: 'eight' } });
    await run(optional, named);
    expect(named.project?.id).to.equal(8);
    const refusals: [Record<string, string>, number][] = [
      [{ project_id: 'x' }, 400],
      [{ project: 'nine' }, 404],
    ];
    for (const [query, status] of refusals) {
      const outcome = await run(optional, fakeRequest({ principal: unscoped, query }));
      expect((outcome.error as AppError).httpStatus, JSON.stringify(query)).to.equal(status);
    }
  });
});

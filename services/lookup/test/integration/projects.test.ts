import { expect } from 'chai';
import type { Principal } from '@tix/protos';
import { refusalOf, startLookupFixture, type LookupFixture } from './support.js';

const DEFAULT_STATUSES = [
  { slug: 'open', label: 'Open', is_closed: false, position: 0 },
  { slug: 'work_in_progress', label: 'Work in progress', is_closed: false, position: 1 },
  { slug: 'waiting', label: 'Waiting', is_closed: false, position: 2 },
  { slug: 'closed', label: 'Closed', is_closed: true, position: 3 },
];

describe('lookup: projects', () => {
  let lookup: LookupFixture;
  let acmeId: number;
  let opsId: number;

  before(async () => {
    lookup = await startLookupFixture();
  });
  after(() => lookup.stop());

  it('CreateProject with no statuses gets the default workflow', async () => {
    const project = await lookup.client.CreateProject({ name: 'Acme', slug: 'acme', prefix: 'AC' });
    acmeId = project.id;
    expect(project).to.deep.equal({
      id: acmeId,
      name: 'Acme',
      slug: 'acme',
      prefix: 'AC',
      description: '',
      statuses: DEFAULT_STATUSES,
    });
  });

  it('CreateProject keeps a custom workflow in the given order', async () => {
    const project = await lookup.client.CreateProject({
      name: 'Ops',
      slug: 'ops',
      prefix: 'OPS',
      description: 'Operations',
      statuses: [
        { slug: 'triage', label: 'Triage' },
        { slug: 'in_review', label: 'In review' },
        { slug: 'done', label: 'Done', is_closed: true },
      ],
    });
    opsId = project.id;
    expect(project.statuses).to.deep.equal([
      { slug: 'triage', label: 'Triage', is_closed: false, position: 0 },
      { slug: 'in_review', label: 'In review', is_closed: false, position: 1 },
      { slug: 'done', label: 'Done', is_closed: true, position: 2 },
    ]);
    expect(project.description).to.equal('Operations');
  });

  it('CreateProject refuses a taken slug and prefix with 422 naming both fields', async () => {
    expect(
      await refusalOf(lookup.client.CreateProject({ name: 'Again', slug: 'acme', prefix: 'AC' })),
    ).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: {
        slug: ['A project with slug "acme" already exists'],
        prefix: ['Prefix "AC" is already used by another project'],
      },
    });
    expect(
      await refusalOf(lookup.client.CreateProject({ name: 'Again', slug: 'acme-2', prefix: 'OPS' })),
    ).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: { prefix: ['Prefix "OPS" is already used by another project'] },
    });
  });

  it('CreateProject answers concurrent creations of one slug with one success and one 422', async () => {
    const results = await Promise.allSettled([
      lookup.client.CreateProject({ name: 'Race', slug: 'race', prefix: 'RACEA' }),
      lookup.client.CreateProject({ name: 'Race', slug: 'race', prefix: 'RACEB' }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).to.have.length(1);
    const failed = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(failed.reason).to.include({ kind: 'validation_failed' });
    expect(failed.reason.validationErrors).to.deep.equal({
      slug: ['A project with slug "race" already exists'],
    });
  });

  it('CreateProject refuses invalid input with 422 and stores nothing', async () => {
    expect(
      await refusalOf(
        lookup.client.CreateProject({
          name: '',
          slug: '-bad',
          prefix: '1X',
          statuses: [{ slug: 'open', label: 'Open' }],
        }),
      ),
    ).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: {
        name: ['Name is required'],
        slug: ['Slug must be 1-64 lowercase letters, digits or hyphens, starting with a letter or digit'],
        prefix: ['Prefix must be 1-16 uppercase letters or digits, starting with a letter'],
        statuses: ['At least one status must be closed (where tickets are resolved)'],
      },
    });
    const { rows } = await lookup.sql.query<{ count: string }>('SELECT count(*) FROM projects');
    expect(Number(rows[0]!.count)).to.equal(3);
  });

  it('ResolveProject finds a project by id and by slug', async () => {
    const byId = await lookup.client.ResolveProject({ id: opsId });
    const bySlug = await lookup.client.ResolveProject({ slug: 'ops' });
    expect(byId).to.deep.equal(bySlug);
    expect(byId).to.include({ id: opsId, slug: 'ops', prefix: 'OPS' });
  });

  it('ResolveProject answers 404 "Project not found" for unknown ids and slugs, 400 without a selector', async () => {
    const notFound = { kind: 'not_found', message: 'Project not found' };
    expect(await refusalOf(lookup.client.ResolveProject({ id: 99999 }))).to.deep.equal(notFound);
    expect(await refusalOf(lookup.client.ResolveProject({ slug: 'nope' }))).to.deep.equal(notFound);
    expect(await refusalOf(lookup.client.ResolveProject({}))).to.deep.equal({
      kind: 'bad_request',
      message: 'Project id or slug is required',
    });
  });

  it('ListProjects lists all in id order, or only the one project a scoped key may see', async () => {
    const all = await lookup.client.ListProjects({});
    expect(all.projects.map((p) => p.slug)).to.deep.equal(['acme', 'ops', 'race']);
    expect(all.projects[0]!.statuses).to.deep.equal(DEFAULT_STATUSES);
    const only = await lookup.client.ListProjects({ only_project_id: opsId });
    expect(only.projects.map((p) => p.id)).to.deep.equal([opsId]);
    expect((await lookup.client.ListProjects({ only_project_id: 424242 })).projects).to.deep.equal([]);
    expect(acmeId).to.be.lessThan(opsId);
  });

  it('refuses admin RPCs relayed for a non-admin principal (403)', async () => {
    const agent: Principal = {
      kind: 'api_key',
      user_id: 1,
      role: 'agent',
      scopes: ['tickets:write'],
      key_id: 1,
    };
    expect(
      await refusalOf(
        lookup.client.CreateProject({ name: 'X', slug: 'x', prefix: 'X' }, { principal: agent }),
      ),
    ).to.deep.equal({ kind: 'permission_denied', message: 'This operation requires the admin role' });
    const admin: Principal = { ...agent, role: 'admin' };
    expect(
      await lookup.client.CreateProject({ name: 'X', slug: 'x', prefix: 'X' }, { principal: admin }),
    ).to.include({
      slug: 'x',
    });
  });
});

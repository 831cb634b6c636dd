import { expect } from 'chai';
import { refusalOf, startLookupFixture, type LookupFixture } from './support.js';

const severity = {
  name: 'severity',
  label: 'Severity',
  type: 'select',
  required: true,
  constraints: { allowed_values: ['low', 'high'] },
  default_value: 'low',
  order: 1,
};

describe('lookup: ticket types', () => {
  let lookup: LookupFixture;
  let projectId: number;
  let otherProjectId: number;
  let bugId: number;

  before(async () => {
    lookup = await startLookupFixture();
    projectId = (await lookup.client.CreateProject({ name: 'Acme', slug: 'acme', prefix: 'AC' })).id;
    otherProjectId = (await lookup.client.CreateProject({ name: 'Other', slug: 'other', prefix: 'OT' })).id;
  });
  after(() => lookup.stop());

  it('CreateTicketType (project by slug) stores the schema as parseFieldSchema validated it', async () => {
    const type = await lookup.client.CreateTicketType({
      project_slug: 'acme',
      name: 'Bug',
      slug: 'bug',
      description: 'Something is broken',
      is_default: true,
      field_schema_json: JSON.stringify([severity]),
    });
    bugId = type.id;
    expect(type).to.deep.include({
      project_id: projectId,
      name: 'Bug',
      slug: 'bug',
      description: 'Something is broken',
      is_default: true,
    });
    const schema = JSON.parse(type.field_schema_json) as Record<string, unknown>[];
    expect(schema).to.have.length(1);
    expect(schema[0]).to.deep.include({
      name: 'severity',
      label: 'Severity',
      type: 'select',
      required: true,
    });
  });

  it('CreateTicketType (project by id) with an empty schema text has no custom fields', async () => {
    const type = await lookup.client.CreateTicketType({
      project_id: projectId,
      name: 'Question',
      slug: 'question',
    });
    expect(type).to.deep.equal({
      id: type.id,
      project_id: projectId,
      name: 'Question',
      slug: 'question',
      description: '',
      is_default: false,
      field_schema_json: '[]',
    });
  });

  it('a new default type unsets the previous default of the same project only', async () => {
    await lookup.client.CreateTicketType({
      project_id: otherProjectId,
      name: 'Task',
      slug: 'task',
      is_default: true,
    });
    const incident = await lookup.client.CreateTicketType({
      project_slug: 'acme',
      name: 'Incident',
      slug: 'incident',
      is_default: true,
    });
    const acme = await lookup.client.ListTicketTypes({ project_id: projectId });
    expect(acme.ticket_types.filter((t) => t.is_default).map((t) => t.id)).to.deep.equal([incident.id]);
    const other = await lookup.client.ListTicketTypes({ project_id: otherProjectId });
    expect(other.ticket_types.map((t) => [t.slug, t.is_default])).to.deep.equal([['task', true]]);
  });

  it('concurrent new defaults leave exactly one default', async () => {
    await Promise.all(
      ['d1', 'd2', 'd3', 'd4'].map((slug) =>
        lookup.client.CreateTicketType({ project_id: otherProjectId, name: slug, slug, is_default: true }),
      ),
    );
    const { rows } = await lookup.sql.query<{ count: string }>(
      'SELECT count(*) FROM ticket_types WHERE project_id = $1 AND is_default',
      [otherProjectId],
    );
    expect(Number(rows[0]!.count)).to.equal(1);
  });

  it('ListTicketTypes lists the project types in id order; 404 for an unknown project', async () => {
    const list = await lookup.client.ListTicketTypes({ project_id: projectId });
    expect(list.ticket_types.map((t) => t.slug)).to.deep.equal(['bug', 'question', 'incident']);
    expect(list.ticket_types.every((t) => t.project_id === projectId)).to.be.true;
    expect(await refusalOf(lookup.client.ListTicketTypes({ project_id: 9999 }))).to.deep.equal({
      kind: 'not_found',
      message: 'Project not found',
    });
  });

  it('GetTicketType finds a type only within its project', async () => {
    expect(await lookup.client.GetTicketType({ project_id: projectId, id: bugId })).to.include({
      id: bugId,
      slug: 'bug',
    });
    const notFound = { kind: 'not_found', message: 'Ticket type not found' };
    expect(
      await refusalOf(lookup.client.GetTicketType({ project_id: otherProjectId, id: bugId })),
    ).to.deep.equal(notFound);
    expect(await refusalOf(lookup.client.GetTicketType({ project_id: projectId, id: 99999 }))).to.deep.equal(
      notFound,
    );
  });

  it('refuses a duplicate name or slug within the project (422), allows them in another project', async () => {
    expect(
      await refusalOf(lookup.client.CreateTicketType({ project_slug: 'acme', name: 'Bug', slug: 'bug' })),
    ).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: {
        name: ['A ticket type with name "Bug" already exists in this project'],
        slug: ['A ticket type with slug "bug" already exists in this project'],
      },
    });
    expect(
      await lookup.client.CreateTicketType({ project_slug: 'other', name: 'Bug', slug: 'bug' }),
    ).to.include({
      project_id: otherProjectId,
    });
  });

  it('refuses an unknown project with 404 and a missing project with 422', async () => {
    expect(
      await refusalOf(lookup.client.CreateTicketType({ project_slug: 'nope', name: 'X', slug: 'x' })),
    ).to.deep.equal({
      kind: 'not_found',
      message: 'Project not found',
    });
    expect(await refusalOf(lookup.client.CreateTicketType({ name: 'X', slug: 'x' }))).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: { project: ['Project id or slug is required'] },
    });
  });

  it('refuses invalid JSON and invalid schemas with 422 on field_schema', async () => {
    const badJson = await refusalOf(
      lookup.client.CreateTicketType({
        project_slug: 'acme',
        name: 'X',
        slug: 'x',
        field_schema_json: '[{"name":',
      }),
    );
    expect(badJson.kind).to.equal('validation_failed');
    expect(Object.keys(badJson.validation_errors as object)).to.deep.equal(['field_schema']);

    const badSchema = await refusalOf(
      lookup.client.CreateTicketType({
        project_slug: 'acme',
        name: 'X',
        slug: 'x',
        field_schema_json: JSON.stringify([{ ...severity, type: 'colour' }]),
      }),
    );
    expect(badSchema.kind).to.equal('validation_failed');
    const fields = Object.keys(badSchema.validation_errors as object);
    expect(fields).to.have.length.greaterThan(0);
    expect(fields.every((field) => field.startsWith('field_schema'))).to.be.true;
    const { rows } = await lookup.sql.query("SELECT 1 FROM ticket_types WHERE slug = 'x'");
    expect(rows).to.deep.equal([]);
  });

  it('refuses an invalid name, slug and description with 422', async () => {
    expect(
      await refusalOf(
        lookup.client.CreateTicketType({
          project_slug: 'acme',
          name: ' ',
          slug: 'Bad-Slug',
          description: 'd'.repeat(2001),
        }),
      ),
    ).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: {
        name: ['Name is required'],
        slug: ['Slug must be 1-64 lowercase letters, digits or underscores, starting with a letter'],
        description: ['Description must be at most 2000 characters'],
      },
    });
  });
});

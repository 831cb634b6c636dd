import { expect } from 'chai';
import { underFieldSchema, validateNewTicketType } from '../../src/ticket-types/ticket-type-rules.js';
import { refusal } from './support.js';

const valid = { name: 'Bug', slug: 'bug', description: '', isDefault: false, fieldSchemaJson: '' };

describe('ticket type rules', () => {
  it('treats an empty schema text as no custom fields', () => {
    expect(validateNewTicketType({ ...valid, name: ' Bug ', fieldSchemaJson: '  ' })).to.deep.equal({
      name: 'Bug',
      slug: 'bug',
      description: '',
      isDefault: false,
      fieldSchema: [],
    });
  });

  it('reports invalid JSON on field_schema, with the other field errors', async () => {
    const error = await refusal(() =>
      validateNewTicketType({
        ...valid,
        name: '',
        slug: 'Bug-1',
        description: 'd'.repeat(2001),
        fieldSchemaJson: '[{',
      }),
    );
    expect(error.kind).to.equal('validation_failed');
    expect(Object.keys(error.validationErrors!)).to.deep.equal([
      'name',
      'slug',
      'description',
      'field_schema',
    ]);
    expect(error.validationErrors!.field_schema).to.have.length(1);
    expect((error.validationErrors!.field_schema as string[])[0]).to.match(
      /^field_schema is not valid JSON: /,
    );
  });

  it('refuses an over-long name', async () => {
    const error = await refusal(() => validateNewTicketType({ ...valid, name: 'n'.repeat(101) }));
    expect(error.validationErrors).to.deep.equal({ name: ['Name must be at most 100 characters'] });
  });

  it('counts characters as code points: 100 emoji (200 UTF-16 units) are a valid name', () => {
    expect(validateNewTicketType({ ...valid, name: '🎫'.repeat(100) }).name).to.equal('🎫'.repeat(100));
  });

  it('validates the schema with @tix/custom-fields and reports its errors under field_schema', async () => {
    const error = await refusal(() =>
      validateNewTicketType({ ...valid, fieldSchemaJson: '{"not":"an array"}' }),
    );
    expect(error.kind).to.equal('validation_failed');
    expect(Object.keys(error.validationErrors!).every((key) => key.startsWith('field_schema'))).to.be.true;

    const schema = validateNewTicketType({
      ...valid,
      fieldSchemaJson: JSON.stringify([
        {
          name: 'severity',
          label: 'Severity',
          type: 'select',
          required: true,
          constraints: { allowed_values: ['a', 'b'] },
          default_value: 'a',
          order: 1,
        },
      ]),
    }).fieldSchema;
    expect(schema).to.have.length(1);
    expect(schema[0]).to.include({ name: 'severity', type: 'select', required: true });
  });

  it('puts custom-fields paths under field_schema exactly once', () => {
    expect(underFieldSchema('')).to.equal('field_schema');
    expect(underFieldSchema('field_schema')).to.equal('field_schema');
    expect(underFieldSchema('field_schema[0].name')).to.equal('field_schema[0].name');
    expect(underFieldSchema('field_schema.x')).to.equal('field_schema.x');
    expect(underFieldSchema('[2].type')).to.equal('field_schema[2].type');
    expect(underFieldSchema('name')).to.equal('field_schema.name');
  });
});

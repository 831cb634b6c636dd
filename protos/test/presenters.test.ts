import { expect } from 'chai';
import { parseFieldSchemaJson, presentProject, presentTicketType, presentUser } from '../src/index.js';

describe('lookup presenters', () => {
  it('presentProject keeps the spec fields plus prefix and statuses', () => {
    expect(
      presentProject({
        id: 1,
        name: 'Acme',
        slug: 'acme',
        prefix: 'AC',
        description: 'd',
        statuses: [{ slug: 'open', label: 'Open', is_closed: false, position: 0 }],
      }),
    ).to.deep.equal({
      id: 1,
      name: 'Acme',
      slug: 'acme',
      prefix: 'AC',
      description: 'd',
      statuses: [{ slug: 'open', label: 'Open', is_closed: false, position: 0 }],
    });
  });

  it('presentTicketType parses field_schema and leaves project_id out', () => {
    const schema = [
      {
        name: 'severity',
        label: 'Severity',
        type: 'select',
        required: true,
        constraints: { allowed_values: ['a'] },
        default_value: null,
        order: 1,
      },
    ];
    expect(
      presentTicketType({
        id: 2,
        project_id: 1,
        name: 'Bug',
        slug: 'bug',
        description: '',
        is_default: true,
        field_schema_json: JSON.stringify(schema),
      }),
    ).to.deep.equal({
      id: 2,
      name: 'Bug',
      slug: 'bug',
      description: '',
      is_default: true,
      field_schema: schema,
      retired_at: null,
    });
  });

  it('parseFieldSchemaJson: empty means none; non-arrays and bad JSON throw', () => {
    expect(parseFieldSchemaJson('')).to.deep.equal([]);
    expect(parseFieldSchemaJson(' [] ')).to.deep.equal([]);
    expect(() => parseFieldSchemaJson('{}')).to.throw(TypeError);
    expect(() => parseFieldSchemaJson('{not json')).to.throw(SyntaxError);
  });

  it('presentUser keeps exactly the spec fields and the additive is_system', () => {
    expect(
      presentUser({ id: 3, name: 'N', email: 'n@x', role: 'agent', is_active: false, is_system: false }),
    ).to.deep.equal({
      id: 3,
      name: 'N',
      email: 'n@x',
      role: 'agent',
      is_active: false,
      is_system: false,
    });
    const assistant = { id: 1, name: 'Tix AI', email: 'ai@tix.invalid', role: 'agent', is_active: true };
    expect(presentUser({ ...assistant, is_system: true })).to.deep.equal({ ...assistant, is_system: true });
  });
});

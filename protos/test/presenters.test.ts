import { expect } from 'chai';
import {
  parseFieldSchemaJson,
  presentProject,
  presentTicket,
  presentTicketType,
  presentUser,
} from '../src/index.js';

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

describe('ticket presenter', () => {
  const base = {
    id: 7,
    project_id: 1,
    ticket_type_id: 2,
    project_ref_id: 3,
    ticket_number: 'SUP-3',
    title: 'Printer on fire',
    status: 'open',
    status_label: 'Open',
    priority: 'high',
    priority_label: 'High',
    created_by: 5,
    custom_fields_json: '{"severity":"high"}',
    source_type: 'api',
    version: 1,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    tags: ['hardware'],
  };

  it('turns absent optionals into null, parses custom fields, and omits merged_into', () => {
    const { custom_fields_json: _json, ...fields } = base;
    expect(presentTicket(base)).to.deep.equal({
      ...fields,
      custom_fields: { severity: 'high' },
      description: null,
      assigned_to: null,
      updated_by: null,
      merged_into_id: null,
      resolution_type: null,
    });
    expect(presentTicket(base)).to.not.have.property('merged_into');
    expect(presentTicket(base)).to.not.have.property('custom_fields_json');
  });

  it('adds merged_into when the ticket was merged', () => {
    const merged = presentTicket({
      ...base,
      merged_into_id: 9,
      resolution_type: 'duplicate',
      status: 'closed',
    });
    expect(merged).to.include({ merged_into_id: 9, merged_into: 9, resolution_type: 'duplicate' });
  });
});

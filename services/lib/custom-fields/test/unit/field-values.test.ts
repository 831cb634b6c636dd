import { expect } from 'chai';
import { type FieldSchema, parseFieldSchema, validateCustomFields } from '../../src/index.js';

function schemaOf(entries: unknown[]): FieldSchema {
  const result = parseFieldSchema(entries);
  if (!result.ok) expect.fail(JSON.stringify(result.errors));
  return result.value;
}

const schema = schemaOf([
  {
    name: 'severity',
    label: 'Severity',
    type: 'select',
    required: true,
    constraints: { allowed_values: ['low', 'high'] },
  },
  { name: 'component', label: 'Component', type: 'text', default_value: 'core' },
  { name: 'due', label: 'Due date', type: 'date' },
  { name: 'customer', label: 'Customer email', type: 'email', required: true },
  {
    name: 'tags',
    label: 'Tags',
    type: 'multi_select',
    constraints: { allowed_values: ['ui', 'api'] },
    default_value: ['api'],
  },
]);

describe('validateCustomFields', () => {
  describe('input shape', () => {
    for (const input of ['x', 1, true, ['severity'], new Date(0)]) {
      it(`refuses ${JSON.stringify(input)} as custom_fields`, () => {
        expect(validateCustomFields(schema, input)).to.deep.equal({
          ok: false,
          errors: { custom_fields: ['custom_fields must be an object'] },
        });
      });
    }

    it('reads undefined and null as an empty object', () => {
      const expected = {
        ok: false,
        errors: {
          'custom_fields.severity': ['Severity is required'],
          'custom_fields.customer': ['Customer email is required'],
        },
      };
      expect(validateCustomFields(schema, undefined)).to.deep.equal(expected);
      expect(validateCustomFields(schema, null)).to.deep.equal(expected);
    });

    it('gives an empty object for an empty schema and no input', () => {
      expect(validateCustomFields([], undefined)).to.deep.equal({ ok: true, value: {} });
    });

    it('refuses unknown keys, including prototype names', () => {
      const input = JSON.parse(
        '{"severity":"low","customer":"a@example.com","colour":"red","__proto__":1,"constructor":2}',
      ) as unknown;
      expect(validateCustomFields(schema, input)).to.deep.equal({
        ok: false,
        errors: {
          'custom_fields.colour': ['Unknown field'],
          'custom_fields.__proto__': ['Unknown field'],
          'custom_fields.constructor': ['Unknown field'],
        },
      });
    });
  });

  describe('create', () => {
    it('applies defaults to fields not sent and returns the whole stored object', () => {
      expect(validateCustomFields(schema, { severity: 'high', customer: 'a@example.com' })).to.deep.equal({
        ok: true,
        value: { severity: 'high', component: 'core', customer: 'a@example.com', tags: ['api'] },
      });
    });

    it('does not share the default array with the schema', () => {
      const result = validateCustomFields(schema, { severity: 'high', customer: 'a@example.com' });
      expect(result.ok && result.value.tags).to.not.equal(schema[4]!.default_value);
    });

    it('keeps sent values over defaults and reads null as "no value", not as "use the default"', () => {
      expect(
        validateCustomFields(schema, {
          severity: 'low',
          customer: 'a@example.com',
          component: null,
          tags: [],
          due: '2024-06-30',
        }),
      ).to.deep.equal({
        ok: true,
        value: { severity: 'low', due: '2024-06-30', customer: 'a@example.com', tags: [] },
      });
    });

    it('refuses null on a required field', () => {
      expect(validateCustomFields(schema, { severity: null, customer: 'a@example.com' })).to.deep.equal({
        ok: false,
        errors: { 'custom_fields.severity': ['Severity is required'] },
      });
    });

    it('fills a required field from its default', () => {
      const withDefault = schemaOf([
        { name: 'level', label: 'Level', type: 'number', required: true, default_value: 3 },
      ]);
      expect(validateCustomFields(withDefault, {})).to.deep.equal({ ok: true, value: { level: 3 } });
    });

    it('reports every problem at once', () => {
      expect(
        validateCustomFields(schema, {
          severity: 'urgent',
          due: '2024-02-30',
          tags: ['ui', 'ui', 'web'],
          nope: true,
        }),
      ).to.deep.equal({
        ok: false,
        errors: {
          'custom_fields.nope': ['Unknown field'],
          'custom_fields.severity': ['Severity must be one of: low, high'],
          'custom_fields.due': ['Due date must be a valid date in YYYY-MM-DD format'],
          'custom_fields.customer': ['Customer email is required'],
          'custom_fields.tags': ['Tags may only contain: ui, api', 'Tags must not contain duplicate values'],
        },
      });
    });

    it('reads a key holding undefined (from JS callers) as not sent', () => {
      expect(
        validateCustomFields(schema, {
          severity: 'low',
          customer: 'a@example.com',
          component: undefined,
          x: undefined,
        }),
      ).to.deep.equal({
        ok: true,
        value: { severity: 'low', component: 'core', customer: 'a@example.com', tags: ['api'] },
      });
    });

    it('treats a field named like an Object.prototype member as an ordinary field', () => {
      const tricky = schemaOf([
        { name: 'constructor', label: 'Constructor', type: 'text', required: true },
        { name: 'tostring', label: 'To string', type: 'text' },
      ]);
      expect(validateCustomFields(tricky, {})).to.deep.equal({
        ok: false,
        errors: { 'custom_fields.constructor': ['Constructor is required'] },
      });
      expect(validateCustomFields(tricky, { constructor: 'x' }, {})).to.deep.equal({
        ok: true,
        value: { constructor: 'x' },
      });
    });
  });

  describe('update', () => {
    const existing = { severity: 'low', component: 'ui-kit', customer: 'a@example.com', tags: ['ui'] };

    it('merges sent values over the existing ones', () => {
      expect(validateCustomFields(schema, { severity: 'high', due: '2024-07-01' }, existing)).to.deep.equal({
        ok: true,
        value: {
          severity: 'high',
          component: 'ui-kit',
          due: '2024-07-01',
          customer: 'a@example.com',
          tags: ['ui'],
        },
      });
    });

    it('keeps existing values when nothing is sent', () => {
      expect(validateCustomFields(schema, undefined, existing)).to.deep.equal({ ok: true, value: existing });
      expect(validateCustomFields(schema, {}, existing)).to.deep.equal({ ok: true, value: existing });
    });

    it('clears an optional field sent as null, without bringing back its default', () => {
      expect(validateCustomFields(schema, { component: null, tags: null }, existing)).to.deep.equal({
        ok: true,
        value: { severity: 'low', customer: 'a@example.com' },
      });
      const cleared = { severity: 'low', customer: 'a@example.com' };
      expect(validateCustomFields(schema, { due: '2024-01-01' }, cleared)).to.deep.equal({
        ok: true,
        value: { severity: 'low', due: '2024-01-01', customer: 'a@example.com' },
      });
    });

    it('refuses null for a required field', () => {
      expect(validateCustomFields(schema, { severity: null }, existing)).to.deep.equal({
        ok: false,
        errors: { 'custom_fields.severity': ['Severity is required'] },
      });
    });

    it('validates the merged whole, existing values included', () => {
      const stale = { severity: 'medium', customer: 'a@example.com' };
      expect(validateCustomFields(schema, { due: '2024-01-01' }, stale)).to.deep.equal({
        ok: false,
        errors: { 'custom_fields.severity': ['Severity must be one of: low, high'] },
      });
      expect(validateCustomFields(schema, { severity: 'high' }, stale)).to.deep.equal({
        ok: true,
        value: { severity: 'high', customer: 'a@example.com' },
      });
    });

    it('requires a required field that is missing from both, unless it has a default', () => {
      const grown = schemaOf([
        { name: 'a', label: 'A', type: 'text' },
        { name: 'b', label: 'B', type: 'boolean', required: true },
        { name: 'c', label: 'C', type: 'number', required: true, default_value: 1 },
        { name: 'd', label: 'D', type: 'text', default_value: 'not applied on update' },
      ]);
      expect(validateCustomFields(grown, { a: 'x' }, {})).to.deep.equal({
        ok: false,
        errors: { 'custom_fields.b': ['B is required'] },
      });
      expect(validateCustomFields(grown, { b: false }, { a: 'x' })).to.deep.equal({
        ok: true,
        value: { a: 'x', b: false, c: 1 },
      });
    });

    it('drops stored values of fields no longer in the schema, but refuses sending them', () => {
      const withOld = { ...existing, legacy: 'old' };
      expect(validateCustomFields(schema, {}, withOld)).to.deep.equal({ ok: true, value: existing });
      expect(validateCustomFields(schema, { legacy: 'new' }, withOld)).to.deep.equal({
        ok: false,
        errors: { 'custom_fields.legacy': ['Unknown field'] },
      });
    });

    it('normalises sent datetimes on update as on create', () => {
      const timed = schemaOf([{ name: 'at', label: 'At', type: 'datetime' }]);
      expect(validateCustomFields(timed, { at: '2024-01-01T01:00:00+01:00' }, {})).to.deep.equal({
        ok: true,
        value: { at: '2024-01-01T00:00:00.000Z' },
      });
    });
  });
});

import { expect } from 'chai';
import { parseFieldSchema } from '../../src/index.js';

/** The errors of a schema expected to be refused (fails the test if it is accepted). */
function errorsOf(input: unknown): Record<string, string[]> {
  const result = parseFieldSchema(input);
  if (result.ok) expect.fail(`expected the schema to be refused, got ${JSON.stringify(result.value)}`);
  return result.errors;
}

/** A one-field schema with the given entry merged over a minimal valid text field. */
function oneField(entry: Record<string, unknown>): unknown[] {
  return [{ name: 'field', label: 'Field', type: 'text', ...entry }];
}

describe('parseFieldSchema', () => {
  describe('normalising', () => {
    it('fills required, constraints, default_value and order, keeping input order', () => {
      const result = parseFieldSchema([
        {
          name: 'severity',
          label: 'Severity',
          type: 'select',
          constraints: { allowed_values: ['low', 'high'] },
        },
        { name: 'due', label: 'Due', type: 'date', required: true, order: 0 },
        { name: 'notes', label: 'Notes', type: 'textarea', default_value: 'n/a', order: 7 },
      ]);
      expect(result).to.deep.equal({
        ok: true,
        value: [
          {
            name: 'severity',
            label: 'Severity',
            type: 'select',
            required: false,
            constraints: { allowed_values: ['low', 'high'] },
            default_value: null,
            order: 0,
          },
          {
            name: 'due',
            label: 'Due',
            type: 'date',
            required: true,
            constraints: {},
            default_value: null,
            order: 0,
          },
          {
            name: 'notes',
            label: 'Notes',
            type: 'textarea',
            required: false,
            constraints: {},
            default_value: 'n/a',
            order: 7,
          },
        ],
      });
    });

    it('accepts an empty schema', () => {
      expect(parseFieldSchema([])).to.deep.equal({ ok: true, value: [] });
    });

    it('reads null optional properties and null constraint keys as not set', () => {
      const result = parseFieldSchema([
        {
          name: 'size',
          label: 'Size',
          type: 'number',
          required: null,
          order: null,
          default_value: null,
          constraints: { min_value: 1, max_value: null },
        },
      ]);
      expect(result).to.deep.equal({
        ok: true,
        value: [
          {
            name: 'size',
            label: 'Size',
            type: 'number',
            required: false,
            constraints: { min_value: 1 },
            default_value: null,
            order: 0,
          },
        ],
      });
    });

    it('accepts every type with its full set of constraints', () => {
      const result = parseFieldSchema([
        {
          name: 'a',
          label: 'A',
          type: 'text',
          constraints: { min_length: 1, max_length: 10, pattern: '[A-Z]+' },
        },
        { name: 'b', label: 'B', type: 'textarea', constraints: { min_length: 0, max_length: 10000 } },
        { name: 'c', label: 'C', type: 'number', constraints: { min_value: -1.5, max_value: -1.5 } },
        { name: 'd', label: 'D', type: 'date' },
        { name: 'e', label: 'E', type: 'datetime' },
        { name: 'f', label: 'F', type: 'select', constraints: { allowed_values: ['x'] } },
        { name: 'g', label: 'G', type: 'multi_select', constraints: { allowed_values: ['x', 'y'] } },
        { name: 'h', label: 'H', type: 'boolean' },
        { name: 'i', label: 'I', type: 'email' },
        { name: 'j', label: 'J', type: 'url' },
      ]);
      expect(result.ok).to.equal(true);
    });

    it('stores a datetime default in its normalised UTC form and copies a multi_select default', () => {
      const allowed = ['x', 'y'];
      const defaultValue = ['y'];
      const result = parseFieldSchema([
        { name: 'at', label: 'At', type: 'datetime', default_value: '2024-05-01T09:30:00+02:00' },
        {
          name: 'tags',
          label: 'Tags',
          type: 'multi_select',
          constraints: { allowed_values: allowed },
          default_value: defaultValue,
        },
      ]);
      if (!result.ok) expect.fail(JSON.stringify(result.errors));
      expect(result.value[0]!.default_value).to.equal('2024-05-01T07:30:00.000Z');
      expect(result.value[1]!.default_value).to.deep.equal(['y']);
      expect(result.value[1]!.default_value).to.not.equal(defaultValue);
      expect(result.value[1]!.constraints.allowed_values).to.deep.equal(allowed);
      expect(result.value[1]!.constraints.allowed_values).to.not.equal(allowed);
    });

    it('lets a required field have a default', () => {
      const result = parseFieldSchema(oneField({ required: true, default_value: 'hello' }));
      expect(result.ok && result.value[0]!.default_value).to.equal('hello');
    });
  });

  describe('top-level refusals', () => {
    for (const input of [undefined, null, {}, 'text', 3]) {
      it(`refuses ${JSON.stringify(input) ?? 'undefined'} as not an array`, () => {
        expect(errorsOf(input)).to.deep.equal({ field_schema: ['field_schema must be an array'] });
      });
    }

    it('refuses more than 100 fields', () => {
      const fields = Array.from({ length: 101 }, (_, i) => ({
        name: `f${i}`,
        label: `F${i}`,
        type: 'boolean',
      }));
      expect(errorsOf(fields)).to.deep.equal({ field_schema: ['field_schema must have at most 100 fields'] });
      expect(parseFieldSchema(fields.slice(0, 100)).ok).to.equal(true);
    });

    it('refuses entries that are not objects', () => {
      expect(errorsOf([null, [], 'x'])).to.deep.equal({
        'field_schema[0]': ['field must be an object'],
        'field_schema[1]': ['field must be an object'],
        'field_schema[2]': ['field must be an object'],
      });
    });
  });

  describe('entry properties', () => {
    it('requires name, label and type', () => {
      expect(errorsOf([{}])).to.deep.equal({
        'field_schema[0].name': ['name is required'],
        'field_schema[0].label': ['label is required'],
        'field_schema[0].type': ['type is required'],
      });
    });

    it('refuses unknown entry keys', () => {
      expect(errorsOf(oneField({ id: 1, hint: 'x' }))).to.deep.equal({
        'field_schema[0].id': ['Unknown property'],
        'field_schema[0].hint': ['Unknown property'],
      });
    });

    const badNames: unknown[] = ['Severity', '1st', '_x', 'a-b', 'a b', '', 'é', 'a'.repeat(65), 7];
    for (const name of badNames) {
      it(`refuses the name ${JSON.stringify(name)}`, () => {
        const errors = errorsOf(oneField({ name }));
        expect(Object.keys(errors)).to.deep.equal(['field_schema[0].name']);
      });
    }

    it('accepts names at the edges of the grammar', () => {
      expect(parseFieldSchema(oneField({ name: 'a' })).ok).to.equal(true);
      expect(parseFieldSchema(oneField({ name: 'a' + 'b_9'.repeat(21) })).ok).to.equal(true);
    });

    it('refuses duplicate names, naming the later entry', () => {
      const errors = errorsOf([
        { name: 'due', label: 'Due', type: 'date' },
        { name: 'other', label: 'Other', type: 'date' },
        { name: 'due', label: 'Due again', type: 'text' },
      ]);
      expect(errors).to.deep.equal({
        'field_schema[2].name': ['name "due" is already used by another field'],
      });
    });

    it('refuses blank, over-long and non-string labels', () => {
      expect(errorsOf(oneField({ label: '  ' }))).to.deep.equal({
        'field_schema[0].label': ['label must not be empty'],
      });
      expect(errorsOf(oneField({ label: 'x'.repeat(201) }))).to.deep.equal({
        'field_schema[0].label': ['label must be at most 200 characters'],
      });
      expect(errorsOf(oneField({ label: 5 }))).to.deep.equal({
        'field_schema[0].label': ['label must be a string'],
      });
      expect(parseFieldSchema(oneField({ label: '😀'.repeat(200) })).ok).to.equal(true);
    });

    it('refuses labels PostgreSQL could not store', () => {
      expect(errorsOf(oneField({ label: 'a\u0000b' }))).to.deep.equal({
        'field_schema[0].label': ['label contains characters that are not allowed'],
      });
      expect(errorsOf(oneField({ label: 'a\uD800b' }))).to.deep.equal({
        'field_schema[0].label': ['label contains characters that are not allowed'],
      });
    });

    it('refuses an unknown type, listing the ten', () => {
      expect(errorsOf(oneField({ type: 'integer' }))).to.deep.equal({
        'field_schema[0].type': [
          'type must be one of: text, textarea, number, date, datetime, select, multi_select, boolean, email, url',
        ],
      });
    });

    it('refuses a non-boolean required', () => {
      expect(errorsOf(oneField({ required: 'yes' }))).to.deep.equal({
        'field_schema[0].required': ['required must be true or false'],
      });
    });

    it('refuses a non-integer or out-of-range order', () => {
      expect(errorsOf(oneField({ order: 1.5 }))).to.deep.equal({
        'field_schema[0].order': ['order must be an integer'],
      });
      expect(errorsOf(oneField({ order: '1' }))).to.deep.equal({
        'field_schema[0].order': ['order must be an integer'],
      });
      expect(errorsOf(oneField({ order: 2 ** 31 }))).to.deep.equal({
        'field_schema[0].order': ['order must be between -2147483648 and 2147483647'],
      });
      expect(parseFieldSchema(oneField({ order: -5 })).ok).to.equal(true);
    });

    it('refuses constraints that are not an object', () => {
      expect(errorsOf(oneField({ constraints: ['x'] }))).to.deep.equal({
        'field_schema[0].constraints': ['constraints must be an object'],
      });
    });

    it('reports the errors of every entry at once', () => {
      const errors = errorsOf([
        { name: 'ok', label: 'Ok', type: 'boolean' },
        { name: 'Bad', label: '', type: 'select' },
        { name: 'n', label: 'N', type: 'number', constraints: { min_value: 5, max_value: 1, pattern: 'x' } },
      ]);
      expect(errors).to.deep.equal({
        'field_schema[1].name': [
          'name must start with a lowercase letter and contain only lowercase letters, digits and underscores (at most 64 characters)',
        ],
        'field_schema[1].label': ['label must not be empty'],
        'field_schema[1].constraints.allowed_values': ['allowed_values is required for select fields'],
        'field_schema[2].constraints.pattern': ['pattern is not allowed for number fields'],
        'field_schema[2].constraints.min_value': ['min_value must not be greater than max_value'],
      });
    });
  });

  describe('constraints by type', () => {
    const notAllowed: Array<[string, string, Record<string, unknown>]> = [
      ['textarea', 'pattern', {}],
      ['text', 'min_value', {}],
      ['number', 'max_length', {}],
      ['select', 'pattern', { allowed_values: ['a'] }],
      ['date', 'min_length', {}],
      ['datetime', 'max_value', {}],
      ['boolean', 'allowed_values', {}],
      ['email', 'max_length', {}],
      ['url', 'pattern', {}],
      ['multi_select', 'unique', { allowed_values: ['a'] }],
    ];
    for (const [type, key, rest] of notAllowed) {
      it(`refuses ${key} on a ${type} field`, () => {
        const constraints = { ...rest, [key]: key === 'allowed_values' ? ['a'] : 1 };
        expect(errorsOf(oneField({ type, constraints }))).to.deep.equal({
          [`field_schema[0].constraints.${key}`]: [`${key} is not allowed for ${type} fields`],
        });
      });
    }

    for (const type of ['select', 'multi_select']) {
      it(`requires allowed_values for ${type} fields`, () => {
        expect(errorsOf(oneField({ type }))).to.deep.equal({
          'field_schema[0].constraints.allowed_values': [`allowed_values is required for ${type} fields`],
        });
        expect(errorsOf(oneField({ type, constraints: { allowed_values: null } }))).to.deep.equal({
          'field_schema[0].constraints.allowed_values': [`allowed_values is required for ${type} fields`],
        });
      });
    }

    const badAllowedValues: Array<[unknown, string]> = [
      ['low,high', 'allowed_values must be an array of strings'],
      [[], 'allowed_values must not be empty'],
      [['a', 2], 'allowed_values must contain only non-empty strings'],
      [['a', ''], 'allowed_values must contain only non-empty strings'],
      [['a', '   '], 'allowed_values must contain only non-empty strings'],
      [['a', 'b', 'a'], 'allowed_values contains "a" more than once'],
      [['x'.repeat(201)], 'each allowed value must be at most 200 characters'],
      [Array.from({ length: 501 }, (_, i) => `v${i}`), 'allowed_values must have at most 500 entries'],
    ];
    for (const [values, message] of badAllowedValues) {
      it(`refuses allowed_values where: ${message}`, () => {
        expect(
          errorsOf(oneField({ type: 'multi_select', constraints: { allowed_values: values } })),
        ).to.deep.equal({
          'field_schema[0].constraints.allowed_values': [message],
        });
      });
    }

    const badLengths: Array<[Record<string, unknown>, string, string]> = [
      [{ min_length: -1 }, 'min_length', 'min_length must be a non-negative integer'],
      [{ max_length: 2.5 }, 'max_length', 'max_length must be a non-negative integer'],
      [{ max_length: '10' }, 'max_length', 'max_length must be a non-negative integer'],
      [{ min_length: 5, max_length: 4 }, 'min_length', 'min_length must not be greater than max_length'],
      [{ max_length: 1001 }, 'max_length', 'max_length must be at most 1000 for text fields'],
      [{ min_length: 1001 }, 'min_length', 'min_length must be at most 1000 for text fields'],
    ];
    for (const [constraints, key, message] of badLengths) {
      it(`refuses text constraints ${JSON.stringify(constraints)}`, () => {
        expect(errorsOf(oneField({ constraints }))).to.deep.equal({
          [`field_schema[0].constraints.${key}`]: [message],
        });
      });
    }

    it('caps textarea lengths higher than text lengths', () => {
      expect(
        parseFieldSchema(oneField({ type: 'textarea', constraints: { max_length: 10000 } })).ok,
      ).to.equal(true);
      expect(errorsOf(oneField({ type: 'textarea', constraints: { max_length: 10001 } }))).to.deep.equal({
        'field_schema[0].constraints.max_length': ['max_length must be at most 10000 for textarea fields'],
      });
    });

    it('accepts equal min and max lengths', () => {
      expect(parseFieldSchema(oneField({ constraints: { min_length: 3, max_length: 3 } })).ok).to.equal(true);
    });

    const badValues: Array<[Record<string, unknown>, string, string]> = [
      [{ min_value: '1' }, 'min_value', 'min_value must be a number'],
      [{ max_value: true }, 'max_value', 'max_value must be a number'],
      [{ min_value: Infinity }, 'min_value', 'min_value must be a number'],
      [{ max_value: NaN }, 'max_value', 'max_value must be a number'],
      [{ min_value: 10, max_value: 9.99 }, 'min_value', 'min_value must not be greater than max_value'],
    ];
    for (const [constraints, key, message] of badValues) {
      it(`refuses number constraints ${JSON.stringify(constraints)}`, () => {
        expect(errorsOf(oneField({ type: 'number', constraints }))).to.deep.equal({
          [`field_schema[0].constraints.${key}`]: [message],
        });
      });
    }

    const badPatterns: Array<[unknown, string]> = [
      [42, 'pattern must be a string'],
      ['', 'pattern must not be empty'],
      ['[a-z', 'pattern is not a valid regular expression'],
      ['a{2', 'pattern is not a valid regular expression'],
      ['x'.repeat(501), 'pattern must be at most 500 characters'],
      ['a\u0000', 'pattern contains characters that are not allowed'],
      [
        '(a+)+',
        'pattern is unsafe: nested quantifiers or overlapping alternatives inside a repeated group can cause catastrophic backtracking',
      ],
      ['(a)\\1', 'pattern must not use backreferences'],
    ];
    for (const [pattern, message] of badPatterns) {
      it(`refuses the pattern ${JSON.stringify(pattern).slice(0, 40)}`, () => {
        expect(errorsOf(oneField({ constraints: { pattern } }))).to.deep.equal({
          'field_schema[0].constraints.pattern': [message],
        });
      });
    }
  });

  describe('default_value', () => {
    const violating: Array<[Record<string, unknown>, string[]]> = [
      [
        { type: 'text', constraints: { max_length: 3 }, default_value: 'toolong' },
        ['Field must be at most 3 characters'],
      ],
      [
        { type: 'text', constraints: { pattern: '[0-9]+' }, default_value: 'abc' },
        ['Field does not match the required format'],
      ],
      [{ type: 'number', constraints: { min_value: 1 }, default_value: 0 }, ['Field must be at least 1']],
      [{ type: 'number', default_value: '5' }, ['Field must be a number']],
      [
        { type: 'select', constraints: { allowed_values: ['a', 'b'] }, default_value: 'c' },
        ['Field must be one of: a, b'],
      ],
      [
        { type: 'multi_select', constraints: { allowed_values: ['a'] }, default_value: 'a' },
        ['Field must be an array of values'],
      ],
      [{ type: 'date', default_value: '2024-02-30' }, ['Field must be a valid date in YYYY-MM-DD format']],
      [{ type: 'boolean', default_value: 'true' }, ['Field must be true or false']],
      [{ type: 'email', default_value: 'nobody' }, ['Field must be a valid email address']],
      [{ type: 'url', default_value: 'ftp://x.example' }, ['Field must be a valid http or https URL']],
      [{ type: 'text', required: true, default_value: '' }, ['Field is required']],
    ];
    for (const [entry, messages] of violating) {
      it(`refuses a ${String(entry.type)} default that breaks its own rules: ${JSON.stringify(entry.default_value)}`, () => {
        expect(errorsOf(oneField(entry))).to.deep.equal({ 'field_schema[0].default_value': messages });
      });
    }

    it('does not judge the default while the constraints themselves are wrong', () => {
      expect(errorsOf(oneField({ type: 'select', default_value: 'x' }))).to.deep.equal({
        'field_schema[0].constraints.allowed_values': ['allowed_values is required for select fields'],
      });
    });
  });
});

import { expect } from 'chai';
import { type FieldSchema, parseFieldSchema, validateCustomFields } from '../../src/index.js';

/** A one-field schema named `f`, labelled `F`, validated the way a ticket type would be. */
function schemaOf(type: string, constraints: Record<string, unknown> = {}, required = false): FieldSchema {
  const result = parseFieldSchema([{ name: 'f', label: 'F', type, constraints, required }]);
  if (!result.ok) expect.fail(JSON.stringify(result.errors));
  return result.value;
}

/** What a ticket would store for `value`, or its messages. */
function check(
  schema: FieldSchema,
  value: unknown,
): { stored: unknown } | { messages: string[] | undefined } {
  const result = validateCustomFields(schema, { f: value });
  return result.ok ? { stored: result.value.f } : { messages: result.errors['custom_fields.f'] };
}

function accepts(schema: FieldSchema, values: unknown[]): void {
  for (const value of values)
    expect(check(schema, value), JSON.stringify(value)).to.deep.equal({ stored: value });
}

function refuses(schema: FieldSchema, values: unknown[], messages: string[]): void {
  for (const value of values) expect(check(schema, value), JSON.stringify(value)).to.deep.equal({ messages });
}

describe('custom field values by type', () => {
  describe('text', () => {
    it('accepts strings and refuses everything else', () => {
      accepts(schemaOf('text'), ['', 'hello', ' spaced ', 'line\nbreak', '😀']);
      refuses(schemaOf('text'), [1, true, [], {}, ['a']], ['F must be a string']);
    });

    it('counts length in code points, not UTF-16 units', () => {
      const schema = schemaOf('text', { min_length: 2, max_length: 3 });
      accepts(schema, ['ab', 'abc', '😀😀😀', 'e\u0301x']);
      refuses(schema, ['a', '😀'], ['F must be at least 2 characters']);
      refuses(schema, ['abcd', '😀😀😀😀'], ['F must be at most 3 characters']);
    });

    it('uses the singular for one character', () => {
      refuses(schemaOf('text', { min_length: 1 }), [''], ['F must be at least 1 character']);
    });

    it('caps text at 1000 characters even without max_length', () => {
      accepts(schemaOf('text'), ['x'.repeat(1000)]);
      refuses(schemaOf('text'), ['x'.repeat(1001)], ['F must be at most 1000 characters']);
    });

    it('requires the pattern to match the whole value', () => {
      const schema = schemaOf('text', { pattern: '[A-Z]{3}-\\d+' });
      accepts(schema, ['ABC-1', 'XYZ-12345']);
      refuses(
        schema,
        ['abc-1', 'xABC-1', 'ABC-1x', 'ABC-', 'ABC-1\n'],
        ['F does not match the required format'],
      );
    });

    it('anchors alternations as a whole, not only their first and last option', () => {
      const schema = schemaOf('text', { pattern: 'cat|dog' });
      accepts(schema, ['cat', 'dog']);
      refuses(schema, ['cats', 'hotdog', 'catdog'], ['F does not match the required format']);
    });

    it('matches patterns by code point (u flag)', () => {
      accepts(schemaOf('text', { pattern: '.' }), ['😀']);
      accepts(schemaOf('text', { pattern: '\\p{Lu}\\p{Ll}+' }), ['Émile']);
    });

    it('reports length and pattern problems together', () => {
      refuses(
        schemaOf('text', { min_length: 5, pattern: '[a-z]+' }),
        ['AB'],
        ['F must be at least 5 characters', 'F does not match the required format'],
      );
    });

    it('refuses characters PostgreSQL cannot store', () => {
      refuses(schemaOf('text'), ['a\u0000b', 'a\uDC00'], ['F contains characters that are not allowed']);
    });
  });

  describe('textarea', () => {
    it('accepts multi-line strings up to 10000 characters and applies min/max', () => {
      accepts(schemaOf('textarea'), ['one\ntwo', 'x'.repeat(10000)]);
      refuses(schemaOf('textarea'), ['x'.repeat(10001)], ['F must be at most 10000 characters']);
      refuses(schemaOf('textarea'), [12], ['F must be a string']);
      const bounded = schemaOf('textarea', { min_length: 3, max_length: 5 });
      refuses(bounded, ['ab'], ['F must be at least 3 characters']);
      refuses(bounded, ['abcdef'], ['F must be at most 5 characters']);
    });
  });

  describe('number', () => {
    it('accepts finite JSON numbers only', () => {
      accepts(schemaOf('number'), [0, -3, 2.5, 1e300, Number.MAX_SAFE_INTEGER]);
      refuses(schemaOf('number'), ['5', '', true, [], NaN, Infinity, -Infinity], ['F must be a number']);
    });

    it('applies min_value and max_value inclusively', () => {
      const schema = schemaOf('number', { min_value: 1, max_value: 10 });
      accepts(schema, [1, 10, 5.5]);
      refuses(schema, [0.999], ['F must be at least 1']);
      refuses(schema, [10.001], ['F must be at most 10']);
    });

    it('stores -0 as 0', () => {
      const result = validateCustomFields(schemaOf('number'), { f: -0 });
      expect(result.ok && Object.is(result.value.f, 0)).to.equal(true);
    });
  });

  describe('date', () => {
    it('accepts real calendar days in YYYY-MM-DD', () => {
      accepts(schemaOf('date'), ['2024-02-29', '2000-02-29', '0001-01-01', '9999-12-31', '2023-12-31']);
    });

    it('refuses impossible days and other shapes', () => {
      refuses(
        schemaOf('date'),
        [
          '2024-02-30',
          '2023-02-29',
          '1900-02-29',
          '2024-04-31',
          '2024-13-01',
          '2024-00-10',
          '2024-01-00',
          '0000-01-01',
          '2024-1-5',
          '20240105',
          '2024-01-05T00:00:00Z',
          ' 2024-01-05',
          '２０２４-01-05',
          20240105,
        ],
        ['F must be a valid date in YYYY-MM-DD format'],
      );
    });
  });

  describe('datetime', () => {
    it('normalises to UTC toISOString form', () => {
      const cases: Array<[string, string]> = [
        ['2024-05-01T09:30:00Z', '2024-05-01T09:30:00.000Z'],
        ['2024-05-01T09:30:00+02:00', '2024-05-01T07:30:00.000Z'],
        ['2024-05-01T23:30:00-05:30', '2024-05-02T05:00:00.000Z'],
        ['2024-05-01T09:30:00.5Z', '2024-05-01T09:30:00.500Z'],
        ['2024-05-01T09:30:00.123456789Z', '2024-05-01T09:30:00.123Z'],
        ['2024-02-29T00:00:00-00:00', '2024-02-29T00:00:00.000Z'],
        ['0050-06-15T12:00:00Z', '0050-06-15T12:00:00.000Z'],
      ];
      for (const [input, stored] of cases)
        expect(check(schemaOf('datetime'), input), input).to.deep.equal({ stored });
    });

    it('refuses anything but RFC 3339 with seconds and a zone, and impossible times', () => {
      refuses(
        schemaOf('datetime'),
        [
          '2024-05-01T09:30Z',
          '2024-05-01T09:30:00',
          '2024-05-01 09:30:00Z',
          '2024-05-01t09:30:00z',
          '2024-05-01T09:30:00+0200',
          '2024-05-01T09:30:00+02',
          '2024-05-01T24:00:00Z',
          '2024-05-01T09:60:00Z',
          '2024-05-01T09:30:60Z',
          '2024-02-30T09:30:00Z',
          '2024-05-01T09:30:00+24:00',
          '2024-05-01T09:30:00.Z',
          '0001-01-01T00:00:00+01:00',
          '2024-05-01',
          1714555800000,
        ],
        ['F must be a valid date-time with seconds and a time zone, e.g. 2024-05-01T09:30:00Z'],
      );
    });
  });

  describe('select', () => {
    it('accepts exactly one of allowed_values', () => {
      const schema = schemaOf('select', { allowed_values: ['low', 'high'] });
      accepts(schema, ['low', 'high']);
      refuses(schema, ['Low', 'medium', ' low', ['low'], 1], ['F must be one of: low, high']);
    });

    it('does not list a long set of allowed values', () => {
      const schema = schemaOf('select', { allowed_values: Array.from({ length: 21 }, (_, i) => `v${i}`) });
      refuses(schema, ['x'], ['F must be one of the allowed values']);
    });
  });

  describe('multi_select', () => {
    const schema = schemaOf('multi_select', { allowed_values: ['a', 'b', 'c'] });

    it('accepts arrays of unique allowed values, including an empty array', () => {
      accepts(schema, [[], ['a'], ['c', 'a'], ['a', 'b', 'c']]);
    });

    it('refuses non-arrays, unknown values and duplicates', () => {
      refuses(schema, ['a', {}, 1], ['F must be an array of values']);
      refuses(schema, [['a', 'd'], [1], [null]], ['F may only contain: a, b, c']);
      refuses(schema, [['a', 'a']], ['F must not contain duplicate values']);
      refuses(schema, [['d', 'd']], ['F may only contain: a, b, c', 'F must not contain duplicate values']);
    });

    it('refuses an empty array on a required field', () => {
      const required = schemaOf('multi_select', { allowed_values: ['a'] }, true);
      refuses(required, [[]], ['F is required']);
    });
  });

  describe('boolean', () => {
    it('accepts true and false only', () => {
      accepts(schemaOf('boolean'), [true, false]);
      refuses(schemaOf('boolean'), ['true', 1, 0, 'yes', []], ['F must be true or false']);
    });

    it('counts false as a value for a required field', () => {
      accepts(schemaOf('boolean', {}, true), [false]);
    });
  });

  describe('email', () => {
    it('accepts ordinary addresses', () => {
      accepts(schemaOf('email'), [
        'user@example.com',
        'first.last+tag@sub.example.co.uk',
        "o'brien@example.ie",
        'x@a-b.io',
        `${'l'.repeat(64)}@example.com`,
        `a@${'d'.repeat(63)}.${'e'.repeat(63)}.${'f'.repeat(63)}.${'g'.repeat(60)}`,
      ]);
    });

    it('refuses malformed, dotless-domain and over-long addresses', () => {
      refuses(
        schemaOf('email'),
        [
          'plainaddress',
          '@example.com',
          'user@',
          'user@localhost',
          'user@@example.com',
          'us er@example.com',
          'user@exa mple.com',
          'user@-example.com',
          'user@example-.com',
          'user@example..com',
          ' user@example.com',
          'user@example.com ',
          'user@exämple.com',
          `${'l'.repeat(65)}@example.com`,
          `a@${'d'.repeat(63)}.${'e'.repeat(63)}.${'f'.repeat(63)}.${'g'.repeat(61)}`,
          42,
        ],
        ['F must be a valid email address'],
      );
    });
  });

  describe('url', () => {
    it('accepts absolute http and https URLs', () => {
      accepts(schemaOf('url'), [
        'https://example.com',
        'http://example.com:8080/path?q=1#frag',
        'https://user@example.com/x',
        'https://[::1]/',
        `https://example.com/${'p'.repeat(2048 - 20)}`,
      ]);
    });

    it('refuses other schemes, relative URLs, whitespace and over-long URLs', () => {
      refuses(
        schemaOf('url'),
        [
          'ftp://example.com',
          'javascript:alert(1)',
          'mailto:a@example.com',
          'file:///etc/passwd',
          '/relative/path',
          'example.com',
          'https://',
          'http://exa mple.com',
          'https://example.com/\tx',
          ' https://example.com',
          'https://example.com\n',
          `https://example.com/${'p'.repeat(2048 - 19)}`,
          7,
        ],
        ['F must be a valid http or https URL'],
      );
    });
  });

  describe('blank strings on required fields', () => {
    for (const [type, constraints] of [
      ['text', {}],
      ['textarea', {}],
      ['email', {}],
      ['url', {}],
      ['date', {}],
      ['select', { allowed_values: ['a'] }],
    ] as const) {
      it(`reads '' and whitespace as missing for a required ${type} field`, () => {
        refuses(schemaOf(type, constraints, true), ['', '   '], ['F is required']);
      });
    }
  });
});

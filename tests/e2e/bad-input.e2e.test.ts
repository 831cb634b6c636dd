/**
 * The bad-input sweep, driven by the served OpenAPI document (GET {app}/api/openapi), so a new
 * route is swept as soon as it is documented. Against the real fleet, for every operation: bad path
 * parameters, bad and unknown query parameters, malformed and mistyped JSON bodies, huge strings,
 * Unicode oddities, overlong numbers (beyond 2^53 and 2^63 too), invalid UTF-8 bytes, duplicate
 * keys, nesting 10,000 and 100,000 levels deep (with and without an Idempotency-Key), and what a
 * hostile client does to uploads: truncated, unterminated, boundary-less, oversized and many-part
 * multipart bodies, sent byte for byte, trickled a few bytes at a time and abandoned mid-body.
 *
 * Every answer must come in time, carry X-Correlation-ID, never be a 5xx, use a status the document
 * lists for the operation, and be the spec's envelope (`ok: false`, `error.code` = status) when it
 * is an error. Input that is plainly invalid must get a 4xx. After EVERY request the fleet must still
 * be alive (no process exit, /healthz 200): a request that kills a process is reported by name, with
 * the requests in flight around it, and the round stops there (support/sweep.ts). Problems are
 * collected and reported together, each with the route, the input and the answer.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import {
  jsonSchemaOf,
  loadOperations,
  parametersOf,
  spliceRaw,
  Sweep,
  typesOf,
  type Attempt,
  type JsonSchema,
  type RawDelivery,
  type SweepTarget,
  type SweptOperation,
  prepareTarget,
} from '../support/sweep.js';

// ---- bad values --------------------------------------------------------------------------------------

/** Path segments no id can be (percent-encoded as they travel). */
const BAD_ID_SEGMENTS = [
  '0',
  '-1',
  '1.5',
  '1e3',
  '0x1A',
  '2147483648',
  '99999999999999999999999999999999',
  'abc',
  '%00',
  '%E2%80%8F1', // RTL mark, then 1
  '%F0%9F%98%80', // emoji
  '%20',
  '%E0%A4%A', // broken percent-encoding
  '9'.repeat(5_000),
];
// A bare `%2E%2E` segment is a dot-segment to the WHATWG URL parser: fetch would resolve it away and
// send another path. `..%2F..` is not one, so the server really receives a traversal attempt.
const BAD_TEXT_SEGMENTS = ['%00', '%F0%9F%98%80', '%E0%A4%A', 'x'.repeat(5_000), '..%2F..'];

/** Query values no integer parameter accepts. */
const BAD_INTEGER_VALUES = ['0', '-1', '1.5', 'abc', '9'.repeat(40), '', '%00', '1%20OR%201=1'];
const BAD_ENUM_VALUES = ['NOPE', '%00', '', '%F0%9F%98%80'];
const ODD_TEXT_VALUES = ['%00', '%E2%80%AEevil', '%F0%9F%98%80', 'x'.repeat(10_000), '%E0%A4%A'];

const MALFORMED_JSON = ['{"title": ', '{', 'nul', '{"a":1}}', "{'a':1}", '[1,2', '{"a":"\\ud800'];
const NOT_OBJECTS = ['null', '[]', '"text"', '42', 'true'];

/** Integers no JS number holds exactly, and beyond int64 (raw JSON text: they must reach the parser as written). */
const BEYOND_2_53 = [
  '9007199254740993', // 2^53 + 1
  '-9007199254740993',
  '9223372036854775807', // 2^63 - 1
  '9223372036854775808', // 2^63
  '-9223372036854775809', // -2^63 - 1
  '18446744073709551616', // 2^64
];
/** Raw JSON numbers for integer fields. */
const OVERLONG_NUMBERS = [
  '123456789012345678901234567890',
  '1e400',
  '-0',
  '0.0000001',
  '2147483648',
  ...BEYOND_2_53,
];

/** Strings that are valid JSON but odd (raw JSON text, so lone surrogates stay escaped). */
const ODD_STRINGS = [
  '"\\u0000"',
  '"\\ud800"',
  '"\\udc00x\\ud800"',
  '"\\u202eevil\\u202c"',
  '"😀🎉👩‍💻"',
  '"\\ufeff\\u200b"',
];

/** Byte sequences that are not UTF-8 (RFC 3629). */
const INVALID_UTF8: [string, number[]][] = [
  ['0xFF', [0xff]],
  ['overlong "/"', [0xc0, 0xaf]],
  ['UTF-8-encoded surrogate', [0xed, 0xa0, 0x80]],
  ['lone continuation byte', [0x80]],
  ['truncated 3-byte sequence', [0xe2, 0x82]],
  ['beyond U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
];

/** Deeper than any parser, validator or serializer should have to walk (the gateway's limit is far below). */
const NESTING_DEPTHS = [10_000, 100_000];
const NESTING_SHAPES = ['object', 'array'] as const;
const nestedCache = new Map<string, string>();
function nested(shape: 'object' | 'array', depth: number): string {
  const key = `${shape}:${depth}`;
  let text = nestedCache.get(key);
  if (text === undefined) {
    text =
      shape === 'object'
        ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`
        : `${'['.repeat(depth)}1${']'.repeat(depth)}`;
    nestedCache.set(key, text);
  }
  return text;
}

const UNKNOWN_PROPERTY = 'zzz_unknown';

function wrongTypes(schema: JsonSchema): unknown[] {
  const types = typesOf(schema);
  if (types.includes('string')) return [12345, true, {}, ['x']];
  if (types.includes('integer') || types.includes('number')) return ['abc', '1', 1.5, -1, true, 1e30, {}];
  if (types.includes('array')) return ['x', {}, 5, [{}], [null]];
  if (types.includes('object')) return ['x', [], 5];
  if (types.includes('boolean')) return ['yes', 1, 'true'];
  return [];
}

/** A value the schema accepts (as far as its type and bounds tell). */
function sampleValue(schema: JsonSchema): unknown {
  const enumValue = schema.enum?.find((value) => value !== null);
  if (enumValue !== undefined) return enumValue;
  const types = typesOf(schema);
  if (types.includes('string')) return schema.pattern === '^[0-9]+$' ? '1' : 'x';
  if (types.includes('integer') || types.includes('number')) return Math.max(1, schema.minimum ?? 1);
  if (types.includes('boolean')) return true;
  if (types.includes('array')) return schema.minItems ? [sampleValue(schema.items ?? {})] : [];
  if (types.includes('object')) return {};
  return null;
}

function isTextField(schema: JsonSchema): boolean {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return types.includes('string') && schema.enum === undefined;
}

function isIntegerField(schema: JsonSchema): boolean {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return types.includes('integer');
}

/** True when no value beyond 2^53 can satisfy the schema (not a number, or a number with a small maximum). */
function refusesHugeNumbers(schema: JsonSchema): boolean {
  const types = typesOf(schema);
  if (types.length === 0) return false;
  if (!types.includes('integer') && !types.includes('number')) return true;
  return schema.maximum !== undefined && schema.maximum < 2 ** 53;
}

// ---- multipart bodies a hostile client sends -----------------------------------------------------------

const BOUNDARY = 'XYZ';
const MULTIPART_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;
const FILE_PART_HEAD =
  '--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n';
const COMPLETE_UPLOAD = `${FILE_PART_HEAD}hello world\r\n--XYZ--\r\n`;
/** The body: a file part and no closing boundary. */
const TRUNCATED_UPLOAD = `${FILE_PART_HEAD}hello world`;

interface UploadCase {
  label: string;
  body: string | Buffer;
  contentType?: string;
  invalid: boolean;
  raw?: RawDelivery;
  expectStatus?: number;
}

function uploadCases(): UploadCase[] {
  const fields = (count: number) =>
    Array.from(
      { length: count },
      (_, i) => `--XYZ\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\nv\r\n`,
    ).join('');
  const fileParts = (count: number) =>
    Array.from(
      { length: count },
      (_, i) =>
        `--XYZ\r\nContent-Disposition: form-data; name="file"; filename="f${i}.txt"\r\nContent-Type: text/plain\r\n\r\nx\r\n`,
    ).join('');
  const headerLines = (count: number) => Array.from({ length: count }, (_, i) => `X-H${i}: v\r\n`).join('');
  const padding = 'a'.repeat(100 * 1024);
  const longBoundary = 'b'.repeat(200);
  return [
    // truncated: the body ends inside a part
    { label: 'truncated: file part, no closing boundary', body: TRUNCATED_UPLOAD, invalid: true },
    {
      label: 'truncated: file part and CRLF, no closing boundary',
      body: `${TRUNCATED_UPLOAD}\r\n`,
      invalid: true,
    },
    { label: 'truncated inside the closing boundary', body: `${TRUNCATED_UPLOAD}\r\n--XY`, invalid: true },
    {
      label: 'closing boundary without its final dashes',
      body: `${TRUNCATED_UPLOAD}\r\n--XYZ\r\n`,
      invalid: true,
    },
    {
      label: 'truncated: text field part only',
      body: '--XYZ\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello',
      invalid: true,
    },
    {
      label: 'truncated in a text field after the file',
      body: `${TRUNCATED_UPLOAD}\r\n--XYZ\r\nContent-Disposition: form-data; name="note"\r\n\r\nhel`,
      invalid: true,
    },
    { label: 'opening boundary only', body: '--XYZ', invalid: true },
    { label: 'opening boundary and CRLF only', body: '--XYZ\r\n', invalid: true },
    { label: 'empty body', body: '', invalid: true },
    {
      label: 'truncated, chunked transfer encoding',
      body: TRUNCATED_UPLOAD,
      invalid: true,
      raw: { contentLength: 'chunked' },
    },
    // unterminated part headers
    {
      label: 'unterminated part headers at the end of the body',
      body: '--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain',
      invalid: true,
    },
    {
      label: 'unterminated part headers, then the closing boundary',
      body: '--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n--XYZ--\r\n',
      invalid: true,
    },
    {
      label: 'part header line without a colon',
      body: '--XYZ\r\nContent-Disposition form-data; name="file"\r\n\r\nhello\r\n--XYZ--\r\n',
      invalid: true,
    },
    {
      label: 'part without Content-Disposition',
      body: '--XYZ\r\nContent-Type: text/plain\r\n\r\nhello\r\n--XYZ--\r\n',
      invalid: true,
    },
    // boundary-less
    {
      label: 'no boundary parameter',
      body: COMPLETE_UPLOAD,
      contentType: 'multipart/form-data',
      invalid: true,
    },
    {
      label: 'empty boundary',
      body: COMPLETE_UPLOAD,
      contentType: 'multipart/form-data; boundary=',
      invalid: true,
    },
    {
      label: 'quoted empty boundary',
      body: COMPLETE_UPLOAD,
      contentType: 'multipart/form-data; boundary=""',
      invalid: true,
    },
    {
      label: 'body without the declared boundary',
      body: COMPLETE_UPLOAD.replaceAll('XYZ', 'ABC'),
      invalid: true,
    },
    {
      label: 'boundary of 200 characters (RFC 2046: at most 70)',
      body: COMPLETE_UPLOAD.replaceAll('XYZ', longBoundary),
      contentType: `multipart/form-data; boundary=${longBoundary}`,
      invalid: false,
    },
    // oversized part headers
    {
      label: 'oversized part header (100 KB header line)',
      body: COMPLETE_UPLOAD.replace(
        'Content-Type: text/plain\r\n',
        `Content-Type: text/plain\r\nX-Padding: ${padding}\r\n`,
      ),
      invalid: true,
    },
    {
      label: 'oversized part header (100 KB filename)',
      body: COMPLETE_UPLOAD.replace('filename="a.txt"', `filename="${padding}.txt"`),
      invalid: true,
    },
    {
      label: 'oversized part header, truncated',
      body: `--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nX-Padding: ${padding}`,
      invalid: true,
    },
    {
      label: '3,000 header lines in the file part',
      body: COMPLETE_UPLOAD.replace(
        'Content-Type: text/plain\r\n',
        `Content-Type: text/plain\r\n${headerLines(3_000)}`,
      ),
      invalid: false,
    },
    // many parts
    {
      label: '5,000 small fields, then the file',
      body: `${fields(5_000)}${COMPLETE_UPLOAD}`,
      invalid: false,
    },
    {
      label: 'the file, then 5,000 small fields',
      body: `${FILE_PART_HEAD}hello world\r\n${fields(5_000)}--XYZ--\r\n`,
      invalid: false,
    },
    { label: '2,000 file parts', body: `${fileParts(2_000)}--XYZ--\r\n`, invalid: true },
    { label: '5,000 empty parts', body: `${'--XYZ\r\n\r\n\r\n'.repeat(5_000)}--XYZ--\r\n`, invalid: true },
    { label: '5,000 small fields, truncated', body: fields(5_000), invalid: true },
  ];
}

/** Uploads sent slowly: finished, or abandoned with the socket destroyed mid-body. */
function slowUploadCases(): UploadCase[] {
  const trickle = { bytes: 3, everyMs: 10 };
  const inHeaders = FILE_PART_HEAD.indexOf('filename');
  const inData = FILE_PART_HEAD.length + 5;
  return [
    {
      label: 'a whole upload, trickled',
      body: COMPLETE_UPLOAD,
      invalid: false,
      raw: { trickle },
      expectStatus: 201,
    },
    { label: 'truncated, trickled', body: TRUNCATED_UPLOAD, invalid: true, raw: { trickle } },
    ...Object.entries({
      'in the opening boundary': 2,
      'in the part headers': inHeaders,
      'in the file data': inData,
      'before the closing boundary': COMPLETE_UPLOAD.length - 4,
    }).map(([where, after]): UploadCase => ({
      label: `trickled, abandoned ${where}`,
      body: COMPLETE_UPLOAD,
      invalid: false,
      raw: { trickle, abandonAfter: after },
    })),
    {
      label: 'trickled with chunked encoding, abandoned in the file data',
      body: COMPLETE_UPLOAD,
      invalid: false,
      raw: { trickle, abandonAfter: inData, contentLength: 'chunked' },
    },
    {
      label: 'Content-Length 1 MB, 64 KB sent, abandoned',
      body: Buffer.concat([Buffer.from(FILE_PART_HEAD), Buffer.alloc(64 * 1024, 0x61)]),
      invalid: false,
      raw: { contentLength: 1024 * 1024, abandonAfter: FILE_PART_HEAD.length + 64 * 1024 },
    },
    {
      label: 'abandoned in the request head',
      body: COMPLETE_UPLOAD,
      invalid: false,
      raw: { trickle: { bytes: 16, everyMs: 10 }, abandonHeadAfter: 120 },
    },
  ];
}

// ---- the sweep -----------------------------------------------------------------------------------

describe('bad input, for every operation of the OpenAPI document', function () {
  this.timeout(600_000);
  let swept: SweptOperation[];
  let target: SweepTarget;
  const sweep = new Sweep(() => target);
  let startedAt = Date.now();

  before(async () => {
    startedAt = Date.now();
    swept = await loadOperations();
    target = await prepareTarget();
  });

  beforeEach(async () => {
    await sweep.begin();
  });

  after(async () => {
    // However the test ended (a timeout or a failure leaves its requests running): the last one
    // answered before the shared state is undone.
    await sweep.end();
    await target?.restoreSharedState();
    // One line for the run's log: how much was sent.
    process.stderr.write(
      `      bad-input sweep: ${sweep.sent} requests over ${swept?.length ?? 0} operations in ` +
        `${((Date.now() - startedAt) / 1000).toFixed(1)} s; answers ${sweep.statusSummary()}\n`,
    );
  });

  const jsonOperations = () => swept.filter((entry) => jsonSchemaOf(entry) !== undefined);

  /** An attempt with a JSON body at the operation's usual path. */
  function jsonAttempt(
    entry: SweptOperation,
    label: string,
    body: string | Buffer,
    invalid: boolean,
    extra: Partial<Attempt> = {},
  ): Attempt {
    return {
      label,
      swept: entry,
      method: entry.method,
      path: target.pathWith(entry),
      headers: { 'content-type': 'application/json' },
      body,
      invalid,
      ...extra,
    };
  }

  /** Each upload case sent to every multipart operation at its usual path. */
  function uploadAttempts(cases: UploadCase[]): Attempt[] {
    const uploads = swept.filter((entry) => entry.operation.requestBody?.content['multipart/form-data']);
    return uploads.flatMap((entry) =>
      cases.map((upload): Attempt => ({
        label: upload.label,
        swept: entry,
        method: entry.method,
        path: target.pathWith(entry),
        headers: { 'content-type': upload.contentType ?? MULTIPART_TYPE },
        body: upload.body,
        invalid: upload.invalid,
        raw: upload.raw ?? {},
        ...(upload.expectStatus ? { expectStatus: upload.expectStatus } : {}),
      })),
    );
  }

  it('answers bad path parameters with 400-class envelopes', async () => {
    const attempts: Attempt[] = [];
    for (const entry of swept) {
      for (const parameter of parametersOf(entry.operation).filter((candidate) => candidate.in === 'path')) {
        const values = parameter.schema?.type === 'integer' ? BAD_ID_SEGMENTS : BAD_TEXT_SEGMENTS;
        for (const value of values) {
          attempts.push({
            label: `path ${parameter.name}`,
            swept: entry,
            method: entry.method,
            path: target.pathWith(entry, { [parameter.name]: value }),
            invalid: true,
            ...(jsonSchemaOf(entry)
              ? {
                  headers: { 'content-type': 'application/json' },
                  body: JSON.stringify(target.baseBody(entry) ?? {}),
                }
              : {}),
          });
        }
      }
    }
    expect(attempts.length).to.be.greaterThan(100);
    await sweep.runAll(attempts);
    sweep.assertClean();
  });

  it('answers bad and unknown query parameters without a 5xx', async () => {
    const attempts: Attempt[] = [];
    for (const entry of swept) {
      const path = target.pathWith(entry);
      attempts.push({
        label: 'unknown query parameters',
        swept: entry,
        method: entry.method,
        path,
        query: 'zzz_unknown=1&__proto__=x&constructor%5Bprototype%5D=1&toString=1&%00=%00',
        invalid: false,
      });
      for (const parameter of parametersOf(entry.operation).filter((candidate) => candidate.in === 'query')) {
        const schema = parameter.schema ?? {};
        const integer = schema.type === 'integer';
        const values = integer ? BAD_INTEGER_VALUES : schema.enum ? BAD_ENUM_VALUES : ODD_TEXT_VALUES;
        for (const value of values) {
          attempts.push({
            label: `query ${parameter.name}`,
            swept: entry,
            method: entry.method,
            path,
            query: `${parameter.name}=${value}`,
            // A project-scoped key ignores `project`; odd text may be a fine search.
            invalid: integer || schema.enum !== undefined,
          });
        }
        attempts.push({
          label: `query ${parameter.name} given twice`,
          swept: entry,
          method: entry.method,
          path,
          query: `${parameter.name}=1&${parameter.name}=2`,
          invalid: integer,
        });
      }
    }
    await sweep.runAll(attempts);
    sweep.assertClean();
  });

  it('answers malformed, mistyped, huge and odd JSON bodies without a 5xx', async () => {
    const attempts: Attempt[] = [];
    for (const entry of jsonOperations()) {
      const attempt = (label: string, body: string, invalid: boolean, contentType = 'application/json') =>
        jsonAttempt(entry, label, body, invalid, { headers: { 'content-type': contentType } });
      for (const text of MALFORMED_JSON) attempts.push(attempt('malformed JSON', text, true));
      for (const text of NOT_OBJECTS) attempts.push(attempt('not an object', text, true));
      attempts.push(attempt('not JSON', JSON.stringify(target.baseBody(entry)), true, 'text/plain'));
      attempts.push(attempt('too large', JSON.stringify({ padding: 'x'.repeat(2 * 1024 * 1024) }), true));

      const base = target.baseBody(entry) ?? {};
      const withValue = (field: string, value: unknown) => JSON.stringify({ ...base, [field]: value });
      for (const [field, schema] of Object.entries(jsonSchemaOf(entry)?.properties ?? {})) {
        for (const value of wrongTypes(schema)) {
          attempts.push(attempt(`${field} of a wrong type`, withValue(field, value), true));
        }
        if (isTextField(schema) || schema.type === 'array') {
          const huge = 'x'.repeat(100_000);
          attempts.push(
            attempt(`${field} huge`, withValue(field, schema.type === 'array' ? [huge] : huge), true),
          );
        }
        if (isTextField(schema)) {
          for (const raw of ODD_STRINGS)
            attempts.push(attempt(`${field} odd text`, spliceRaw(base, field, raw), false));
        }
        if (isIntegerField(schema)) {
          for (const raw of OVERLONG_NUMBERS) {
            // -0 is a fine 0 where 0 is allowed (assigned_to: unassign); the rest is never an id.
            attempts.push(attempt(`${field} overlong number`, spliceRaw(base, field, raw), raw !== '-0'));
          }
        }
      }
    }
    expect(attempts.length).to.be.greaterThan(200);
    await sweep.runAll(attempts);
    sweep.assertClean();
  });

  it('answers JSON nested 10,000 and 100,000 levels deep in every field, with and without an Idempotency-Key, with a 4xx', async () => {
    const attempts: Attempt[] = [];
    for (const entry of jsonOperations()) {
      const base = target.baseBody(entry) ?? {};
      const fields = [...Object.keys(jsonSchemaOf(entry)?.properties ?? {}), UNKNOWN_PROPERTY];
      const keyed = entry.method === 'POST' ? [false, true] : [false];
      for (const depth of NESTING_DEPTHS) {
        for (const shape of NESTING_SHAPES) {
          const deep = nested(shape, depth);
          for (const idempotent of keyed) {
            const extra = (where: string): Partial<Attempt> => ({
              headers: {
                'content-type': 'application/json',
                ...(idempotent ? { 'idempotency-key': randomUUID() } : {}),
              },
              summary: where,
            });
            const suffix = idempotent ? ', with an Idempotency-Key' : '';
            for (const field of fields) {
              const where = `{..., "${field}": <${depth} nested ${shape}s>}`;
              attempts.push(
                jsonAttempt(
                  entry,
                  `${field} nested ${depth} deep${suffix}`,
                  spliceRaw(base, field, deep),
                  true,
                  extra(where),
                ),
              );
            }
            attempts.push(
              jsonAttempt(
                entry,
                `the body nested ${depth} deep${suffix}`,
                deep,
                true,
                extra(`<${depth} nested ${shape}s>`),
              ),
            );
          }
        }
      }
    }
    expect(attempts.length).to.be.greaterThan(250);
    await sweep.runAll(attempts);
    sweep.assertClean();
  });

  it('answers numbers beyond 2^53 and 2^63, invalid UTF-8 and duplicate keys without a 5xx', async () => {
    const attempts: Attempt[] = [];
    for (const entry of jsonOperations()) {
      const base = target.baseBody(entry) ?? {};
      const properties = Object.entries(jsonSchemaOf(entry)?.properties ?? {});

      // Numbers no JS number holds, in every field, inside an array, custom_fields and an unknown property.
      for (const raw of BEYOND_2_53) {
        for (const [field, schema] of properties) {
          if (isIntegerField(schema)) continue; // with the overlong numbers above
          attempts.push(
            jsonAttempt(entry, `${field}: ${raw}`, spliceRaw(base, field, raw), refusesHugeNumbers(schema)),
          );
          if (typesOf(schema).includes('array')) {
            const invalid = refusesHugeNumbers(schema.items ?? {});
            attempts.push(
              jsonAttempt(entry, `${field}: [${raw}]`, spliceRaw(base, field, `[${raw}]`), invalid),
            );
          }
          if (typesOf(schema).includes('object')) {
            attempts.push(
              jsonAttempt(entry, `${field}: {"n": ${raw}}`, spliceRaw(base, field, `{"n":${raw}}`), false),
            );
          }
        }
        attempts.push(
          jsonAttempt(entry, `unknown property: ${raw}`, spliceRaw(base, UNKNOWN_PROPERTY, raw), false),
        );
      }

      // Bytes that are not UTF-8: inside string values, in a key, between tokens.
      const withBytes = (field: string, bytes: number[]) => {
        const marker = '__BYTES__';
        const [before, after] = JSON.stringify({ ...base, [field]: `x${marker}x` }).split(marker) as [
          string,
          string,
        ];
        return Buffer.concat([Buffer.from(before), Buffer.from(bytes), Buffer.from(after)]);
      };
      for (const [field] of properties.filter(([, schema]) => isTextField(schema))) {
        for (const [name, bytes] of INVALID_UTF8.slice(0, 3)) {
          attempts.push(
            jsonAttempt(entry, `${field} with invalid UTF-8 (${name})`, withBytes(field, bytes), true),
          );
        }
      }
      for (const [name, bytes] of INVALID_UTF8) {
        attempts.push(
          jsonAttempt(
            entry,
            `unknown property with invalid UTF-8 (${name})`,
            withBytes(UNKNOWN_PROPERTY, bytes),
            true,
            {
              headers: { 'content-type': 'application/json; charset=utf-8' },
            },
          ),
        );
      }
      const text = JSON.stringify({ ...base, [UNKNOWN_PROPERTY]: 1 });
      attempts.push(
        jsonAttempt(
          entry,
          'a key with invalid UTF-8',
          Buffer.concat([
            Buffer.from(text.slice(0, -1)),
            Buffer.from(',"k'),
            Buffer.from([0xff]),
            Buffer.from('":1}'),
          ]),
          true,
        ),
      );
      attempts.push(
        jsonAttempt(
          entry,
          'invalid UTF-8 between tokens',
          Buffer.concat([Buffer.from(text.slice(0, -1)), Buffer.from([0xff]), Buffer.from('}')]),
          true,
        ),
      );
      // Other encodings: declared, or a UTF-8 byte order mark.
      attempts.push(
        jsonAttempt(entry, 'UTF-16 with its charset', Buffer.from(text, 'utf16le'), false, {
          headers: { 'content-type': 'application/json; charset=utf-16le' },
        }),
      );
      attempts.push(
        jsonAttempt(
          entry,
          'Latin-1 with its charset',
          Buffer.from(JSON.stringify({ ...base, [UNKNOWN_PROPERTY]: 'café' }), 'latin1'),
          false,
          {
            headers: { 'content-type': 'application/json; charset=iso-8859-1' },
          },
        ),
      );
      attempts.push(
        jsonAttempt(
          entry,
          'UTF-8 byte order mark',
          Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]),
          false,
        ),
      );

      // Duplicate keys: a valid value and a wrong one, both orders (the answer may be 2xx or 4xx).
      for (const [field, schema] of properties) {
        const good = JSON.stringify(base[field] ?? sampleValue(schema));
        const bad = JSON.stringify(wrongTypes(schema)[0] ?? 'x');
        const rest = { ...base };
        delete rest[field];
        const prefix = JSON.stringify(rest).slice(0, -1) + (Object.keys(rest).length ? ',' : '');
        for (const [first, second] of [
          [good, bad],
          [bad, good],
        ]) {
          attempts.push(
            jsonAttempt(
              entry,
              `${field} given twice`,
              `${prefix}"${field}":${first},"${field}":${second}}`,
              false,
            ),
          );
        }
      }
      const prefix = JSON.stringify(base).slice(0, -1) + (Object.keys(base).length ? ',' : '');
      attempts.push(
        jsonAttempt(
          entry,
          'unknown property given twice',
          `${prefix}"${UNKNOWN_PROPERTY}":1,"${UNKNOWN_PROPERTY}":{}}`,
          false,
        ),
      );
      attempts.push(
        jsonAttempt(
          entry,
          '__proto__ given twice',
          `${prefix}"__proto__":{"admin":true},"__proto__":{"role":"admin"}}`,
          false,
        ),
      );
      attempts.push(
        jsonAttempt(
          entry,
          'constructor.prototype',
          `${prefix}"constructor":{"prototype":{"admin":true}}}`,
          false,
        ),
      );
    }
    expect(attempts.length).to.be.greaterThan(300);
    await sweep.runAll(attempts);
    sweep.assertClean();
  });

  it('answers broken and odd uploads without a 5xx', async () => {
    const uploads = swept.filter((entry) => entry.operation.requestBody?.content['multipart/form-data']);
    expect(uploads.length).to.be.greaterThan(0);
    const attempts: Attempt[] = [];
    for (const entry of uploads) {
      const path = target.pathWith(entry);
      const form = (build: (form: FormData) => void) => {
        const data = new FormData();
        build(data);
        return data;
      };
      const file = () => new Blob([Buffer.from('hello\n')], { type: 'text/plain' });
      const cases: [string, Attempt['body'], Record<string, string> | undefined, boolean][] = [
        ['JSON instead of a form', '{"file":"x"}', { 'content-type': 'application/json' }, true],
        ['no file', form((data) => data.append('note', 'x')), undefined, true],
        [
          'two files',
          form((data) => {
            data.append('file', file(), 'a.txt');
            data.append('file', file(), 'b.txt');
          }),
          undefined,
          true,
        ],
        ['file in another field', form((data) => data.append('upload', file(), 'a.txt')), undefined, true],
        [
          'broken multipart',
          '--x\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nhello',
          { 'content-type': 'multipart/form-data; boundary=y' },
          true,
        ],
        ['multipart without boundary', 'hello', { 'content-type': 'multipart/form-data' }, true],
      ];
      for (const name of [
        '\u0000.txt',
        '\u202etxt.exe',
        '😀.txt',
        '\ud800.txt',
        `${'a'.repeat(5_000)}.txt`,
        '../../etc/passwd',
        '',
      ]) {
        cases.push([
          `filename ${JSON.stringify(name.slice(0, 20))}`,
          form((data) => data.append('file', file(), name)),
          undefined,
          false,
        ]);
      }
      for (const [label, body, headers, invalid] of cases) {
        attempts.push({
          label,
          swept: entry,
          method: entry.method,
          path,
          body,
          invalid,
          ...(headers ? { headers } : {}),
        });
      }
    }
    await sweep.runAll(attempts);
    sweep.assertClean();
  });

  it('answers truncated, unterminated, boundary-less, oversized and many-part multipart bodies without a 5xx (the broken ones with a 4xx)', async () => {
    const attempts = uploadAttempts(uploadCases());
    expect(attempts.length).to.be.greaterThan(20);
    await sweep.runAll(attempts);
    sweep.assertClean();
  });

  it('outlives bodies trickled a few bytes at a time, finished or abandoned mid-body', async () => {
    const attempts = uploadAttempts(slowUploadCases());
    // A JSON body of every operation that has one, trickled and abandoned halfway.
    for (const entry of jsonOperations()) {
      const body = JSON.stringify(target.baseBody(entry) ?? { a: 1 });
      attempts.push(
        jsonAttempt(entry, 'JSON trickled, abandoned halfway', body, false, {
          raw: { trickle: { bytes: 4, everyMs: 10 }, abandonAfter: Math.floor(body.length / 2) },
        }),
      );
    }
    await sweep.runAll(attempts);
    sweep.assertClean();
  });
});

/**
 * The bad-input sweep, driven by the served OpenAPI document (GET {app}/api/openapi), so a new
 * route is swept as soon as it is documented. Against the real fleet, for every operation: bad path
 * parameters, bad and unknown query parameters, malformed and mistyped JSON bodies, huge strings,
 * Unicode oddities and overlong numbers, and broken multipart uploads.
 *
 * Every answer must come in time, carry X-Correlation-ID, never be a 5xx, use a status the document
 * lists for the operation, and be the spec's envelope (`ok: false`, `error.code` = status) when it
 * is an error. Input that is plainly invalid must get a 4xx. Problems are collected and reported
 * together, each with the route, the input and the answer.
 */
import { expect } from 'chai';
import { tixJson } from '../support/cli.js';
import { createKey, createProject, type ProjectFixture } from '../support/fixtures.js';
import { fleet } from '../support/fleet.js';

// ---- the document, loosely typed (only what the sweep reads) --------------------------------------

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  maxLength?: number;
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: JsonSchema & { example?: unknown };
}

interface Operation {
  operationId: string;
  parameters?: (Parameter | { $ref: string })[];
  requestBody?: { content: Record<string, { schema?: JsonSchema; example?: unknown }> };
  responses: Record<string, unknown>;
  servers?: { url: string }[];
}

interface Document {
  paths: Record<string, Record<string, Operation>>;
}

interface SweptOperation {
  method: string;
  /** `/tickets/{id}` */
  path: string;
  host: 'api' | 'app';
  operation: Operation;
}

// ---- requests --------------------------------------------------------------------------------------

const REQUEST_TIMEOUT_MS = 15_000;
const CONCURRENCY = 8;

interface Attempt {
  label: string;
  swept: SweptOperation;
  method: string;
  /** Path after the host prefix, already percent-encoded where needed. */
  path: string;
  query?: string;
  headers?: Record<string, string>;
  body?: string | FormData;
  /** The input is plainly invalid: the answer must be a 4xx. */
  invalid: boolean;
}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

const problems: string[] = [];
let sent = 0;

function describeAttempt(attempt: Attempt): string {
  const body =
    typeof attempt.body === 'string'
      ? ` body ${attempt.body.length > 160 ? `${attempt.body.slice(0, 160)}... (${attempt.body.length} chars)` : attempt.body}`
      : attempt.body
        ? ' (multipart)'
        : '';
  const query = attempt.query ? `?${attempt.query.slice(0, 120)}` : '';
  return `${attempt.method} ${attempt.swept.host === 'api' ? '/v1' : '/api'}${attempt.path.slice(0, 120)}${query}${body} [${attempt.label}]`;
}

function check(attempt: Attempt, answer: Answer): void {
  const where = describeAttempt(attempt);
  const complain = (what: string): void => {
    problems.push(`${where}\n    -> ${answer.status} ${answer.text.slice(0, 300)}\n    ${what}`);
  };
  if (answer.status >= 500) return complain('a 5xx for client input');
  if (!answer.headers.get('x-correlation-id')) complain('no X-Correlation-ID');
  if (!Object.hasOwn(attempt.swept.operation.responses, String(answer.status))) {
    complain(`status ${answer.status} is not documented for ${attempt.swept.operation.operationId}`);
  }
  if (attempt.invalid && (answer.status < 400 || answer.status >= 500))
    complain('invalid input was not refused');
  if (answer.status >= 400) {
    let body: { ok?: unknown; error?: { code?: unknown; message?: unknown } } | undefined;
    try {
      body = JSON.parse(answer.text) as typeof body;
    } catch {
      return complain('an error that is not JSON');
    }
    if (body?.ok !== false || body.error?.code !== answer.status || typeof body.error.message !== 'string') {
      complain('an error outside the envelope');
    }
    if (!answer.headers.get('content-type')?.startsWith('application/json'))
      complain('error not application/json');
  }
}

async function send(attempt: Attempt, auth: Record<string, string>): Promise<void> {
  const base = attempt.swept.host === 'api' ? `${fleet().apiUrl}/v1` : `${fleet().appUrl}/api`;
  const url = `${base}${attempt.path}${attempt.query === undefined ? '' : `?${attempt.query}`}`;
  sent += 1;
  try {
    const response = await fetch(url, {
      method: attempt.method,
      headers: { ...auth, ...attempt.headers },
      body: attempt.body,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    check(attempt, { status: response.status, headers: response.headers, text: await response.text() });
  } catch (error) {
    problems.push(`${describeAttempt(attempt)}\n    -> no answer: ${(error as Error).message}`);
  }
}

async function runAll(
  attempts: Attempt[],
  authFor: (attempt: Attempt) => Record<string, string>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < attempts.length) {
        const attempt = attempts[next++]!;
        await send(attempt, authFor(attempt));
      }
    }),
  );
}

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
const BAD_TEXT_SEGMENTS = ['%00', '%F0%9F%98%80', '%E0%A4%A', 'x'.repeat(5_000), '%2E%2E'];

/** Query values no integer parameter accepts. */
const BAD_INTEGER_VALUES = ['0', '-1', '1.5', 'abc', '9'.repeat(40), '', '%00', '1%20OR%201=1'];
const BAD_ENUM_VALUES = ['NOPE', '%00', '', '%F0%9F%98%80'];
const ODD_TEXT_VALUES = ['%00', '%E2%80%AEevil', '%F0%9F%98%80', 'x'.repeat(10_000), '%E0%A4%A'];

const MALFORMED_JSON = ['{"title": ', '{', 'nul', '{"a":1}}', "{'a':1}", '[1,2', '{"a":"\\ud800'];
const NOT_OBJECTS = ['null', '[]', '"text"', '42', 'true'];

/** Raw JSON text placed in a field (kept raw: overlong numbers must reach the parser as written). */
const RAW = '__RAW_VALUE__';
const OVERLONG_NUMBERS = ['123456789012345678901234567890', '1e400', '-0', '0.0000001', '2147483648'];

/** Strings that are valid JSON but odd (raw JSON text, so lone surrogates stay escaped). */
const ODD_STRINGS = [
  '"\\u0000"',
  '"\\ud800"',
  '"\\udc00x\\ud800"',
  '"\\u202eevil\\u202c"',
  '"😀🎉👩‍💻"',
  '"\\ufeff\\u200b"',
];

function wrongTypes(schema: JsonSchema): unknown[] {
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.includes('string')) return [12345, true, {}, ['x']];
  if (types.includes('integer') || types.includes('number')) return ['abc', '1', 1.5, -1, true, 1e30, {}];
  if (types.includes('array')) return ['x', {}, 5, [{}], [null]];
  if (types.includes('object')) return ['x', [], 5];
  if (types.includes('boolean')) return ['yes', 1, 'true'];
  return [];
}

function isTextField(schema: JsonSchema): boolean {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return types.includes('string') && schema.enum === undefined;
}

function isIntegerField(schema: JsonSchema): boolean {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return types.includes('integer');
}

// ---- the sweep -----------------------------------------------------------------------------------

interface Fixtures {
  project: ProjectFixture;
  typeId: number;
  ticketId: number;
  commentId: number;
  attachmentId: number;
  webhookId: number;
}

/** An id nothing in the test project has (non-GET requests must not change the fixtures). */
const ABSENT_ID = '2147483000';
const EXAMPLE_UUID = '0b3f8a0e-6f5c-4a59-9a53-8d3f3a4f9c01';

describe('bad input, for every operation of the OpenAPI document', function () {
  this.timeout(600_000);
  let document: Document;
  let swept: SweptOperation[];
  let fixtures: Fixtures;
  let apiAuth: Record<string, string>;
  let appAuth: Record<string, string>;

  const authFor = (attempt: Attempt) => (attempt.swept.host === 'api' ? apiAuth : appAuth);

  beforeEach(() => {
    problems.length = 0;
  });

  before(async () => {
    const response = await fetch(`${fleet().appUrl}/api/openapi`);
    expect(response.status).to.equal(200);
    document = (await response.json()) as Document;
    swept = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({
        method: method.toUpperCase(),
        path,
        host: operation.servers ? ('app' as const) : ('api' as const),
        operation,
      })),
    );

    const project = await createProject();
    const type = await tixJson<{ id: number }>([
      'ticket-type',
      'create',
      '--project',
      project.slug,
      '--name',
      'Task',
      '--slug',
      'task',
      '--default',
    ]);
    const key = await createKey({ project: project.slug, role: 'admin' });
    apiAuth = { authorization: `Bearer ${key.key}` };
    const post = async (path: string, body: unknown) => {
      const created = await fetch(`${fleet().apiUrl}/v1${path}`, {
        method: 'POST',
        headers: { ...apiAuth, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const text = await created.text();
      expect(created.status, `${path}: ${text}`).to.equal(201);
      return (JSON.parse(text) as { data: Record<string, { id: number }> }).data;
    };
    const ticketId = (await post('/tickets', { ticket_type_id: type.id, title: 'Sweep target' })).ticket!.id;
    const commentId = (await post(`/tickets/${ticketId}/comments`, { content: 'A comment' })).comment!.id;
    const webhookId = (
      await post('/webhooks', {
        url: 'http://127.0.0.1:9/hook',
        events: ['ticket.created'],
        project_id: project.id,
      })
    ).webhook!.id;
    const form = new FormData();
    form.append('file', new Blob([Buffer.from('hello\n')], { type: 'text/plain' }), 'hello.txt');
    const uploaded = await fetch(`${fleet().apiUrl}/v1/tickets/${ticketId}/attachments`, {
      method: 'POST',
      headers: apiAuth,
      body: form,
    });
    expect(uploaded.status).to.equal(201);
    const attachmentId = ((await uploaded.json()) as { data: { attachment: { id: number } } }).data.attachment
      .id;
    fixtures = { project, typeId: type.id, ticketId, commentId, attachmentId, webhookId };

    // A browser session with its CSRF token, for the app host.
    const csrf = await fetch(`${fleet().appUrl}/api/csrf-token`);
    const cookie = (csrf.headers.get('set-cookie') ?? '').split(';')[0]!;
    const token = ((await csrf.json()) as { data: { token: string } }).data.token;
    appAuth = { cookie, 'x-csrf-token': token };
  });

  after(() => {
    // One line for the run's log: how much was sent.
    process.stderr.write(`      bad-input sweep: ${sent} requests over ${swept?.length ?? 0} operations\n`);
  });

  const parametersOf = (operation: Operation): Parameter[] =>
    (operation.parameters ?? []).filter((parameter): parameter is Parameter => !('$ref' in parameter));

  /** A real id for reads (so the request reaches the services), an absent one for writes. */
  function idFor(entry: SweptOperation, name: string): string {
    if (name === 'deliveryId') return EXAMPLE_UUID;
    if (name === 'asset') return 'swagger-ui.css';
    if (
      entry.method !== 'GET' &&
      entry.method !== 'POST' &&
      entry.method !== 'PUT' &&
      entry.method !== 'PATCH'
    ) {
      return ABSENT_ID;
    }
    if (
      entry.path.endsWith('/merge') ||
      entry.path.endsWith('/restore') ||
      entry.path.endsWith('/redeliver')
    ) {
      return ABSENT_ID;
    }
    const first = entry.path.split('/')[1];
    const byResource: Record<string, number> = {
      tickets: fixtures.ticketId,
      comments: fixtures.commentId,
      attachments: fixtures.attachmentId,
      webhooks: fixtures.webhookId,
    };
    return String(byResource[first ?? ''] ?? ABSENT_ID);
  }

  function pathWith(entry: SweptOperation, overrides: Record<string, string> = {}): string {
    return entry.path.replace(
      /\{([^}]+)\}/g,
      (_match, name: string) => overrides[name] ?? idFor(entry, name),
    );
  }

  /** The documented example body, made valid for the test project. */
  function baseBody(entry: SweptOperation): Record<string, unknown> | undefined {
    const example = entry.operation.requestBody?.content['application/json']?.example;
    if (typeof example !== 'object' || example === null) return undefined;
    const body = { ...(example as Record<string, unknown>) };
    for (const field of ['assigned_to', 'custom_fields', 'version', 'after_id', 'before_id'])
      delete body[field];
    if ('ticket_type_id' in body) body.ticket_type_id = fixtures.typeId;
    if ('project_id' in body) body.project_id = fixtures.project.id;
    if ('ticket_ids' in body) body.ticket_ids = [fixtures.ticketId];
    if ('target_id' in body) body.target_id = fixtures.ticketId;
    if ('url' in body) body.url = 'http://127.0.0.1:9/hook';
    return body;
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
            path: pathWith(entry, { [parameter.name]: value }),
            invalid: true,
            ...(entry.operation.requestBody?.content['application/json']
              ? {
                  headers: { 'content-type': 'application/json' },
                  body: JSON.stringify(baseBody(entry) ?? {}),
                }
              : {}),
          });
        }
      }
    }
    expect(attempts.length).to.be.greaterThan(100);
    await runAll(attempts, authFor);
    expect(problems, problems.join('\n')).to.deep.equal([]);
  });

  it('answers bad and unknown query parameters without a 5xx', async () => {
    const attempts: Attempt[] = [];
    for (const entry of swept) {
      const path = pathWith(entry);
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
    await runAll(attempts, authFor);
    expect(problems, problems.join('\n')).to.deep.equal([]);
  });

  it('answers malformed, mistyped, huge and odd JSON bodies without a 5xx', async () => {
    const attempts: Attempt[] = [];
    for (const entry of swept) {
      const json = entry.operation.requestBody?.content['application/json'];
      if (!json) continue;
      const path = pathWith(entry);
      const jsonHeaders = { 'content-type': 'application/json' };
      const attempt = (label: string, body: string, invalid: boolean, headers = jsonHeaders): Attempt => ({
        label,
        swept: entry,
        method: entry.method,
        path,
        headers,
        body,
        invalid,
      });
      for (const text of MALFORMED_JSON) attempts.push(attempt('malformed JSON', text, true));
      for (const text of NOT_OBJECTS) attempts.push(attempt('not an object', text, true));
      attempts.push(
        attempt('not JSON', JSON.stringify(baseBody(entry)), true, { 'content-type': 'text/plain' }),
      );
      attempts.push(attempt('too large', JSON.stringify({ padding: 'x'.repeat(2 * 1024 * 1024) }), true));

      const base = baseBody(entry) ?? {};
      const withValue = (field: string, value: unknown) => JSON.stringify({ ...base, [field]: value });
      const withRaw = (field: string, raw: string) => withValue(field, RAW).replace(`"${RAW}"`, raw);
      for (const [field, schema] of Object.entries(json.schema?.properties ?? {})) {
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
            attempts.push(attempt(`${field} odd text`, withRaw(field, raw), false));
        }
        if (isIntegerField(schema)) {
          for (const raw of OVERLONG_NUMBERS) {
            // -0 is a fine 0 where 0 is allowed (assigned_to: unassign); the rest is never an id.
            attempts.push(attempt(`${field} overlong number`, withRaw(field, raw), raw !== '-0'));
          }
        }
      }
    }
    expect(attempts.length).to.be.greaterThan(200);
    await runAll(attempts, authFor);
    expect(problems, problems.join('\n')).to.deep.equal([]);
  });

  it('answers broken and odd uploads without a 5xx', async () => {
    const uploads = swept.filter((entry) => entry.operation.requestBody?.content['multipart/form-data']);
    expect(uploads.length).to.be.greaterThan(0);
    const attempts: Attempt[] = [];
    for (const entry of uploads) {
      const path = pathWith(entry);
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
    await runAll(attempts, authFor);
    expect(problems, problems.join('\n')).to.deep.equal([]);
  });
});

/**
 * Property-based fuzzing of every operation with a JSON body in the served OpenAPI document
 * (GET {app}/api/openapi), with fast-check. Bodies are generated from the operation's own request
 * schema (objects with their properties, required ones always present, strings within their lengths
 * and patterns, integers within their bounds, enums, arrays, nullables), sometimes with the test
 * project's real ids so requests reach the services, then one mutation is applied: none, a required
 * field dropped, a field of a wrong type, a huge string, deep nesting (up to 100,000 levels), an
 * extra unknown property (`__proto__` among them), or a boundary integer (0, -1, 2^31, 2^53 + 1,
 * 2^63 ...). POST cases carry an Idempotency-Key half of the time.
 *
 * The properties are the bad-input sweep's (support/sweep.ts): never a 5xx, the envelope on every
 * error, a status the document lists, a 4xx when the case breaks the schema, and the fleet alive
 * after every request (no process exit, /healthz 200).
 *
 * Bounded for CI: TIX_FUZZ_SEED (default below; printed, so a failure can be replayed),
 * TIX_FUZZ_RUNS cases per operation (default 40) and TIX_FUZZ_BUDGET_MS for the whole run (default
 * 60 s; operations run side by side and each stops generating at the budget). No shrinking: the
 * fleet keeps state and a crash would make every smaller case fail too; the first failing case of an
 * operation is reported as it was sent, with the seed and path that replay it.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import fc from 'fast-check';
import {
  HOOK_URL,
  jsonSchemaOf,
  loadOperations,
  prepareTarget,
  Sweep,
  typesOf,
  type Attempt,
  type JsonSchema,
  type SweepTarget,
  type SweptOperation,
} from '../support/sweep.js';

function integerFromEnv(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0)
    throw new Error(`${name} must be a non-negative integer, not ${text}`);
  return value;
}

const SEED = integerFromEnv('TIX_FUZZ_SEED', 20_251_125);
const RUNS = integerFromEnv('TIX_FUZZ_RUNS', 40);
const BUDGET_MS = integerFromEnv('TIX_FUZZ_BUDGET_MS', 60_000);

// ---- JSON text with parts kept raw ---------------------------------------------------------------------

/** JSON text placed as written: numbers no JS number holds, nesting too deep to build as objects. */
class RawJson {
  constructor(
    readonly text: string,
    /** How the value is shown in reports. */
    readonly shown: string,
  ) {}
}

/** JSON text of a value that may hold RawJson parts; `shown` puts their short form instead. */
function toJsonText(value: unknown, shown = false): string {
  if (value instanceof RawJson) return shown ? value.shown : value.text;
  if (Array.isArray(value)) return `[${value.map((item) => toJsonText(item, shown)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).map(
      ([key, item]) => `${JSON.stringify(key)}:${toJsonText(item, shown)}`,
    );
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** A copy with `key` set as an own property (also for `__proto__`, which assignment would not create). */
function withField(body: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(body)) Object.defineProperty(copy, name, ownValue(item));
  Object.defineProperty(copy, key, ownValue(value));
  return copy;
}

function ownValue(value: unknown): PropertyDescriptor {
  return { value, enumerable: true, writable: true, configurable: true };
}

function withoutField(body: Record<string, unknown>, key: string): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(body))
    if (name !== key) Object.defineProperty(copy, name, ownValue(item));
  return copy;
}

// ---- what the schema admits (types, enums, bounds, patterns, required) ------------------------------------

function admits(schema: JsonSchema, value: unknown): boolean {
  if (value instanceof RawJson) return false; // callers decide for raw values
  if (schema.anyOf) return schema.anyOf.some((branch) => admits(branch, value));
  if (schema.enum) return schema.enum.some((allowed) => allowed === value);
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length === 0) return true;
  return types.some((type) => admitsAs(type, schema, value));
}

function admitsAs(type: string, schema: JsonSchema, value: unknown): boolean {
  const within = (n: number) =>
    (schema.minimum === undefined || n >= schema.minimum) &&
    (schema.maximum === undefined || n <= schema.maximum);
  switch (type) {
    case 'null':
      return value === null;
    case 'boolean':
      return typeof value === 'boolean';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value) && within(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) && within(value);
    case 'string':
      return (
        typeof value === 'string' &&
        value.length >= (schema.minLength ?? 0) &&
        value.length <= (schema.maxLength ?? Infinity) &&
        (schema.pattern === undefined || new RegExp(schema.pattern, 'u').test(value))
      );
    case 'array':
      return (
        Array.isArray(value) &&
        value.length >= (schema.minItems ?? 0) &&
        value.length <= (schema.maxItems ?? Infinity) &&
        value.every((item) => admits(schema.items ?? {}, item))
      );
    case 'object': {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
      const record = value as Record<string, unknown>;
      return (
        (schema.required ?? []).every((key) => Object.hasOwn(record, key)) &&
        Object.entries(record).every(([key, item]) => {
          const property = schema.properties?.[key];
          return property === undefined || admits(property, item);
        })
      );
    }
    default:
      return true;
  }
}

/** True when no integer beyond 2^53 can satisfy the schema (not a number, or a number with a small maximum). */
function refusesHugeIntegers(schema: JsonSchema): boolean {
  if (schema.anyOf) return schema.anyOf.every(refusesHugeIntegers);
  if (schema.enum) return true;
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length === 0) return false;
  if (!types.includes('integer') && !types.includes('number')) return true;
  return schema.maximum !== undefined && schema.maximum < 2 ** 53;
}

// ---- schema -> arbitrary ------------------------------------------------------------------------------------

/** Known-good values by field (`name[]` for array items), mixed in so requests reach the services. */
type Hints = Record<string, unknown[]>;

const LIMIT_GENERATED_STRING = 40;
const LIMIT_GENERATED_ITEMS = 5;

function arbitraryOf(schema: JsonSchema, name: string, hints: Hints): fc.Arbitrary<unknown> {
  const own = generatedFrom(schema, name, hints);
  const hint = hints[name];
  return hint?.length
    ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...hint) }, { weight: 1, arbitrary: own })
    : own;
}

function generatedFrom(schema: JsonSchema, name: string, hints: Hints): fc.Arbitrary<unknown> {
  if (schema.anyOf?.length)
    return fc.oneof(...schema.anyOf.map((branch) => generatedFrom(branch, name, hints)));
  if (schema.enum?.length) return fc.constantFrom(...schema.enum);
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length > 1)
    return fc.oneof(...types.map((type) => generatedFrom({ ...schema, type }, name, hints)));
  switch (types[0]) {
    case 'string':
      return stringFrom(schema);
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -(2 ** 31), max: schema.maximum ?? 2 ** 31 - 1 });
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true, min: schema.minimum, max: schema.maximum });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const minLength = schema.minItems ?? 0;
      return fc.array(arbitraryOf(schema.items ?? {}, `${name}[]`, hints), {
        minLength,
        maxLength: Math.max(
          minLength,
          Math.min(schema.maxItems ?? LIMIT_GENERATED_ITEMS, LIMIT_GENERATED_ITEMS),
        ),
      });
    }
    case 'object':
      return objectFrom(schema, hints);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function stringFrom(schema: JsonSchema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.max(
    minLength,
    Math.min(schema.maxLength ?? LIMIT_GENERATED_STRING, LIMIT_GENERATED_STRING),
  );
  if (schema.pattern !== undefined) {
    return fc
      .stringMatching(new RegExp(schema.pattern))
      .filter((text) => text.length >= minLength && text.length <= maxLength);
  }
  // Graphemes mostly; sometimes any code point (lone surrogates, controls, noncharacters included).
  return fc.oneof(
    { weight: 3, arbitrary: fc.string({ unit: 'grapheme', minLength, maxLength }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength, maxLength }) },
  );
}

function objectFrom(schema: JsonSchema, hints: Hints): fc.Arbitrary<Record<string, unknown>> {
  const properties = Object.entries(schema.properties ?? {});
  if (properties.length === 0) {
    // Free-form (custom_fields): a few keys with small JSON values.
    return fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
  }
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, property] of properties) model[key] = arbitraryOf(property, key, hints);
  return fc.record(model, { requiredKeys: schema.required ?? [] });
}

// ---- mutations ---------------------------------------------------------------------------------------------

interface Mutated {
  body: unknown;
  mutation: string;
  /** The case breaks the schema: a 4xx is due. */
  invalid: boolean;
}

type Mutation = (body: Record<string, unknown>) => Mutated;

const UNKNOWN_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'zzz_unknown',
  'id',
];
/** Deeper than this is refused whatever the gateway's limit (32 or 64 levels). */
const SURELY_TOO_DEEP = 100;
const DEPTHS = [2, 20, 31, 33, 63, 65, SURELY_TOO_DEEP, 1_000, 10_000, 100_000];
/** Beyond this, nesting is sent as raw text (never built as objects here). */
const BUILT_DEPTH_LIMIT = 1_000;
const HUGE_LENGTHS = [5_001, 50_001, 300_000, 1_100_000];
const BODY_LIMIT_BYTES = 1024 * 1024;
const BOUNDARY_INTEGERS: unknown[] = [
  0,
  -1,
  1,
  2 ** 31 - 1,
  2 ** 31,
  -(2 ** 31),
  2 ** 32,
  2 ** 53 - 1,
  new RawJson('9007199254740993', '2^53+1'),
  new RawJson('-9007199254740993', '-(2^53+1)'),
  new RawJson('9223372036854775808', '2^63'),
  new RawJson('18446744073709551616', '2^64'),
];
const WRONG_TYPE_CANDIDATES: unknown[] = ['text', '', 12345, 1.5, -1, true, null, [], ['x'], {}, { a: 1 }];

const nestedCache = new Map<string, RawJson>();
function nestedValue(shape: 'object' | 'array', depth: number): unknown {
  if (depth > BUILT_DEPTH_LIMIT) {
    const key = `${shape}:${depth}`;
    let raw = nestedCache.get(key);
    if (!raw) {
      const text =
        shape === 'object'
          ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`
          : `${'['.repeat(depth)}1${']'.repeat(depth)}`;
      raw = new RawJson(text, `<${depth} nested ${shape}s>`);
      nestedCache.set(key, raw);
    }
    return raw;
  }
  let value: unknown = 1;
  for (let level = 0; level < depth; level += 1) value = shape === 'object' ? { a: value } : [value];
  return value;
}

function mutationsFor(schema: JsonSchema): fc.Arbitrary<Mutation> {
  const properties = schema.properties ?? {};
  const fields = Object.keys(properties);
  const required = schema.required ?? [];
  const propertyOf = (field: string): JsonSchema | undefined => properties[field];
  const choices: fc.WeightedArbitrary<Mutation>[] = [
    {
      weight: 3,
      arbitrary: fc.constant((body) => ({ body, mutation: 'none (valid per schema)', invalid: false })),
    },
    {
      weight: 2,
      arbitrary: fc
        .record({
          key: fc.oneof(fc.constantFrom(...UNKNOWN_KEYS), fc.string({ minLength: 1, maxLength: 20 })),
          value: fc.jsonValue({ maxDepth: 3 }),
        })
        .filter(({ key }) => !Object.hasOwn(properties, key))
        .map(({ key, value }): Mutation => (body) => ({
          body: withField(body, key, value),
          mutation: `unknown property ${JSON.stringify(key)}`,
          invalid: false,
        })),
    },
    {
      weight: 2,
      arbitrary: fc
        .record({
          field: fc.constantFrom(...fields, 'zzz_unknown'),
          depth: fc.constantFrom(...DEPTHS),
          shape: fc.constantFrom('object' as const, 'array' as const),
        })
        .map(({ field, depth, shape }): Mutation => {
          const value = nestedValue(shape, depth);
          const property = propertyOf(field);
          // The field's own rules decide below the limits; beyond SURELY_TOO_DEEP it is refused anyway.
          const invalid = depth >= SURELY_TOO_DEEP || (property !== undefined && !admits(property, value));
          return (body) => ({
            body: withField(body, field, value),
            mutation: `${field} nested ${depth} ${shape}s`,
            invalid,
          });
        }),
    },
  ];
  if (required.length) {
    choices.push({
      weight: 1,
      arbitrary: fc.constantFrom(...required).map((field): Mutation => (body) => ({
        body: withoutField(body, field),
        mutation: `without ${field}`,
        invalid: true,
      })),
    });
  }
  const wrongTyped = fields.flatMap((field) =>
    WRONG_TYPE_CANDIDATES.filter((value) => !admits(properties[field]!, value)).map((value) => ({
      field,
      value,
    })),
  );
  if (wrongTyped.length) {
    choices.push({
      weight: 2,
      arbitrary: fc.constantFrom(...wrongTyped).map(({ field, value }): Mutation => (body) => ({
        body: withField(body, field, value),
        mutation: `${field}: ${JSON.stringify(value)}`,
        invalid: true,
      })),
    });
  }
  if (fields.length) {
    choices.push({
      weight: 1,
      arbitrary: fc
        .record({
          field: fc.constantFrom(...fields),
          length: fc.constantFrom(...HUGE_LENGTHS),
          unit: fc.constantFrom('x', 'é'),
        })
        .map(({ field, length, unit }): Mutation => {
          const huge = unit.repeat(length);
          const invalid = !admits(properties[field]!, huge) || Buffer.byteLength(huge) > BODY_LIMIT_BYTES;
          return (body) => ({
            body: withField(body, field, huge),
            mutation: `${field}: "${unit}" x ${length}`,
            invalid,
          });
        }),
    });
  }
  // Boundary integers in integer fields and in arrays of integers.
  const integerTargets = fields.flatMap((field) => {
    const property = properties[field]!;
    const targets: { field: string; inArray: boolean; schema: JsonSchema }[] = [];
    if (typesOf(property).includes('integer')) targets.push({ field, inArray: false, schema: property });
    if (property.items && typesOf(property.items).includes('integer')) {
      targets.push({ field, inArray: true, schema: property });
    }
    return targets;
  });
  if (integerTargets.length) {
    choices.push({
      weight: 2,
      arbitrary: fc
        .record({ target: fc.constantFrom(...integerTargets), value: fc.constantFrom(...BOUNDARY_INTEGERS) })
        .map(({ target, value }): Mutation => {
          const placed = target.inArray ? [value] : value;
          const invalid =
            value instanceof RawJson
              ? refusesHugeIntegers(target.inArray ? (target.schema.items ?? {}) : target.schema)
              : !admits(target.schema, placed);
          const shown = value instanceof RawJson ? value.shown : String(value);
          return (body) => ({
            body: withField(body, target.field, placed),
            mutation: `${target.field}: ${target.inArray ? `[${shown}]` : shown}`,
            invalid,
          });
        }),
    });
  }
  return fc.oneof(...choices);
}

// ---- the test ------------------------------------------------------------------------------------------------

interface FuzzCase extends Mutated {
  keyed: boolean;
}

function hintsFor(target: SweepTarget): Hints {
  return {
    ticket_type_id: [target.typeId],
    'ticket_ids[]': [target.ticketId],
    target_id: [target.ticketId],
    project_id: [target.project.id],
    after_id: [null],
    before_id: [null],
    assigned_to: [null, 0],
    status: target.project.statuses.map((status) => status.slug),
    custom_fields: [{}],
    url: [HOOK_URL],
    'events[]': [
      'ticket.created',
      'ticket.updated',
      'ticket.status_changed',
      'ticket.assigned',
      'comment.created',
    ],
    secret: [null],
  };
}

describe('fuzzing every JSON body of the OpenAPI document (fast-check)', function () {
  this.timeout(BUDGET_MS + 300_000);
  let swept: SweptOperation[];
  let target: SweepTarget;
  const sweep = new Sweep(() => target);

  before(async () => {
    swept = (await loadOperations()).filter((entry) => jsonSchemaOf(entry) !== undefined);
    target = await prepareTarget();
  });

  after(async () => {
    // However the test ended (a timeout or a failure leaves its requests running): the last one
    // answered before the shared state is undone.
    await sweep.end();
    await target?.restoreSharedState();
  });

  it('never answers a generated or mutated body with a 5xx, an error outside the envelope or a crash', async () => {
    expect(swept.length).to.be.greaterThan(0);
    await sweep.begin();
    const startedAt = Date.now();
    const hints = hintsFor(target);
    let cases = 0;
    let interrupted = 0;
    const failures: string[] = [];

    await Promise.all(
      swept.map(async (entry, index) => {
        const schema = jsonSchemaOf(entry)!;
        const caseArbitrary: fc.Arbitrary<FuzzCase> = fc
          .record({
            body: objectFrom(schema, hints),
            mutate: mutationsFor(schema),
            keyed: entry.method === 'POST' ? fc.boolean() : fc.constant(false),
          })
          .map(({ body, mutate, keyed }) => ({ ...mutate(body), keyed }));
        const seed = SEED + index;
        const details = await fc.check(
          fc.asyncProperty(caseArbitrary, async (fuzz) => {
            if (sweep.stopped) return; // the fleet went down: that is reported once, nothing more is sent
            cases += 1;
            const attempt: Attempt = {
              label: `fuzz: ${fuzz.mutation}${fuzz.keyed ? ', with an Idempotency-Key' : ''}`,
              swept: entry,
              method: entry.method,
              path: target.pathWith(entry),
              headers: {
                'content-type': 'application/json',
                ...(fuzz.keyed ? { 'idempotency-key': randomUUID() } : {}),
              },
              body: toJsonText(fuzz.body),
              summary: truncate(toJsonText(fuzz.body, true), 300),
              invalid: fuzz.invalid,
            };
            const found = await sweep.attempt(attempt);
            if (found.length) throw new Error(found.join('\n'));
          }),
          {
            seed,
            numRuns: RUNS,
            endOnFailure: true,
            interruptAfterTimeLimit: Math.max(1, BUDGET_MS - (Date.now() - startedAt)),
            markInterruptAsFailure: false,
          },
        );
        if (details.interrupted) interrupted += 1;
        if (details.failed) {
          failures.push(
            `${entry.operation.operationId}: failed after ${details.numRuns} cases ` +
              `(replay: TIX_FUZZ_SEED=${SEED}, operation seed ${seed}, path ${details.counterexamplePath ?? '?'})`,
          );
        }
      }),
    );

    process.stderr.write(
      `      fuzz: ${swept.length} operations, ${cases} generated cases, seed ${SEED} ` +
        `(${RUNS} runs per operation${interrupted ? `, ${interrupted} cut by the ${BUDGET_MS} ms budget` : ''}) ` +
        `in ${((Date.now() - startedAt) / 1000).toFixed(1)} s; answers ${sweep.statusSummary()}\n`,
    );
    const problems = [...sweep.problems, ...failures];
    expect(problems, problems.join('\n')).to.deep.equal([]);
  });
});

function truncate(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, length)}... (${text.length} chars)` : text;
}

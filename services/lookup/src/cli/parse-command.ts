/**
 * The command line of `pnpm tix`: which command, with which options. Strict: unknown commands and
 * options, missing required options and malformed values are UsageErrors naming the problem.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { parseStatusesSpec, StatusesSpecError, type StatusSpecEntry } from './statuses-spec.js';

export type Command =
  | {
      name: 'project create';
      projectName: string;
      slug: string;
      prefix: string;
      description: string;
      /** Empty: the service's default workflow. */
      statuses: StatusSpecEntry[];
    }
  | {
      name: 'ticket-type create';
      projectSlug: string;
      typeName: string;
      slug: string;
      description: string;
      isDefault: boolean;
      /** The field_schema array as JSON text (already checked to parse). */
      fieldsJson: string;
    }
  | {
      name: 'user create';
      userName: string;
      email: string;
      role: string;
      /** Given on the command line (visible to other users in ps; the runner warns). */
      password?: string;
      /** The password is the first line of standard input. */
      passwordStdin?: true;
    }
  | { name: 'project update'; projectSlug: string; projectName?: string; description?: string }
  | {
      name: 'status add';
      projectSlug: string;
      slug: string;
      label: string;
      isClosed: boolean;
      position?: number;
    }
  | {
      name: 'status update';
      projectSlug: string;
      slug: string;
      label?: string;
      /** true for --closed, false for --open. */
      isClosed?: boolean;
      position?: number;
    }
  | { name: 'status remove'; projectSlug: string; slug: string; moveTo?: string }
  | {
      name: 'ticket-type update';
      projectSlug: string;
      slug: string;
      typeName?: string;
      description?: string;
      /** Only true: a project always has a default, so it moves by making another type the default. */
      isDefault?: true;
      fieldsJson?: string;
      /** true for --retire, false for --unretire. */
      isRetired?: boolean;
    }
  | { name: 'user list'; all: boolean }
  | { name: 'user reset-link'; email: string }
  | {
      name: 'user update';
      email: string;
      userName?: string;
      role?: string;
      /** true for --activate, false for --deactivate. */
      isActive?: boolean;
      passwordStdin?: true;
    }
  | { name: 'key create'; userEmail: string; scopes: string[]; projectSlug?: string; keyName?: string }
  | { name: 'key list'; userEmail?: string; projectSlug?: string }
  | { name: 'key revoke'; id: number }
  | { name: 'seed demo'; withTickets: boolean }
  | { name: 'ai eval'; projectSlug?: string; k: number };

export type ParsedCommandLine = { kind: 'help' } | { kind: 'run'; command: Command; json: boolean };

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

type Options = NonNullable<ParseArgsConfig['options']>;
type Values = Record<string, string | boolean | undefined>;

interface CommandDefinition {
  options: Options;
  required: string[];
  build(values: Values): Command;
}

const text = { type: 'string' } as const;
const flag = { type: 'boolean' } as const;
const COMMON: Options = { json: flag, help: { type: 'boolean', short: 'h' } };

const str = (values: Values, name: string): string => values[name] as string;
const optionalStr = (values: Values, name: string): string | undefined => values[name] as string | undefined;

/** The fields whose value is not undefined (options that were given). */
export function given<T extends Record<string, unknown>>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** A flag pair such as --closed / --open: true, false, or undefined when neither was given. */
function eitherFlag(values: Values, yes: string, no: string): boolean | undefined {
  if (values[yes] === true && values[no] === true) throw new UsageError(`give --${yes} or --${no}, not both`);
  if (values[yes] === true) return true;
  if (values[no] === true) return false;
  return undefined;
}

/** A whole number option within [min, 2^31 - 1], or undefined when absent. */
function integerOption(values: Values, name: string, min: number): number | undefined {
  const raw = optionalStr(values, name);
  if (raw === undefined) return undefined;
  const value = /^[0-9]{1,10}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(value) || value < min || value > 2 ** 31 - 1) {
    throw new UsageError(
      `--${name} must be ${min === 0 ? 'a whole number' : 'a positive integer'}, got "${raw}"`,
    );
  }
  return value;
}

/** The --fields JSON text, checked to parse. */
function fieldsOption(values: Values): string | undefined {
  const fields = optionalStr(values, 'fields');
  if (fields === undefined) return undefined;
  try {
    JSON.parse(fields);
  } catch (error) {
    throw new UsageError(`--fields is not valid JSON: ${(error as Error).message}`);
  }
  return fields;
}

/** Every command, by its words. */
export const COMMANDS: Record<string, CommandDefinition> = {
  'project create': {
    options: { name: text, slug: text, prefix: text, statuses: text, description: text },
    required: ['name', 'slug', 'prefix'],
    build: (values) => {
      const spec = optionalStr(values, 'statuses');
      let statuses: StatusSpecEntry[] = [];
      if (spec !== undefined) {
        try {
          statuses = parseStatusesSpec(spec);
        } catch (error) {
          if (error instanceof StatusesSpecError) throw new UsageError(error.message);
          throw error;
        }
      }
      return {
        name: 'project create',
        projectName: str(values, 'name'),
        slug: str(values, 'slug'),
        prefix: str(values, 'prefix'),
        description: optionalStr(values, 'description') ?? '',
        statuses,
      };
    },
  },
  'project update': {
    options: { project: text, name: text, description: text },
    required: ['project'],
    build: (values) => ({
      name: 'project update',
      projectSlug: str(values, 'project'),
      ...given({ projectName: optionalStr(values, 'name'), description: optionalStr(values, 'description') }),
    }),
  },
  'status add': {
    options: { project: text, slug: text, label: text, closed: flag, position: text },
    required: ['project', 'slug', 'label'],
    build: (values) => ({
      name: 'status add',
      projectSlug: str(values, 'project'),
      slug: str(values, 'slug'),
      label: str(values, 'label'),
      isClosed: values.closed === true,
      ...given({ position: integerOption(values, 'position', 0) }),
    }),
  },
  'status update': {
    options: { project: text, slug: text, label: text, closed: flag, open: flag, position: text },
    required: ['project', 'slug'],
    build: (values) => ({
      name: 'status update',
      projectSlug: str(values, 'project'),
      slug: str(values, 'slug'),
      ...given({
        label: optionalStr(values, 'label'),
        isClosed: eitherFlag(values, 'closed', 'open'),
        position: integerOption(values, 'position', 0),
      }),
    }),
  },
  'status remove': {
    options: { project: text, slug: text, 'move-to': text },
    required: ['project', 'slug'],
    build: (values) => ({
      name: 'status remove',
      projectSlug: str(values, 'project'),
      slug: str(values, 'slug'),
      ...given({ moveTo: optionalStr(values, 'move-to') }),
    }),
  },
  'ticket-type create': {
    options: { project: text, name: text, slug: text, description: text, default: flag, fields: text },
    required: ['project', 'name', 'slug'],
    build: (values) => ({
      name: 'ticket-type create',
      projectSlug: str(values, 'project'),
      typeName: str(values, 'name'),
      slug: str(values, 'slug'),
      description: optionalStr(values, 'description') ?? '',
      isDefault: values.default === true,
      fieldsJson: fieldsOption(values) ?? '[]',
    }),
  },
  'ticket-type update': {
    options: {
      project: text,
      slug: text,
      name: text,
      description: text,
      default: flag,
      fields: text,
      retire: flag,
      unretire: flag,
    },
    required: ['project', 'slug'],
    build: (values) => ({
      name: 'ticket-type update',
      projectSlug: str(values, 'project'),
      slug: str(values, 'slug'),
      ...given({
        typeName: optionalStr(values, 'name'),
        description: optionalStr(values, 'description'),
        isDefault: values.default === true ? (true as const) : undefined,
        fieldsJson: fieldsOption(values),
        isRetired: eitherFlag(values, 'retire', 'unretire'),
      }),
    }),
  },
  'user create': {
    options: { name: text, email: text, role: text, password: text, 'password-stdin': flag },
    required: ['name', 'email', 'role'],
    build: (values) => {
      const password = optionalStr(values, 'password');
      if (password !== undefined && values['password-stdin'] === true)
        throw new UsageError('give --password or --password-stdin, not both');
      return {
        name: 'user create',
        userName: str(values, 'name'),
        email: str(values, 'email'),
        role: str(values, 'role'),
        ...(password === undefined ? {} : { password }),
        ...(values['password-stdin'] === true ? { passwordStdin: true as const } : {}),
      };
    },
  },
  'user reset-link': {
    options: { email: text },
    required: ['email'],
    build: (values) => ({ name: 'user reset-link', email: str(values, 'email') }),
  },
  'user list': {
    options: { all: flag },
    required: [],
    build: (values) => ({ name: 'user list', all: values.all === true }),
  },
  'user update': {
    options: {
      email: text,
      name: text,
      role: text,
      activate: flag,
      deactivate: flag,
      'password-stdin': flag,
    },
    required: ['email'],
    build: (values) => ({
      name: 'user update',
      email: str(values, 'email'),
      ...given({
        userName: optionalStr(values, 'name'),
        role: optionalStr(values, 'role'),
        isActive: eitherFlag(values, 'activate', 'deactivate'),
        passwordStdin: values['password-stdin'] === true ? (true as const) : undefined,
      }),
    }),
  },
  'key create': {
    options: { user: text, scopes: text, project: text, name: text },
    required: ['user', 'scopes'],
    build: (values) => {
      const projectSlug = optionalStr(values, 'project');
      const keyName = optionalStr(values, 'name');
      return {
        name: 'key create',
        userEmail: str(values, 'user'),
        scopes: str(values, 'scopes')
          .split(',')
          .map((scope) => scope.trim())
          .filter((scope) => scope !== ''),
        ...(projectSlug === undefined ? {} : { projectSlug }),
        ...(keyName === undefined ? {} : { keyName }),
      };
    },
  },
  'key list': {
    options: { user: text, project: text },
    required: [],
    build: (values) => {
      const userEmail = optionalStr(values, 'user');
      const projectSlug = optionalStr(values, 'project');
      return {
        name: 'key list',
        ...(userEmail === undefined ? {} : { userEmail }),
        ...(projectSlug === undefined ? {} : { projectSlug }),
      };
    },
  },
  'key revoke': {
    options: { id: text },
    required: ['id'],
    build: (values) => ({ name: 'key revoke', id: integerOption(values, 'id', 1)! }),
  },
  'ai eval': {
    options: { project: text, k: text },
    required: [],
    build: (values) => ({
      name: 'ai eval',
      ...given({ projectSlug: optionalStr(values, 'project') }),
      k: integerOption(values, 'k', 1) ?? 3,
    }),
  },
  seed: {
    options: { demo: flag, 'without-tickets': flag },
    required: [],
    build: (values) => {
      if (values.demo !== true) throw new UsageError('seed needs --demo (the demo data set is the only one)');
      return { name: 'seed demo', withTickets: values['without-tickets'] !== true };
    },
  },
};

/** The words naming the command at the start of argv ("key create", "seed"), if they name one. */
function commandWords(argv: readonly string[]): string | undefined {
  const [first, second] = argv;
  if (first !== undefined && first in COMMANDS) return first;
  if (first !== undefined && second !== undefined && `${first} ${second}` in COMMANDS)
    return `${first} ${second}`;
  return undefined;
}

/** Rewrites node:util's parse errors into one line naming the option. */
function describeParseError(error: Error & { code?: string }): string {
  const quoted = /'([^']+)'/.exec(error.message)?.[1];
  switch (error.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option ${quoted ?? ''}`.trim();
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return `option ${quoted?.split(' ')[0] ?? ''} needs a value`.replace('  ', ' ');
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument ${quoted === undefined ? '' : `"${quoted}"`}`.trim();
    default:
      return error.message;
  }
}

/** Parses argv (without node and script) into a command, or throws UsageError. */
export function parseCommandLine(argv: readonly string[]): ParsedCommandLine {
  if (argv.length === 0) throw new UsageError('no command given');
  if (argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h') return { kind: 'help' };
  const words = commandWords(argv);
  if (words === undefined) {
    const attempted = argv
      .slice(0, 2)
      .filter((word) => !word.startsWith('-'))
      .join(' ');
    throw new UsageError(`unknown command "${attempted || argv[0]}"`);
  }
  const definition = COMMANDS[words]!;
  let values: Values;
  try {
    ({ values } = parseArgs({
      args: argv.slice(words.split(' ').length),
      options: { ...definition.options, ...COMMON },
      strict: true,
      allowPositionals: false,
    }) as { values: Values });
  } catch (error) {
    throw new UsageError(`${words}: ${describeParseError(error as Error & { code?: string })}`);
  }
  if (values.help === true) return { kind: 'help' };
  const missing = definition.required.filter((name) => values[name] === undefined);
  if (missing.length > 0) {
    const list = missing.map((name) => `--${name}`).join(', ');
    throw new UsageError(`${words}: missing required option${missing.length > 1 ? 's' : ''} ${list}`);
  }
  try {
    return { kind: 'run', command: definition.build(values), json: values.json === true };
  } catch (error) {
    if (error instanceof UsageError) throw new UsageError(`${words}: ${error.message}`);
    throw error;
  }
}

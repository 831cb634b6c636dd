/**
 * Running one CLI command: parse, call the lookup service over gRPC (and, for `ai eval`, the
 * assistant), print. The CLI holds no rules and never touches the database; every decision is the
 * services'.
 */
import { randomUUID } from 'node:crypto';
import { AppError, createServiceClient, type ServiceClient } from '@tix/kit';
import {
  GATEWAY_DEFAULT_PORTS,
  passwordResetLink,
  presentProject,
  presentTicketType,
  presentUser,
  quoted,
  SERVICE_NOT_DEPLOYED,
  serviceAddressVariable,
  type lookup,
} from '@tix/protos';
import { normaliseEmail } from '../users/user-rules.js';
import { HOST_PORT, serviceAddressIn } from './addresses.js';
import { evaluateAssistant } from './evaluate-assistant.js';
import {
  describeServiceError,
  isTransportFailure,
  ServiceUnreachable,
  transportProblem,
} from './failures.js';
import { given, parseCommandLine, UsageError, type Command } from './parse-command.js';
import {
  presentCreatedKey,
  presentKeyList,
  presentRevokedKey,
  presentSeed,
  presentUserList,
  summaries,
} from './presenters.js';
import { USAGE } from './usage.js';

export const EXIT = { ok: 0, refused: 1, usage: 2, unreachable: 3 } as const;

export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdout(text: string): void;
  stderr(text: string): void;
  /** Standard input as text, read only when a command asks for it (--password-stdin); at least its first line. */
  stdin(): Promise<string>;
}

export const PASSWORD_ARGUMENT_WARNING =
  'tix: warning: --password is visible to other users of this machine (ps); prefer --password-stdin\n';

const DEFAULT_DEADLINE_MS = 10_000;
/** Seeding hashes nothing but creates a few dozen rows; give it room on a slow machine. */
const SEED_DEADLINE_MS = 60_000;

/** The lookup address the CLI uses: LOOKUP_SERVICE_ADDR, default 127.0.0.1:50051. */
export function lookupAddress(env: NodeJS.ProcessEnv): string {
  return serviceAddressIn(env, 'lookup');
}

interface Output {
  json: object;
  summary: string;
}

/** The first line of `text` without its line break: a password given on standard input. */
export function firstLine(text: string): string {
  return /^[^\r\n]*/.exec(text)![0];
}

/** The password a command carries: from --password, or read from standard input for --password-stdin. */
async function passwordOf(command: Command, io: CliIo): Promise<string | undefined> {
  if (command.name === 'user create' && command.password !== undefined) {
    io.stderr(PASSWORD_ARGUMENT_WARNING);
    return command.password;
  }
  if ((command.name === 'user create' || command.name === 'user update') && command.passwordStdin) {
    const password = firstLine(await io.stdin());
    if (password === '')
      throw new UsageError(`${command.name}: --password-stdin: standard input has no password`);
    return password;
  }
  return undefined;
}

/** Where reset links point: APP_URL, as the gateway reads it, else the local session host. */
export function appUrlOf(env: NodeJS.ProcessEnv): string {
  const configured = env.APP_URL?.trim();
  return configured
    ? configured
    : `http://localhost:${env.GATEWAY_APP_PORT?.trim() || GATEWAY_DEFAULT_PORTS.app}`;
}

/** The user with that email (any state), or 404: the contract names users by id, the operator by email. */
async function userByEmail(
  client: ServiceClient<'lookup'>,
  email: string,
  context: { correlationId: string },
): Promise<lookup.User__Output> {
  const normalised = normaliseEmail(email);
  const { users } = await client.ListUsers({ active_only: false }, context);
  const found = users.find((user) => user.email === normalised);
  if (!found) throw AppError.notFound(`User not found: ${quoted(email)}`);
  return found;
}

async function execute(
  client: ServiceClient<'lookup'>,
  command: Command,
  password: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<Output> {
  const context = { correlationId: `tix-cli-${randomUUID()}` };
  switch (command.name) {
    case 'project create': {
      const project = presentProject(
        await client.CreateProject(
          {
            name: command.projectName,
            slug: command.slug,
            prefix: command.prefix,
            description: command.description,
            statuses: command.statuses,
          },
          context,
        ),
      );
      return { json: project, summary: summaries.project(project) };
    }
    case 'project update': {
      const { id } = await client.ResolveProject({ slug: command.projectSlug }, context);
      const project = presentProject(
        await client.UpdateProject(
          {
            id,
            ...given({ name: command.projectName, description: command.description }),
          },
          context,
        ),
      );
      return { json: project, summary: summaries.updatedProject(project) };
    }
    case 'status add': {
      const { id } = await client.ResolveProject({ slug: command.projectSlug }, context);
      const project = presentProject(
        await client.AddProjectStatus(
          {
            project_id: id,
            status: { slug: command.slug, label: command.label, is_closed: command.isClosed },
            ...given({ position: command.position }),
          },
          context,
        ),
      );
      return { json: project, summary: summaries.updatedProject(project) };
    }
    case 'status update': {
      const { id } = await client.ResolveProject({ slug: command.projectSlug }, context);
      const project = presentProject(
        await client.UpdateProjectStatus(
          {
            project_id: id,
            slug: command.slug,
            ...given({ label: command.label, is_closed: command.isClosed, position: command.position }),
          },
          context,
        ),
      );
      return { json: project, summary: summaries.updatedProject(project) };
    }
    case 'status remove': {
      const { id } = await client.ResolveProject({ slug: command.projectSlug }, context);
      const project = presentProject(
        await client.RemoveProjectStatus(
          { project_id: id, slug: command.slug, ...given({ move_to: command.moveTo }) },
          context,
        ),
      );
      return { json: project, summary: summaries.updatedProject(project) };
    }
    case 'ticket-type update': {
      // The contract changes types by id; the operator names them by project and slug.
      const { id: projectId } = await client.ResolveProject({ slug: command.projectSlug }, context);
      const { ticket_types: types } = await client.ListTicketTypes({ project_id: projectId }, context);
      const found = types.find((type) => type.slug === command.slug);
      if (!found) throw AppError.notFound(`Ticket type not found: ${quoted(command.slug)}`);
      const type = presentTicketType(
        await client.UpdateTicketType(
          {
            project_id: projectId,
            id: found.id,
            ...given({
              name: command.typeName,
              description: command.description,
              is_default: command.isDefault,
              field_schema_json: command.fieldsJson,
              is_retired: command.isRetired,
            }),
          },
          context,
        ),
      );
      return { json: type, summary: summaries.updatedTicketType(type) };
    }
    case 'ticket-type create': {
      const type = presentTicketType(
        await client.CreateTicketType(
          {
            project_slug: command.projectSlug,
            name: command.typeName,
            slug: command.slug,
            description: command.description,
            is_default: command.isDefault,
            field_schema_json: command.fieldsJson,
          },
          context,
        ),
      );
      return { json: type, summary: summaries.ticketType(type) };
    }
    case 'user create': {
      const user = presentUser(
        await client.CreateUser(
          {
            name: command.userName,
            email: command.email,
            role: command.role,
            ...(password === undefined ? {} : { password }),
          },
          context,
        ),
      );
      return { json: user, summary: summaries.user(user) };
    }
    case 'user list': {
      const list = presentUserList(await client.ListUsers({ active_only: !command.all }, context));
      return { json: list, summary: summaries.userList(list) };
    }
    case 'user update': {
      const found = await userByEmail(client, command.email, context);
      const user = presentUser(
        await client.UpdateUser(
          {
            id: found.id,
            ...given({ name: command.userName, role: command.role, is_active: command.isActive, password }),
          },
          context,
        ),
      );
      return { json: user, summary: summaries.updatedUser(user) };
    }
    case 'user reset-link': {
      const user = await userByEmail(client, command.email, context);
      const issued = await client.IssuePasswordReset({ user_id: user.id }, context);
      const link = {
        user_id: user.id,
        email: user.email,
        link: passwordResetLink(appUrlOf(env), issued.token!),
        expires_at: issued.expires_at!,
      };
      return { json: link, summary: summaries.resetLink(link) };
    }
    case 'key create': {
      const key = presentCreatedKey(
        await client.CreateApiKey(
          {
            user_email: command.userEmail,
            scopes: command.scopes,
            ...(command.projectSlug === undefined ? {} : { project_slug: command.projectSlug }),
            name: command.keyName ?? '',
          },
          context,
        ),
      );
      return { json: key, summary: summaries.createdKey(key) };
    }
    case 'key list': {
      const list = presentKeyList(
        await client.ListApiKeys(
          {
            ...(command.userEmail === undefined ? {} : { user_email: command.userEmail }),
            ...(command.projectSlug === undefined ? {} : { project_slug: command.projectSlug }),
          },
          context,
        ),
      );
      return { json: list, summary: summaries.keyList(list) };
    }
    case 'key revoke': {
      const revoked = presentRevokedKey(await client.RevokeApiKey({ id: command.id }, context));
      return { json: revoked, summary: summaries.revokedKey(revoked) };
    }
    case 'seed demo': {
      const seed = presentSeed(
        await client.SeedDemo(
          { with_tickets: command.withTickets },
          { ...context, deadlineMs: SEED_DEADLINE_MS },
        ),
      );
      return { json: seed, summary: summaries.seed(seed) };
    }
    case 'ai eval': {
      const evaluations = await evaluateAssistant(client, command, env, context);
      return { json: evaluations, summary: summaries.evaluations(evaluations) };
    }
  }
}

/** Runs the command line `argv` and returns the process exit code; prints through `io`. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let parsed;
  let password: string | undefined;
  try {
    parsed = parseCommandLine(argv);
    if (parsed.kind === 'run') password = await passwordOf(parsed.command, io);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`tix: ${error.message}\nRun "pnpm tix --help" for the commands and their options.\n`);
    return EXIT.usage;
  }
  if (parsed.kind === 'help') {
    io.stdout(USAGE);
    return EXIT.ok;
  }

  const address = lookupAddress(io.env);
  const variable = serviceAddressVariable('lookup');
  if (address === SERVICE_NOT_DEPLOYED || !HOST_PORT.test(address)) {
    io.stderr(`tix: ${variable} must be host:port of the lookup service, got "${address}"\n`);
    return EXIT.usage;
  }
  const client = createServiceClient('lookup', address, { deadlineMs: DEFAULT_DEADLINE_MS });
  try {
    const output = await execute(client, parsed.command, password, io.env);
    if (parsed.json) io.stdout(`${JSON.stringify(output.json, null, 2)}\n`);
    else io.stdout(output.summary);
    return EXIT.ok;
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`tix: ${error.message}\n`);
      return EXIT.usage;
    }
    if (error instanceof ServiceUnreachable) {
      io.stderr(`tix: ${error.message}\n`);
      return EXIT.unreachable;
    }
    if (!(error instanceof AppError)) throw error;
    if (isTransportFailure(error)) {
      io.stderr(
        `tix: ${transportProblem(error)} the lookup service at ${address} — is the fleet running? (pnpm start)\n`,
      );
      return EXIT.unreachable;
    }
    io.stderr(describeServiceError(error));
    return EXIT.refused;
  } finally {
    client.close();
  }
}

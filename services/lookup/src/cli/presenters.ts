/**
 * The JSON objects the CLI prints, exactly as README.md ("Admin CLI") documents them, and the
 * readable summaries printed without --json. Projects, ticket types and users print as the API
 * shows them (the presenters of @tix/protos).
 */
import {
  presentApiKey,
  presentProject,
  presentTicketType,
  presentUser,
  type ai,
  type lookup,
  type ProjectJson,
  type TicketTypeJson,
  type UserJson,
} from '@tix/protos';

export type ProjectOutput = ProjectJson;
export type TicketTypeOutput = TicketTypeJson;
export type UserOutput = UserJson;

export interface CreatedKeyOutput {
  id: number;
  key: string;
  scopes: string[];
  project_id: number | null;
  user_id: number;
}

export type KeyListEntry = ReturnType<typeof presentApiKey>;

export interface SeedOutput {
  projects: ProjectOutput[];
  /** With project_id, since the demo spans two projects. */
  ticket_types: (TicketTypeOutput & { project_id: number })[];
  users: UserOutput[];
  /** Keys issued by this run (empty on a second run), with their values and labels. */
  created_keys: (CreatedKeyOutput & { name: string })[];
  /** Passwords of the demo users this run created (empty on a second run). */
  created_passwords: { email: string; password: string }[];
  /** Demo tickets and comments this run created (0 on a second run). */
  created_tickets: number;
  created_comments: number;
}

/** One project's backtest in `ai eval` output; shares are fractions (0.95), thresholds ascending. */
export interface EvaluationOutput {
  project_id: number;
  project_slug: string;
  /** Resolved tickets with a public reply, each looked up as if new. */
  resolved_tickets: number;
  k: number;
  /** Share of them with a ticket of the same category (a shared tag) among their k nearest. */
  recall_at_k: number;
  /** Where the assistant acts on a prediction by default. */
  default_threshold: number;
  /** Priority predictions: at each confidence threshold, the share predicted and the share right. */
  priority: { threshold: number; coverage: number; precision: number }[];
}

/** `ai eval` output: `{ evaluations }`, one per project. */
export interface EvaluationsOutput {
  evaluations: EvaluationOutput[];
}

export function presentEvaluation(
  project: Pick<lookup.Project__Output, 'id' | 'slug'>,
  evaluation: ai.Evaluation__Output,
): EvaluationOutput {
  return {
    project_id: project.id,
    project_slug: project.slug,
    resolved_tickets: evaluation.resolved_tickets,
    k: evaluation.k,
    recall_at_k: evaluation.recall_at_k,
    default_threshold: evaluation.default_threshold,
    priority: evaluation.priority_curve.map(({ threshold, coverage, precision }) => ({
      threshold,
      coverage,
      precision,
    })),
  };
}

/** `user list` output: `{ users, count }`. */
export function presentUserList(list: lookup.UserList__Output): { users: UserOutput[]; count: number } {
  const users = list.users.map(presentUser);
  return { users, count: users.length };
}

/** `key create` output: `{ id, key, scopes, project_id, user_id }`. */
export function presentCreatedKey(key: lookup.CreatedApiKey__Output): CreatedKeyOutput {
  return {
    id: key.id,
    key: key.key,
    scopes: key.scopes,
    project_id: key.project_id ?? null,
    user_id: key.user_id,
  };
}

/** `key list` output: `{ keys, count }`, never a key value. */
export function presentKeyList(list: lookup.ApiKeyList__Output): { keys: KeyListEntry[]; count: number } {
  const keys = list.keys.map(presentApiKey);
  return { keys, count: keys.length };
}

/** `key revoke` output: `{ id, revoked_at }`. */
export function presentRevokedKey(revoked: lookup.RevokedApiKey__Output): { id: number; revoked_at: string } {
  return { id: revoked.id, revoked_at: revoked.revoked_at };
}

/** `seed --demo` output: what the demo data set consists of, and the keys and passwords this run issued. */
export function presentSeed(result: lookup.SeedDemoResult__Output): SeedOutput {
  return {
    projects: result.projects.map(presentProject),
    ticket_types: result.ticket_types.map((type) => ({
      ...presentTicketType(type),
      project_id: type.project_id,
    })),
    users: result.users.map(presentUser),
    created_keys: result.created_keys.map((key) => ({ ...presentCreatedKey(key), name: key.name })),
    created_passwords: result.created_passwords.map(({ email, password }) => ({ email, password })),
    created_tickets: result.created_tickets,
    created_comments: result.created_comments,
  };
}

const scopeList = (scopes: readonly string[]) => scopes.join(', ');
const projectScope = (projectId: number | null) =>
  projectId === null ? 'all projects' : `project ${projectId}`;

const percent = (share: number) => `${(share * 100).toFixed(1)} %`;

/** One project's backtest as lines: recall, then the priority table with the default threshold marked. */
function evaluationLines(evaluation: EvaluationOutput): string[] {
  const heading = `Project ${evaluation.project_slug} (id ${evaluation.project_id})`;
  if (evaluation.resolved_tickets === 0) return [`${heading}: no resolved tickets with a public reply yet`];
  const row = (threshold: string, coverage: string, precision: string) =>
    `    ${threshold.padEnd(16)}${coverage.padStart(9)}${precision.padStart(11)}`;
  return [
    `${heading}: ${evaluation.resolved_tickets} resolved tickets, each looked up as if new`,
    `  recall@${evaluation.k}: ${percent(evaluation.recall_at_k)} found a ticket of the same category among the ${evaluation.k} nearest`,
    '  priority predictions:',
    row('threshold', 'coverage', 'precision'),
    ...evaluation.priority.map((point) =>
      row(
        `${point.threshold.toFixed(2)}${point.threshold === evaluation.default_threshold ? ' (default)' : ''}`,
        percent(point.coverage),
        percent(point.precision),
      ),
    ),
  ];
}

/** `Workflow: open (Open) -> closed (Closed, closed)` */
function workflowLine(project: ProjectOutput): string {
  const lanes = project.statuses.map((s) => `${s.slug} (${s.label}${s.is_closed ? ', closed' : ''})`);
  return `Workflow: ${lanes.join(' -> ')}\n`;
}

/** Readable summaries (without --json). */
export const summaries = {
  project(project: ProjectOutput): string {
    return `Created project ${project.id} "${project.name}": slug ${project.slug}, ticket prefix ${project.prefix}\n${workflowLine(project)}`;
  },
  updatedProject(project: ProjectOutput): string {
    return `Project ${project.id} "${project.name}" (slug ${project.slug})\n${workflowLine(project)}`;
  },
  updatedTicketType(type: TicketTypeOutput): string {
    const fields = type.field_schema.length;
    const retired = type.retired_at === null ? '' : `, retired ${type.retired_at}`;
    return `Ticket type ${type.id} "${type.name}" (slug ${type.slug}${type.is_default ? ', default' : ''}${retired}) with ${fields} custom field${fields === 1 ? '' : 's'}\n`;
  },
  ticketType(type: TicketTypeOutput): string {
    const fields = type.field_schema.length;
    return `Created ticket type ${type.id} "${type.name}" (slug ${type.slug}${type.is_default ? ', default' : ''}) with ${fields} custom field${fields === 1 ? '' : 's'}\n`;
  },
  user(user: UserOutput): string {
    return `Created user ${user.id} ${user.name} <${user.email}>, role ${user.role}\n`;
  },
  updatedUser(user: UserOutput): string {
    return `User ${user.id} ${user.name} <${user.email}>: role ${user.role}, ${user.is_active ? 'active' : 'inactive'}\n`;
  },
  userList(list: { users: UserOutput[]; count: number }): string {
    const lines = list.users.map(
      (user) =>
        `${user.id}\t${user.email}\t${user.role}\t${user.is_active ? 'active' : 'inactive'}${user.is_system ? ' (system)' : ''}\t${user.name}`,
    );
    return `${[...lines, `${list.count} user${list.count === 1 ? '' : 's'}`].join('\n')}\n`;
  },
  resetLink(reset: { email: string; link: string; expires_at: string }): string {
    return `Password reset link for ${reset.email} (works once, until ${reset.expires_at}):\n${reset.link}\nGive it to the user over a channel you trust; a newer link voids it.\n`;
  },
  createdKey(key: CreatedKeyOutput): string {
    return `Created API key ${key.id} for user ${key.user_id} (${scopeList(key.scopes)}; ${projectScope(key.project_id)})\nKey: ${key.key}\nStore it now: it is shown only once.\n`;
  },
  keyList(list: { keys: KeyListEntry[]; count: number }): string {
    const lines = list.keys.map(
      (key) =>
        `${key.id}\t${key.prefix}...\t${key.revoked_at ? `revoked ${key.revoked_at}` : 'active'}\tuser ${key.user_id}\t${projectScope(key.project_id)}\t${scopeList(key.scopes)}\t${key.name}`,
    );
    return `${[...lines, `${list.count} key${list.count === 1 ? '' : 's'}`].join('\n')}\n`;
  },
  revokedKey(revoked: { id: number; revoked_at: string }): string {
    return `API key ${revoked.id} is revoked (since ${revoked.revoked_at})\n`;
  },
  evaluations(output: EvaluationsOutput): string {
    if (output.evaluations.length === 0) return 'No projects to evaluate.\n';
    return `${output.evaluations.map((evaluation) => evaluationLines(evaluation).join('\n')).join('\n\n')}\n`;
  },
  seed(seed: SeedOutput): string {
    const lines = [
      `Demo projects: ${seed.projects.map((p) => `${p.slug} (${p.prefix}, id ${p.id})`).join(', ')}`,
      `Ticket types: ${seed.ticket_types.map((t) => `${t.slug} (id ${t.id}, project ${t.project_id})`).join(', ')}`,
      `Users: ${seed.users.map((u) => `${u.email} (${u.role}, id ${u.id})`).join(', ')}`,
      seed.created_keys.length === 0
        ? 'No new keys (the demo keys exist already).'
        : 'New keys (shown only once):',
      ...seed.created_keys.map((k) => `  ${k.name}: ${k.key}`),
      seed.created_tickets === 0
        ? 'No new tickets (the demo projects have tickets already, or --without-tickets).'
        : `Demo tickets: ${seed.created_tickets}, with ${seed.created_comments} comments.`,
      ...(seed.created_passwords.length === 0
        ? []
        : [
            'Sign-in passwords of the new demo users (shown only once):',
            ...seed.created_passwords.map((p) => `  ${p.email}: ${p.password}`),
          ]),
    ];
    return `${lines.join('\n')}\n`;
  },
};

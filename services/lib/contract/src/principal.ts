/**
 * Who is calling. The gateway establishes the principal (from an API key or a browser session) and
 * passes it to every service in gRPC metadata; services read it to stamp authorship and check roles.
 */

/** User roles, most powerful first. */
export const ROLES = ['admin', 'team_lead', 'agent', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** API key scopes (the spec's list). */
export const SCOPES = [
  'tickets:read',
  'tickets:write',
  'tickets:delete',
  'comments:read',
  'comments:write',
  'customers:read',
  'customers:write',
] as const;
export type Scope = (typeof SCOPES)[number];

/** The principal kinds, as metadata carries them; a principal of any other kind is refused. */
export const PRINCIPAL_KINDS = ['api_key', 'session', 'system', 'ai'] as const;
export type PrincipalKind = (typeof PRINCIPAL_KINDS)[number];

/**
 * On whose behalf a write is made (docs/assistant.md, "Reviewing and reverting"): `ai_action` the
 * assistant's action `id` (on an `ai` principal), `ai_revert` a person reverting action `id` (on
 * their session principal).
 */
export const PRINCIPAL_VIA_TYPES = ['ai_action', 'ai_revert'] as const;
export type PrincipalViaType = (typeof PRINCIPAL_VIA_TYPES)[number];

export interface PrincipalVia {
  type: PrincipalViaType;
  id: number;
}

export interface Principal {
  /**
   * api_key: an integration (source_type api); session: a browser (source_type web); system:
   * internal jobs; ai: the assistant acting as its system user (source_type system, like jobs).
   */
  kind: PrincipalKind;
  user_id: number;
  role: Role;
  scopes: Scope[];
  /** The key's id, for api_key principals. */
  key_id?: number;
  /** Present when the principal is restricted to one project. */
  project_id?: number;
  /** Present when the write is an assistant's action or its revert (events carry it on their actor). */
  via?: PrincipalVia;
}

/**
 * The roles as one table (decisions.md, "Roles"): the scopes each role allows. Viewers read; agents
 * also write tickets, comments, attachments and customers; team leads and admins also delete tickets
 * (who merges and deletes customers: decisions.md, "Customers at the gateway"). A session
 * holds its user's role's scopes; an API key holds those of its scopes its owner's role allows, so a
 * key never exceeds its owner.
 */
export const ROLE_SCOPES: Readonly<Record<Role, readonly Scope[]>> = {
  viewer: ['tickets:read', 'comments:read', 'customers:read'],
  agent: [
    'tickets:read',
    'comments:read',
    'customers:read',
    'tickets:write',
    'comments:write',
    'customers:write',
  ],
  team_lead: [
    'tickets:read',
    'comments:read',
    'customers:read',
    'tickets:write',
    'comments:write',
    'customers:write',
    'tickets:delete',
  ],
  admin: [
    'tickets:read',
    'comments:read',
    'customers:read',
    'tickets:write',
    'comments:write',
    'customers:write',
    'tickets:delete',
  ],
};

/** Whether `role` allows `scope` (the ROLE_SCOPES table). */
export function roleAllows(role: Role, scope: Scope): boolean {
  return ROLE_SCOPES[role].includes(scope);
}

/** True when `role` is `minimum` or more powerful. */
export function roleAtLeast(role: Role, minimum: Role): boolean {
  return ROLES.indexOf(role) <= ROLES.indexOf(minimum);
}

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

export function isScope(value: unknown): value is Scope {
  return typeof value === 'string' && (SCOPES as readonly string[]).includes(value);
}

export function isPrincipalKind(value: unknown): value is PrincipalKind {
  return typeof value === 'string' && (PRINCIPAL_KINDS as readonly string[]).includes(value);
}

/** A well-formed `via`: a known type and a positive integer id. */
export function isPrincipalVia(value: unknown): value is PrincipalVia {
  if (typeof value !== 'object' || value === null) return false;
  const { type, id } = value as { type?: unknown; id?: unknown };
  return (
    typeof type === 'string' &&
    (PRINCIPAL_VIA_TYPES as readonly string[]).includes(type) &&
    Number.isInteger(id) &&
    (id as number) > 0
  );
}

/**
 * Who may change a comment someone else wrote (spec "Comments"; an author may always edit and delete
 * their own): team leads and above may edit anyone's comment, admins may delete anyone's. The comment
 * service enforces it; the console shows the controls by it.
 */
export const ANY_COMMENT_ROLE = { edit: 'team_lead', delete: 'admin' } as const satisfies Record<
  'edit' | 'delete',
  Role
>;

/** Whether `role` may `change` (edit or delete) a comment another person wrote. */
export function mayChangeAnyComment(role: Role, change: keyof typeof ANY_COMMENT_ROLE): boolean {
  return roleAtLeast(role, ANY_COMMENT_ROLE[change]);
}

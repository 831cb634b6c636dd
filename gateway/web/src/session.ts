/**
 * Who is signed in, and what they may do. The server refuses whatever a user may not do; the console
 * only hides those controls. Screens ask `can('tickets.write')` rather than comparing roles: each
 * capability is decided by the operation the server says the user may call (GET /auth/me's
 * `allowed_operations`, from the same declarations that refuse the calls), so the console holds no
 * second copy of the role table.
 */
import { batch, computed, signal } from '@preact/signals';
import { api, ApiError, call, refreshCsrfToken, setCsrfToken } from './api/client';
import { setSignedOutHandler } from './api/auth-events';
import type { components } from './generated/api';
import { currentTarget } from './router';

export type User = components['schemas']['User'];
export const ROLES = ['viewer', 'agent', 'team_lead', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/**
 * The operation that decides each capability. Two depend on the comment, not only on the user, and
 * are the spec's role rule (Comments: anyone's comment, where an author may always edit and delete
 * their own): the comment service applies it.
 */
export const CAPABILITIES = {
  'tickets.read': { operation: 'getTicket' },
  'tickets.write': { operation: 'updateTicket' },
  'tickets.delete': { operation: 'deleteTicket' },
  'comments.write': { operation: 'createComment' },
  'comments.edit_any': { role: 'team_lead' },
  'comments.delete_any': { role: 'admin' },
  'ai.suggest': { operation: 'suggestReply' },
  'ai.review': { operation: 'revertAutonomousAction' },
  'ai.admin': { operation: 'updateGuardrails' },
  admin: { operation: 'createUser' },
} as const satisfies Record<string, { operation: string } | { role: Role }>;
export type Capability = keyof typeof CAPABILITIES;

/** The operationIds the signed-in user may call (empty when signed out). */
const allowedOperations = signal<ReadonlySet<string>>(new Set());

/** undefined while the first /auth/me is on its way; null when signed out. */
export const currentUser = signal<User | null | undefined>(undefined);

const roleOfUser = computed(() => {
  const role = currentUser.value?.role;
  return ROLES.includes(role as Role) ? (role as Role) : null;
});

/** True when the signed-in user's role is `minimum` or above. */
export function hasRole(minimum: Role): boolean {
  const role = roleOfUser.value;
  return role !== null && ROLES.indexOf(role) >= ROLES.indexOf(minimum);
}

/** True when the signed-in user may use `capability`. */
export function can(capability: Capability): boolean {
  const rule: { operation: string } | { role: Role } = CAPABILITIES[capability];
  return 'operation' in rule ? allowedOperations.value.has(rule.operation) : hasRole(rule.role);
}

/** Who is signed in and what they may call, together (no render sees one without the other). */
function setSignedIn(me: { user: User; allowed_operations: string[] } | null): void {
  batch(() => {
    allowedOperations.value = new Set(me?.allowed_operations ?? []);
    currentUser.value = me?.user ?? null;
  });
}

/** The sign-in route, coming back to `next` afterwards. */
export function signInPath(next: string = currentTarget()): string {
  const keep = next.startsWith('/sign-') ? '' : `?next=${encodeURIComponent(next)}`;
  return `/sign-in${keep}`;
}

// A 401 anywhere: forget the user; the shell then opens sign-in for routes that need one (app.tsx).
setSignedOutHandler(() => {
  setSignedIn(null);
  setCsrfToken(null);
});

/** Reads the session at start: the user (or null) and the session's CSRF token. */
export async function loadSession(): Promise<void> {
  const [me] = await Promise.allSettled([call(api.GET('/auth/me')), refreshCsrfToken()]);
  if (me.status === 'fulfilled') setSignedIn(me.value);
  else if (me.reason instanceof ApiError && me.reason.status === 401) setSignedIn(null);
  else throw me.reason;
}

export async function signIn(email: string, password: string): Promise<void> {
  const answer = await call(api.POST('/auth/login', { body: { email, password } }));
  setCsrfToken(answer.csrf_token);
  setSignedIn(answer);
}

export async function signOut(): Promise<void> {
  await call(api.POST('/auth/logout'));
  setCsrfToken(null);
  setSignedIn(null);
}

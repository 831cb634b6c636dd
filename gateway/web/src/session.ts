/**
 * Who is signed in, and what their role lets them do. The server refuses whatever a role may not do;
 * the console only hides those controls (wave2-design §5.3). Screens ask `can('tickets.write')`
 * rather than comparing roles themselves.
 */
import { computed, signal } from '@preact/signals';
import { api, ApiError, call, refreshCsrfToken, setCsrfToken } from './api/client';
import { setSignedOutHandler } from './api/auth-events';
import type { components } from './generated/api';
import { currentTarget } from './router';

export type User = components['schemas']['User'];
export const ROLES = ['viewer', 'agent', 'team_lead', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** The lowest role of each capability (the session host's role table). */
export const CAPABILITIES = {
  'tickets.read': 'viewer',
  'tickets.write': 'agent',
  'tickets.delete': 'team_lead',
  'comments.write': 'agent',
  // Anyone's comment, not only one's own (an author may always edit and delete their own).
  'comments.edit_any': 'team_lead',
  'comments.delete_any': 'admin',
  'ai.suggest': 'agent',
  'ai.review': 'team_lead',
  'ai.admin': 'admin',
  admin: 'admin',
} as const satisfies Record<string, Role>;
export type Capability = keyof typeof CAPABILITIES;

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
  return hasRole(CAPABILITIES[capability]);
}

/** The sign-in route, coming back to `next` afterwards. */
export function signInPath(next: string = currentTarget()): string {
  const keep = next.startsWith('/sign-') ? '' : `?next=${encodeURIComponent(next)}`;
  return `/sign-in${keep}`;
}

// A 401 anywhere: forget the user; the shell then opens sign-in for routes that need one (app.tsx).
setSignedOutHandler(() => {
  currentUser.value = null;
  setCsrfToken(null);
});

/** Reads the session at start: the user (or null) and the session's CSRF token. */
export async function loadSession(): Promise<void> {
  const [me] = await Promise.allSettled([call(api.GET('/auth/me')), refreshCsrfToken()]);
  if (me.status === 'fulfilled') currentUser.value = me.value.user;
  else if (me.reason instanceof ApiError && me.reason.status === 401) currentUser.value = null;
  else throw me.reason;
}

export async function signIn(email: string, password: string): Promise<void> {
  const answer = await call(api.POST('/auth/login', { body: { email, password } }));
  setCsrfToken(answer.csrf_token);
  currentUser.value = answer.user;
}

export async function signOut(): Promise<void> {
  await call(api.POST('/auth/logout'));
  setCsrfToken(null);
  currentUser.value = null;
}

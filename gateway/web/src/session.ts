/**
 * Who is signed in, and what they may do. The server refuses whatever a user may not do; the console
 * only hides those controls. Screens ask `can('tickets.write')` rather than comparing roles: access.ts
 * decides each capability by the operations the server says the user may call (GET /auth/me's
 * `allowed_operations`), so the console holds no second copy of the role table.
 */
import { batch, computed, signal } from '@preact/signals';
import { api, ApiError, call, refreshCsrfToken, setCsrfToken } from './api/client';
import { setSignedOutHandler } from './api/auth-events';
import { allows, type Capability, type Grants } from './access';
import type { components } from './generated/api';
import { currentTarget } from './router';

export type User = components['schemas']['User'];

/** The operationIds the signed-in user may call (empty when signed out). */
const allowedOperations = signal<ReadonlySet<string>>(new Set());

/** undefined while the first /auth/me is on its way; null when signed out. */
export const currentUser = signal<User | null | undefined>(undefined);

/** The signed-in user's grants for access.ts (null when signed out or not yet known). */
export const grants = computed<Grants | null>(() => {
  const user = currentUser.value;
  return user ? { role: user.role, operations: allowedOperations.value } : null;
});

/** True when the signed-in user may use `capability`. */
export function can(capability: Capability): boolean {
  return allows(capability, grants.value);
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

/**
 * What a gateway does when a user may no longer act as before (deactivated, role or password
 * changed): forget the cached authentications of their API keys, and end their sessions that
 * started before `endedAt`. Used where the change is made (account routes) and where it is heard
 * (the revocation feed).
 */
import type { SessionStore } from '../sessions/session-store.js';
import type { ApiKeyAuthenticator } from './api-key-authenticator.js';

export async function forgetUser(
  parts: {
    apiKeys: Pick<ApiKeyAuthenticator, 'evictUser'>;
    sessions: Pick<SessionStore, 'destroyUserSessions'>;
  },
  userId: number,
  endedAt: Date,
): Promise<void> {
  // Keys first: it cannot fail, and a session store outage must not leave them cached.
  parts.apiKeys.evictUser(userId);
  await parts.sessions.destroyUserSessions(userId, endedAt);
}

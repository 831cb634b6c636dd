/**
 * Who the mail service is when it calls its peers: the system principal of the mail user (lookup's
 * "Tix Mail" user, MAIL_SYSTEM_USER_ID), an agent by role, so replies and the inbound processor read
 * tickets and write comments as one attributable author. Without a configured user the calls carry
 * no principal (operator tooling inside the network, kit caller.ts), which reads alike.
 */
import { ROLE_SCOPES, type Principal } from '@tix/protos';

export interface SystemCaller {
  principal: Principal | null;
}

/** The mail service's caller for `userId` (null: no principal). */
export function mailSystemCaller(userId: number | null): SystemCaller {
  if (userId === null) return { principal: null };
  return {
    principal: { kind: 'system', user_id: userId, role: 'agent', scopes: [...ROLE_SCOPES.agent] },
  };
}

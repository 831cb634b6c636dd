/**
 * What the processor asks its peers, with short-lived caches: the mail service's own user (lookup's
 * "Tix Mail", or MAIL_SYSTEM_USER_ID), staff addresses, projects and their default ticket type. The
 * processor acts as a system principal running as that user (kit caller.ts, actorOf).
 */
import { AppError, TtlCache, type ServiceClient } from '@tix/kit';
import { ROLE_SCOPES, type lookup, type Principal } from '@tix/protos';

/** A failure that another attempt cannot cure: the message is `failed` at once. */
export class PermanentFailure extends Error {
  override readonly name = 'PermanentFailure';
}

/** The address lookup's migration gives the mail service's system user. */
export const MAIL_USER_EMAIL = 'mail@tix.invalid';

const CACHE_MS = 30_000;

export type LookupPeer = Pick<ServiceClient<'lookup'>, 'ListUsers' | 'ResolveProject' | 'ListTicketTypes'>;

export interface Directory {
  /** The system principal the processor calls tickets, comments, customers and attachments as. */
  principal(): Promise<Principal>;
  isStaff(email: string): Promise<boolean>;
  project(id: number): Promise<lookup.Project__Output>;
  /** The mailbox's type when set and usable, else the project's default (or first) live type. */
  ticketType(projectId: number, preferred: number | null): Promise<number>;
}

export function createDirectory(lookupPeer: LookupPeer, configuredUserId: number | null): Directory {
  const users = new TtlCache<string, lookup.User__Output[]>({ ttlMs: CACHE_MS, maxEntries: 1 });
  const projects = new TtlCache<number, lookup.Project__Output>({ ttlMs: CACHE_MS, maxEntries: 1000 });
  const types = new TtlCache<number, lookup.TicketType__Output[]>({ ttlMs: CACHE_MS, maxEntries: 1000 });
  let userId: number | null = configuredUserId;

  const allUsers = async () => {
    const cached = users.get('all');
    if (cached) return cached;
    const { users: listed } = await lookupPeer.ListUsers({ active_only: false });
    users.set('all', listed);
    return listed;
  };

  const principalOf = (id: number): Principal => ({
    kind: 'system',
    user_id: id,
    role: 'agent',
    scopes: [...ROLE_SCOPES.agent],
  });

  return {
    async principal() {
      if (userId === null) {
        const mail = (await allUsers()).find((user) => user.email === MAIL_USER_EMAIL && user.is_system);
        if (!mail) throw AppError.unavailable('lookup has no mail system user (its migrations did not run)');
        userId = mail.id;
      }
      return principalOf(userId);
    },
    async isStaff(email) {
      const address = email.toLowerCase();
      return (await allUsers()).some((user) => user.is_active && !user.is_system && user.email === address);
    },
    async project(id) {
      const cached = projects.get(id);
      if (cached) return cached;
      const project = await lookupPeer.ResolveProject({ id });
      projects.set(id, project);
      return project;
    },
    async ticketType(projectId, preferred) {
      let list = types.get(projectId);
      if (!list) {
        list = (await lookupPeer.ListTicketTypes({ project_id: projectId })).ticket_types;
        types.set(projectId, list);
      }
      const live = list.filter((type) => type.retired_at === undefined || type.retired_at === null);
      const chosen =
        live.find((type) => type.id === preferred) ?? live.find((type) => type.is_default) ?? live[0];
      if (!chosen) throw new PermanentFailure(`project ${projectId} has no ticket type to open tickets with`);
      return chosen.id;
    },
  };
}

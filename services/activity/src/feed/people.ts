/**
 * Users' current names for summaries and actors, from lookup's GetUsers, cached for NAME_CACHE_TTL_MS
 * (a renamed user reads under the new name within that time). A feed must stay readable when lookup
 * is not: then unknown names are simply missing (the summary says "User #9") and the failure is
 * logged, never answered as an error.
 */
import { TtlCache, type CallContext, type Logger, type ServiceClient } from '@tix/kit';

export const NAME_CACHE_TTL_MS = 30_000;

export interface People {
  /** The names of those of `userIds` lookup knows. */
  names(
    userIds: readonly number[],
    caller: Pick<CallContext, 'correlationId' | 'principal'>,
  ): Promise<Map<number, string>>;
}

export function createPeople(options: {
  lookup: Pick<ServiceClient<'lookup'>, 'GetUsers'>;
  logger: Logger;
  ttlMs?: number;
}): People {
  const cache = new TtlCache<number, string>({ ttlMs: options.ttlMs ?? NAME_CACHE_TTL_MS });
  return {
    async names(userIds, caller) {
      const found = new Map<number, string>();
      const missing: number[] = [];
      for (const id of new Set(userIds)) {
        const name = cache.get(id);
        if (name === undefined) missing.push(id);
        else found.set(id, name);
      }
      if (missing.length === 0) return found;
      try {
        const { users } = await options.lookup.GetUsers(
          { ids: missing },
          { correlationId: caller.correlationId, principal: caller.principal },
        );
        for (const user of users) {
          cache.set(user.id, user.name);
          found.set(user.id, user.name);
        }
      } catch (error) {
        options.logger.warn({ err: error }, 'activity: user names unavailable, summaries show ids');
      }
      return found;
    },
  };
}

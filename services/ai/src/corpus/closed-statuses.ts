/**
 * Which statuses of a project are closed, from lookup's workflow, cached for CLOSED_STATUS_TTL_MS
 * (a workflow edit is seen within that time). The corpus needs it to know resolved tickets.
 */
import { TtlCache, type ServiceClient } from '@tix/kit';

export const CLOSED_STATUS_TTL_MS = 30_000;

export interface ClosedStatuses {
  /** The slugs of the project's closed statuses. */
  of(projectId: number): Promise<ReadonlySet<string>>;
}

export function createClosedStatuses(
  lookup: Pick<ServiceClient<'lookup'>, 'ResolveProject'>,
): ClosedStatuses {
  const cache = new TtlCache<number, ReadonlySet<string>>({ ttlMs: CLOSED_STATUS_TTL_MS });
  return {
    async of(projectId) {
      const closed = await cache.load(projectId, async () => {
        const project = await lookup.ResolveProject({ id: projectId });
        return new Set(project.statuses.filter((status) => status.is_closed).map((status) => status.slug));
      });
      return closed ?? new Set();
    },
  };
}

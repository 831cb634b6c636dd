/**
 * Which statuses of a project are closed, from lookup's workflow, cached for CLOSED_STATUS_TTL_MS
 * (a workflow edit is seen within that time): a closed status pauses every target and meets the
 * resolution (docs/sla.md, "Clocks").
 */
import { AppError, TtlCache, type ServiceClient } from '@tix/kit';
import type { ClosedStatuses } from './clocks.js';

export const CLOSED_STATUS_TTL_MS = 30_000;

export function createClosedStatuses(
  lookup: Pick<ServiceClient<'lookup'>, 'ResolveProject'>,
): ClosedStatuses {
  const cache = new TtlCache<number, ReadonlySet<string>>({ ttlMs: CLOSED_STATUS_TTL_MS });
  return {
    async of(projectId) {
      const closed = await cache.load(projectId, async () => {
        try {
          const project = await lookup.ResolveProject({ id: projectId });
          return new Set(project.statuses.filter((status) => status.is_closed).map((status) => status.slug));
        } catch (error) {
          // A project deleted meanwhile: none of its statuses is closed any more.
          if (error instanceof AppError && error.kind === 'not_found') return new Set<string>();
          throw error;
        }
      });
      return closed ?? new Set();
    },
  };
}

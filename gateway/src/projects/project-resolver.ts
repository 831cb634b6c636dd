/**
 * Finding a project by id or slug through lookup's ResolveProject, with a small TTL cache (projects
 * rarely change; only found projects are cached, so a new project is visible at once). Concurrent
 * requests for the same project share one call. Unknown projects are 404 `Project not found`.
 */
import { AppError, type OutgoingContext, type ServiceClient } from '@tix/kit';
import { MAX_INT32, type lookup, ERROR_MESSAGES } from '@tix/protos';
import { TtlCache } from '@tix/kit';

export type Project = lookup.Project__Output;

export interface ProjectResolver {
  byId(id: number, context: OutgoingContext): Promise<Project>;
  bySlug(slug: string, context: OutgoingContext): Promise<Project>;
  /** Drops a project this gateway just changed, so its next request reads the new workflow. */
  forget?(project: Pick<Project, 'id' | 'slug'>): void;
}

export interface ProjectResolverOptions {
  /** The lookup service client; null when lookup is not deployed (503). */
  lookup: Pick<ServiceClient<'lookup'>, 'ResolveProject'> | null;
  ttlMs: number;
  maxEntries?: number;
  now?: () => number;
}

const MAX_SLUG_LENGTH = 200;

/** Creates the cached resolver described in the file header. */
export function createProjectResolver(options: ProjectResolverOptions): ProjectResolver {
  const cache = new TtlCache<string, Project>({ maxEntries: options.maxEntries ?? 1_000, now: options.now });
  const inFlight = new Map<string, Promise<Project>>();

  async function fetch(request: lookup.ResolveProjectRequest, context: OutgoingContext): Promise<Project> {
    if (!options.lookup) throw AppError.unavailable('The lookup service is not deployed');
    try {
      const project = await options.lookup.ResolveProject(request, context);
      cache.set(`id:${project.id}`, project, options.ttlMs);
      cache.set(`slug:${project.slug}`, project, options.ttlMs);
      return project;
    } catch (error) {
      if (error instanceof AppError && error.kind === 'not_found') {
        throw AppError.notFound(ERROR_MESSAGES.projectNotFound);
      }
      throw error;
    }
  }

  function resolve(cacheKey: string, request: lookup.ResolveProjectRequest, context: OutgoingContext) {
    const cached = cache.get(cacheKey);
    if (cached) return Promise.resolve(cached);
    let pending = inFlight.get(cacheKey);
    if (!pending) {
      pending = fetch(request, context).finally(() => inFlight.delete(cacheKey));
      inFlight.set(cacheKey, pending);
    }
    return pending;
  }

  return {
    byId(id, context) {
      // An id beyond int32 cannot name a project (and would not fit the contract).
      if (!Number.isSafeInteger(id) || id < 1 || id > MAX_INT32) {
        return Promise.reject(AppError.notFound(ERROR_MESSAGES.projectNotFound));
      }
      return resolve(`id:${id}`, { id }, context);
    },
    bySlug(slug, context) {
      if (slug.length === 0 || slug.length > MAX_SLUG_LENGTH) {
        return Promise.reject(AppError.notFound(ERROR_MESSAGES.projectNotFound));
      }
      return resolve(`slug:${slug}`, { slug }, context);
    },
    forget(project) {
      cache.delete(`id:${project.id}`);
      cache.delete(`slug:${project.slug}`);
    },
  };
}

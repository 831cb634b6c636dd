/** Projects as lookup.v1 messages. */
import type { lookup } from '@tix/protos';
import type { StatusDefinition } from './project-rules.js';
import type { ProjectRecord } from './project-store.js';

/** The Project message of a project record (statuses in workflow order). */
export function toProjectMessage(project: ProjectRecord): lookup.Project {
  return {
    id: project.id,
    name: project.name,
    slug: project.slug,
    prefix: project.prefix,
    description: project.description,
    statuses: project.statuses.map((status) => ({
      slug: status.slug,
      label: status.label,
      is_closed: status.isClosed,
      position: status.position,
    })),
  };
}

/** The status definitions of a CreateProject request, in order. */
export function fromStatusSpecs(specs: readonly lookup.StatusSpec__Output[]): StatusDefinition[] {
  return specs.map((spec) => ({ slug: spec.slug, label: spec.label, isClosed: spec.is_closed }));
}

/** A project as the ticket service needs it: ticket-number prefix and the ordered workflow. */
import type { lookup } from '@tix/protos';

export interface WorkflowStatus {
  slug: string;
  label: string;
  isClosed: boolean;
}

export interface ProjectWorkflow {
  id: number;
  prefix: string;
  /** In workflow order (board lane order). */
  statuses: readonly WorkflowStatus[];
}

/** The workflow of a lookup Project message (statuses sorted by position). */
export function toProjectWorkflow(project: lookup.Project__Output): ProjectWorkflow {
  return {
    id: project.id,
    prefix: project.prefix,
    statuses: [...project.statuses]
      .sort((a, b) => a.position - b.position)
      .map((status) => ({ slug: status.slug, label: status.label, isClosed: status.is_closed })),
  };
}

/** The project's status with that slug, if any. */
export function findStatus(project: ProjectWorkflow, slug: string): WorkflowStatus | undefined {
  return project.statuses.find((status) => status.slug === slug);
}

/** Where new tickets start: the first status of the workflow. */
export function initialStatus(project: ProjectWorkflow): WorkflowStatus | undefined {
  return project.statuses[0];
}

/** Where merged tickets go: the first closed status of the workflow. */
export function firstClosedStatus(project: ProjectWorkflow): WorkflowStatus | undefined {
  return project.statuses.find((status) => status.isClosed);
}

/** The display label of a status slug (the slug itself when the workflow no longer has it). */
export function statusLabel(project: ProjectWorkflow, slug: string): string {
  return findStatus(project, slug)?.label ?? slug;
}

/** "open, work_in_progress, ..." for messages. */
export function statusList(project: ProjectWorkflow): string {
  return project.statuses.map((status) => status.slug).join(', ');
}

/** Helpers for unit tests: a project workflow and ticket rows to work on, and refusals. */
import type { AppError } from '@tix/kit';
import type { ProjectWorkflow } from '../../src/lookup/workflow.js';
import type { TicketRow } from '../../src/tickets/ticket-row.js';

export { refusal } from '@tix/kit/testing';

/** The default workflow (open, work_in_progress, waiting, closed), prefix SUP, id 7. */
export const SUPPORT: ProjectWorkflow = {
  id: 7,
  prefix: 'SUP',
  statuses: [
    { slug: 'open', label: 'Open', isClosed: false },
    { slug: 'work_in_progress', label: 'Work in progress', isClosed: false },
    { slug: 'waiting', label: 'Waiting', isClosed: false },
    { slug: 'closed', label: 'Closed', isClosed: true },
  ],
};

/** A custom workflow without the default slugs. */
export const PLATFORM: ProjectWorkflow = {
  id: 8,
  prefix: 'PLAT',
  statuses: [
    { slug: 'triage', label: 'Triage', isClosed: false },
    { slug: 'done', label: 'Done', isClosed: true },
    { slug: 'wont_do', label: "Won't do", isClosed: true },
  ],
};

/** A live ticket row of SUPPORT, with `overrides`. */
export function ticketRow(overrides: Partial<TicketRow> = {}): TicketRow {
  return {
    id: 1,
    projectId: SUPPORT.id,
    ticketTypeId: 3,
    projectRefId: 12,
    title: 'Printer on fire',
    description: null,
    status: 'open',
    priority: 'medium',
    assignedTo: null,
    createdBy: 5,
    updatedBy: null,
    customFields: {},
    sourceType: 'api',
    mergedIntoId: null,
    resolutionType: null,
    tags: [],
    requesterId: null,
    cc: [],
    version: 1,
    laneRank: 'a0',
    createdAt: new Date('2026-01-02T03:04:05.678Z'),
    updatedAt: new Date('2026-01-02T03:04:05.678Z'),
    deletedAt: null,
    closedAt: null,
    ...overrides,
  };
}

/** kind, message and validation errors of an AppError, for whole-value assertions. */
export function describeError(error: AppError) {
  return { kind: error.kind, message: error.message, validationErrors: error.validationErrors };
}

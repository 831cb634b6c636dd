/** Helpers for unit tests: a project workflow and ticket rows to work on, and refusals. */
import { expect } from 'chai';
import { AppError } from '@tix/kit';
import type { ProjectWorkflow } from '../../src/lookup/workflow.js';
import type { TicketRow } from '../../src/tickets/ticket-row.js';

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
    version: 1,
    laneRank: 'a0',
    createdAt: new Date('2026-01-02T03:04:05.678Z'),
    updatedAt: new Date('2026-01-02T03:04:05.678Z'),
    deletedAt: null,
    ...overrides,
  };
}

/** Runs `action` and returns the AppError it throws (failing the test when it does not throw one). */
export async function refusal(action: () => unknown): Promise<AppError> {
  try {
    await action();
  } catch (error) {
    expect(error).to.be.instanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected an AppError');
}

/** kind, message and validation errors of an AppError, for whole-value assertions. */
export function describeError(error: AppError) {
  return { kind: error.kind, message: error.message, validationErrors: error.validationErrors };
}

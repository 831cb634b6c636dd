/**
 * The board: one lane per status of the project in workflow order (empty lanes too), each with its
 * tickets in lane order — at most `lane_limit` of them (default 50, 1 to 500), so a project with
 * 100,000 tickets still answers fast — and its exact count; `priority` and `assignee` filter both.
 */
import { BOARD_LIMITS } from '@tix/protos';
import type { LookupCaller } from '../lookup/lookup-directory.js';
import type { ProjectWorkflow, WorkflowStatus } from '../lookup/workflow.js';
import { checkFilter } from '../tickets/list-rules.js';
import type { TicketDeps } from '../tickets/ticket-steps.js';
import type { TicketRow } from '../tickets/ticket-row.js';

export interface BoardInput {
  projectId: number;
  priority?: string;
  assignee?: number;
  laneLimit?: number;
}

export interface BoardLane {
  status: WorkflowStatus;
  count: number;
  rows: TicketRow[];
}

export interface Board {
  project: ProjectWorkflow;
  lanes: BoardLane[];
  /** Sum of the lane counts. */
  total: number;
}

/** The lane limit to apply: the requested one clamped to 1..500, else the default (50). */
export function laneLimitOf(requested: number | undefined): number {
  if (requested === undefined || requested === 0) return BOARD_LIMITS.defaultLaneLimit;
  return Math.min(Math.max(requested, 1), BOARD_LIMITS.maxLaneLimit);
}

/** The project's board (see the file header); 400 for a bad priority. */
export async function getBoard(deps: TicketDeps, input: BoardInput, caller: LookupCaller): Promise<Board> {
  const project = await deps.lookup.project(input.projectId, caller);
  const filter = checkFilter(project, { priority: input.priority, assignee: input.assignee });
  const lanes = await deps.reads.board({
    filter,
    lanes: project.statuses.map((status) => status.slug),
    laneLimit: laneLimitOf(input.laneLimit),
  });
  const boardLanes = project.statuses.map((status, index) => ({
    status,
    count: lanes[index]!.count,
    rows: lanes[index]!.rows,
  }));
  return { project, lanes: boardLanes, total: boardLanes.reduce((sum, lane) => sum + lane.count, 0) };
}

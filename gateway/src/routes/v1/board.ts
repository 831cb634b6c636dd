/**
 * GET /v1/board: one lane per status of the project in workflow order, filters `priority` and
 * `assignee`, at most `lane_limit` tickets per lane with exact counts.
 */
import { boardSchema } from '../../resources/components.js';
import { EXAMPLES } from '../../resources/examples.js';
import { json } from '../../resources/responses.js';
import { defineOperation, type Operation } from '../operation.js';
import { boardQuery } from './board.schemas.js';
import { boardRequest, presentBoard } from './tickets.mapping.js';

export const BOARD_OPERATIONS: Operation[] = [
  defineOperation({
    method: 'get',
    path: '/board',
    hosts: ['api', 'app'],
    access: { scope: 'tickets:read', role: 'viewer' },
    project: 'required',
    request: { query: boardQuery },
    operationId: 'getBoard',
    tag: 'Board',
    summary: 'The board: tickets by status lane',
    success: json(200, 'Lanes and exact counts.', boardSchema, {
      lanes: { open: [EXAMPLES.ticket], work_in_progress: [], waiting: [], closed: [] },
      counts: { open: 1, work_in_progress: 0, waiting: 0, closed: 0, total: 1 },
    }),
    errors: [400],
    async handle({ query, services, project, call }) {
      const board = await services.tickets.GetBoard(boardRequest(project.id, query), call);
      return { spliced: presentBoard(board) };
    },
  }),
];

/** The query of GET /board: the spec's filters plus the additive lane_limit. */
import { z } from 'zod';
import { integerParam } from '../../http/schema-fields.js';
import { assigneeParam, priorityParam, TICKET_LIMITS } from './tickets.schemas.js';

export const boardQuery = z.object({
  priority: priorityParam.optional(),
  assignee: assigneeParam.optional(),
  lane_limit: integerParam({
    min: 1,
    max: TICKET_LIMITS.laneLimit,
    message: `lane_limit must be an integer from 1 to ${TICKET_LIMITS.laneLimit}`,
    description:
      'Most tickets returned per lane, 1 to 500 (additive; default 50, applied by the ticket service); counts stay exact.',
    example: 100,
  }).optional(),
});

export type BoardQuery = z.output<typeof boardQuery>;

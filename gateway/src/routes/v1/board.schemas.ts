/** The query of GET /board: the spec's filters plus the additive lane_limit. */
import { z } from 'zod';
import { BOARD_LIMITS } from '@tix/protos';
import { integerParam } from '../../http/schema-fields.js';
import { assigneeParam, priorityParam } from './tickets.schemas.js';

export const boardQuery = z.object({
  priority: priorityParam.optional(),
  assignee: assigneeParam.optional(),
  lane_limit: integerParam({
    min: 1,
    max: BOARD_LIMITS.maxLaneLimit,
    message: `lane_limit must be an integer from 1 to ${BOARD_LIMITS.maxLaneLimit}`,
    description:
      `Most tickets returned per lane, 1 to ${BOARD_LIMITS.maxLaneLimit} (additive; default ` +
      `${BOARD_LIMITS.defaultLaneLimit}, applied by the ticket service); counts stay exact.`,
    example: 100,
  }).optional(),
});

export type BoardQuery = z.output<typeof boardQuery>;

/** Field builders the resource schemas share: ids and ISO 8601 timestamps, each with its description. */
import { z } from 'zod';

/** An integer id, described. */
export const idField = (description: string) => z.number().int().meta({ description });

/** An ISO 8601 time, described ("Creation time" reads "Creation time (ISO 8601).") */
export const timestampField = (description: string) =>
  z.string().meta({ description: `${description} (ISO 8601).`, format: 'date-time' });

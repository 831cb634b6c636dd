/**
 * Spec Project, plus the additive `prefix` and ordered `statuses`, as the API sends it: declared once
 * here. protos presentProject writes it; the gateway's OpenAPI document names it `Project`.
 */
import { z } from 'zod';
import { idField as id } from './fields.js';

export const projectStatusSchema = z
  .object({
    slug: z.string().meta({ description: 'Status slug, used in tickets and as a board lane key.' }),
    label: z.string().meta({ description: 'Display label.' }),
    is_closed: z.boolean().meta({ description: 'True for terminal (closed) statuses.' }),
    position: z.number().int().meta({ description: 'Workflow order, from 0.' }),
  })
  .meta({ id: 'ProjectStatus', description: 'A status of the project (additive).' });

export const projectSchema = z
  .object({
    id: id('Project id.'),
    name: z.string(),
    slug: z.string().meta({ description: 'Human-readable identifier, usable as `?project=<slug>`.' }),
    prefix: z.string().meta({ description: 'Ticket number prefix (additive).' }),
    description: z.string(),
    statuses: z.array(projectStatusSchema).meta({ description: 'The workflow, in order (additive).' }),
  })
  .meta({ description: 'A project (spec Project).' });

/** A project as the API sends it (the output of projectSchema). */
export type ProjectJson = z.output<typeof projectSchema>;

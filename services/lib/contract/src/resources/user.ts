/**
 * Spec User, plus the additive `is_system`, and an API key as admins see it (never its value), as
 * the API sends them: declared once here. protos presentUser and presentApiKey write them; the
 * gateway's OpenAPI document names them `User` and `ApiKey`.
 */
import { z } from 'zod';
import { idField as id } from './fields.js';

export const userSchema = z
  .object({
    id: id('User id.'),
    name: z.string(),
    email: z.string(),
    role: z.string().meta({ description: 'admin, team_lead, agent or viewer.' }),
    is_active: z.boolean(),
    is_system: z.boolean().meta({
      description:
        "True only for the assistant's own user (Tix AI, additive): the actor of the assistant's changes. It never signs in, holds no API keys and cannot be edited.",
    }),
  })
  .meta({ description: 'A user (spec User).' });

/** A user as the API sends it (the output of userSchema). */
export type UserJson = z.output<typeof userSchema>;

export const apiKeySchema = z
  .object({
    id: id('API key id.'),
    name: z.string(),
    prefix: z.string().meta({ description: 'The first characters of the key, to recognise it.' }),
    scopes: z.array(z.string()),
    project_id: id('The one project the key reaches; null: every project.').nullable(),
    user_id: id('The user the key acts as.'),
    created_at: z.string(),
    last_used_at: z.string().nullable().meta({ description: 'Recorded at most once a minute.' }),
    revoked_at: z.string().nullable(),
  })
  .meta({ description: 'An API key as admins see it: never its value.' });

/** An API key as the API sends it (the output of apiKeySchema). */
export type ApiKeyJson = z.output<typeof apiKeySchema>;

/**
 * The prose of the lookups of projects, ticket types and users (routes/v1/lookups.ts) in the API
 * description, by operationId.
 */

export const LOOKUP_DESCRIPTIONS = {
  listProjects: 'Any valid key; a project-scoped key sees only its own project.',
  getProject:
    'Any valid key; a project-scoped key sees only its own project (404 `Project not found` for another).',
  getTicketType:
    'Retired types too (with `retired_at`). 404 `Ticket type not found` for a type of another project.',
  listUsers: 'Every user, to look up assignee ids. No project needed.',
  getUser: 'Any user, active or not, as GET /users lists them. No project needed.',
};

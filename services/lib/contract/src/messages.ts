/**
 * Error messages the API fixes (docs/api-guide.md and the OpenAPI document quote them) that more than one
 * process writes: the gateway answers some itself (a project it resolves, a key it looks up) and
 * the services answer the same condition behind it. Written once here so the two never drift;
 * clients may match on them.
 */
export const ERROR_MESSAGES = {
  /** 400: nothing names a project (key scope, `project_id`, `project`). */
  projectRequired: 'Project ID is required.',
  projectNotFound: 'Project not found',
  userNotFound: 'User not found',
  apiKeyNotFound: 'API key not found',
  ticketNotFound: 'Ticket not found',
  /** 409: the ticket's version is not the one the write expected. */
  ticketModified: 'Ticket was modified by another user',
  predictionNotFound: 'Prediction not found',
  /** An autonomous action of the assistant. */
  actionNotFound: 'Action not found',
  /** 409: the guardrails' version is not the one the update expected. */
  guardrailsModified: 'Guardrails were modified by another user',
  killSwitchNotActive: 'Kill switch is not active',
} as const;

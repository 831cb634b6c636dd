/**
 * The prose of account settings and administration (routes/app/account.ts, administration.ts, api-
 * keys.ts, ticket-type-administration.ts, data-export.ts) in the API description, by operationId.
 */

const WORKFLOW_RULES =
  'The workflow keeps the rules of creation: its first status (where new tickets start) is open, and at least one status is closed.';

export const ACCOUNT_DESCRIPTIONS = {
  changeMyPassword:
    'Every other session of yours ends; this one is renewed (new cookie and CSRF token, also in `X-CSRF-Token`).',
  createUser: 'Without `password` the user cannot sign in until one is set.',
  updateUser:
    "A role, active-flag or password change ends the user's sessions, and a deactivated user's API keys stop working, at once.",
  updateProject: 'The slug and prefix stay: links and ticket numbers use them.',
  addProjectStatus: `A new board lane at \`position\` (default: last). ${WORKFLOW_RULES}`,
  updateProjectStatus: `Moving a status reorders the board lanes; the others keep their relative order. ${WORKFLOW_RULES} 404 \`Status not found\` for a slug the project does not have.`,
  removeProjectStatus:
    'Its tickets (soft-deleted ones included) move to `move_to`, at the end of that lane, shortly after the answer. ' +
    'When live tickets are in the status and `move_to` is absent, the answer is 409 with their count ' +
    '(`3 tickets are in "In review"; choose a status to move them to (move_to)`); `move_to` must be another ' +
    `status of the project (422). ${WORKFLOW_RULES}`,
  listApiKeys:
    'Prefix, name, scopes, owner and dates of each key; never the key itself. Revoked keys included.',
  createApiKey: 'The response is the only time the key value (`key`) is shown.',
  getApiKey: 'As GET /api-keys lists it (revoked ones too); never the key itself.',
  revokeApiKey: 'Takes effect at once on every gateway. Revoking a revoked key answers it again.',
  updateTicketType:
    'Only the given fields change; the slug never does. 404 `Ticket type not found` for a type of ' +
    'another project. A new `field_schema` is checked against every stored ticket of the type, live and ' +
    'soft-deleted, as their next write would check them: when any would be invalid the answer is 409 ' +
    '(`The new field_schema would make the stored values of 3 tickets invalid (1 of them deleted)`, ' +
    '`validation_errors` `{ live_tickets, deleted_tickets }`) and nothing changes. A retired type is never ' +
    'the default: retiring the default is 422 on `is_retired` (`Choose another default type before ' +
    'retiring this one`), making a retired type the default 422 on `is_default`. A retired type stays in ' +
    'GET /ticket-types with its `retired_at`; creating a ticket of it is 422 on `ticket_type_id`.',
  exportMyData:
    'One JSON document, streamed: the envelope, with your user, your tickets (created or assigned), ' +
    'your comments and the metadata of your attachments, each as the API presents it. Served as a ' +
    'download (`Content-Disposition: attachment`, `Cache-Control: no-store`). Limited to 3 per hour ' +
    '(429 with `Retry-After`). A failure after the download started breaks the connection instead of ' +
    'ending the document: an export that parses is complete.',
};

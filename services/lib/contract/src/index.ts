/**
 * @tix/contract: what every Tix process and the console agree on, loadable in a browser (no gRPC, no
 * node modules, no generated code; docs/architecture.md lists who may import what).
 * - the vocabulary (vocabulary.ts): priorities, sort fields, custom-field types, text and list
 *   limits, MAX_INT32, code-point length, checked by the gateway and enforced by the services;
 * - roles, scopes and the role table (principal.ts);
 * - the domain-event catalogue and the event types a webhook may subscribe to (events.ts);
 * - console addresses other processes hand out (links.ts);
 * - the assistant's guardrails document, its bounds and defaults (guardrails.ts);
 * - the zod schemas of the public resources (resources/*), whose output types are the JSON the API sends.
 */
export * from './events.js';
export * from './guardrails.js';
export * from './links.js';
export * from './messages.js';
export * from './principal.js';
export * from './vocabulary.js';
export * from './resources/fields.js';
export * from './resources/ticket.js';
export * from './resources/attachment.js';
export * from './resources/comment.js';
export * from './resources/project.js';
export * from './resources/ticket-type.js';
export * from './resources/user.js';
export * from './resources/webhook.js';
export * from './resources/customer.js';
export * from './resources/activity.js';
export * from './resources/mail.js';

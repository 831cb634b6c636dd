/**
 * @tix/custom-fields: the field_schema language of ticket types (spec: "Ticket type").
 * - parseFieldSchema: validates a schema when a ticket type is saved (lookup service);
 * - validateCustomFields: validates a ticket's custom_fields against it (ticket service).
 * Pure functions, no I/O.
 */
export {
  CONSTRAINT_KEYS,
  type CustomFieldValues,
  type FieldDefinition,
  type FieldErrors,
  type FieldSchema,
  type FieldType,
  LIMITS,
  type Result,
} from './types.js';
export { parseFieldSchema } from './field-schema.js';
export { validateCustomFields } from './field-values.js';
export { checkFieldValue, type ValueCheck } from './value-rules.js';
export { patternProblem } from './pattern-safety.js';

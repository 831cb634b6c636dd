/** The constraints a field type accepts (spec: "Constraints by type") and what each must look like. */
import { codePointLength } from '@tix/contract';
import { hasUnstorableCharacters } from './formats.js';
import { patternProblem } from './pattern-safety.js';
import { CONSTRAINT_KEYS, type FieldErrors, type FieldType, isPlainObject, LIMITS } from './types.js';

/**
 * Validates a field's `constraints` object for its `type`; returns the normalised constraints (keys
 * set to null dropped as "not set"), or null after recording errors under `path` (e.g.
 * `field_schema[2].constraints`). Keys the type does not take are refused.
 */
export function parseConstraints(
  type: FieldType,
  input: unknown,
  path: string,
  errors: FieldErrors,
): Record<string, unknown> | null {
  if (!isPlainObject(input)) {
    errors[path] = ['constraints must be an object'];
    return null;
  }
  const allowedKeys = CONSTRAINT_KEYS[type];
  const constraints: Record<string, unknown> = {};
  let valid = true;
  const refuse = (key: string, message: string): void => {
    errors[`${path}.${key}`] = [message];
    valid = false;
  };
  for (const [key, value] of Object.entries(input)) {
    if (!allowedKeys.includes(key)) refuse(key, `${key} is not allowed for ${type} fields`);
    else if (value !== null) constraints[key] = value;
  }
  if (type === 'text' || type === 'textarea') checkLengths(type, constraints, refuse);
  if (type === 'number') checkValueRange(constraints, refuse);
  if (type === 'text' && constraints.pattern !== undefined) {
    const { pattern } = constraints;
    if (typeof pattern !== 'string') refuse('pattern', 'pattern must be a string');
    else if (hasUnstorableCharacters(pattern))
      refuse('pattern', 'pattern contains characters that are not allowed');
    else {
      const problem = patternProblem(pattern);
      if (problem) refuse('pattern', problem);
    }
  }
  if (type === 'select' || type === 'multi_select') {
    const problem = allowedValuesProblem(type, constraints.allowed_values);
    if (problem) refuse('allowed_values', problem);
    else constraints.allowed_values = [...(constraints.allowed_values as string[])];
  }
  return valid ? constraints : null;
}

type Refuse = (key: string, message: string) => void;

function checkLengths(type: 'text' | 'textarea', constraints: Record<string, unknown>, refuse: Refuse): void {
  const ceiling = type === 'text' ? LIMITS.maxTextLength : LIMITS.maxTextareaLength;
  const problem = (key: string, value: unknown): string | null => {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
      return `${key} must be a non-negative integer`;
    }
    return value > ceiling ? `${key} must be at most ${ceiling} for ${type} fields` : null;
  };
  checkRange(constraints, ['min_length', 'max_length'], problem, refuse);
}

function checkValueRange(constraints: Record<string, unknown>, refuse: Refuse): void {
  const problem = (key: string, value: unknown): string | null =>
    typeof value === 'number' && Number.isFinite(value) ? null : `${key} must be a number`;
  checkRange(constraints, ['min_value', 'max_value'], problem, refuse);
}

/** Checks each bound that is set, then, when both are set and valid, that min <= max. */
function checkRange(
  constraints: Record<string, unknown>,
  [minKey, maxKey]: [string, string],
  problem: (key: string, value: unknown) => string | null,
  refuse: Refuse,
): void {
  let bothValid = true;
  for (const key of [minKey, maxKey]) {
    const message = constraints[key] === undefined ? null : problem(key, constraints[key]);
    if (message) {
      refuse(key, message);
      bothValid = false;
    }
  }
  const min = constraints[minKey];
  const max = constraints[maxKey];
  if (bothValid && typeof min === 'number' && typeof max === 'number' && min > max) {
    refuse(minKey, `${minKey} must not be greater than ${maxKey}`);
  }
}

function allowedValuesProblem(type: 'select' | 'multi_select', values: unknown): string | null {
  if (values === undefined) return `allowed_values is required for ${type} fields`;
  if (!Array.isArray(values)) return 'allowed_values must be an array of strings';
  if (values.length === 0) return 'allowed_values must not be empty';
  if (values.length > LIMITS.maxAllowedValues) {
    return `allowed_values must have at most ${LIMITS.maxAllowedValues} entries`;
  }
  const seen = new Set<string>();
  for (const value of values) {
    if (typeof value !== 'string' || value.trim() === '')
      return 'allowed_values must contain only non-empty strings';
    if (hasUnstorableCharacters(value)) return 'allowed_values contains characters that are not allowed';
    if (codePointLength(value) > LIMITS.maxAllowedValueLength) {
      return `each allowed value must be at most ${LIMITS.maxAllowedValueLength} characters`;
    }
    if (seen.has(value)) return `allowed_values contains "${value}" more than once`;
    seen.add(value);
  }
  return null;
}

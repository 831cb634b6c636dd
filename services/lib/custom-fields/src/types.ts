/** The field_schema vocabulary shared by the schema parser and the value validator. */
import { MAX_INT32, MIN_INT32, type CustomFieldType } from '@tix/contract';

/** A field's type: one of CUSTOM_FIELD_TYPES (@tix/contract, also in the gateway's OpenAPI document). */
export type FieldType = CustomFieldType;

export interface FieldDefinition {
  name: string;
  label: string;
  type: FieldType;
  required: boolean;
  constraints: Record<string, unknown>;
  default_value: unknown;
  order: number;
}

export type FieldSchema = FieldDefinition[];
export type CustomFieldValues = Record<string, unknown>;
/** Field path -> messages, ready for an error envelope's validation_errors. */
export type FieldErrors = Record<string, string[]>;

export type Result<T> = { ok: true; value: T } | { ok: false; errors: FieldErrors };

/** Constraint keys each type accepts (spec: "Constraints by type"); anything else is refused. */
export const CONSTRAINT_KEYS: Readonly<Record<FieldType, readonly string[]>> = {
  text: ['min_length', 'max_length', 'pattern'],
  textarea: ['min_length', 'max_length'],
  number: ['min_value', 'max_value'],
  select: ['allowed_values'],
  multi_select: ['allowed_values'],
  date: [],
  datetime: [],
  boolean: [],
  email: [],
  url: [],
};

/** Ceilings that hold whatever a schema says: they bound storage and the work a `pattern` can cause. */
export const LIMITS = {
  /** Fields per ticket type. */
  maxFields: 100,
  /** Field label length (code points). */
  maxLabelLength: 200,
  /** Longest `text` value (code points), also the largest allowed `max_length` for text. */
  maxTextLength: 1000,
  /** Longest `textarea` value (code points), also the largest allowed `max_length` for textarea. */
  maxTextareaLength: 10000,
  /** Longest `pattern` source (UTF-16 code units). */
  maxPatternLength: 500,
  /** Largest repetition count `{n,m}` allowed inside a `pattern`. */
  maxPatternRepeat: 1000,
  /** Entries in `allowed_values`. */
  maxAllowedValues: 500,
  /** Length of one allowed value (code points). */
  maxAllowedValueLength: 200,
  /** Longest email address (RFC 5321 path limit). */
  maxEmailLength: 254,
  /** Longest URL. */
  maxUrlLength: 2048,
  /** Smallest and largest `order`, so it fits a 32-bit integer column. */
  minOrder: MIN_INT32,
  maxOrder: MAX_INT32,
} as const;

/** Narrows unknown JSON to a plain object (not an array, not a class instance). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

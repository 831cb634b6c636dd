/**
 * Custom fields from a ticket type's field_schema: the input for each field type, the draft a form
 * holds and the value the API takes, the display of a stored value, and the client-side check.
 * The check runs the server's own rules (@tix/custom-fields) so that most mistakes are shown before
 * a request, in the server's words; the server's 422 (keyed `custom_fields.<name>`) stays the
 * authority and is shown the same way.
 */
import { validateCustomFields } from '@tix/custom-fields';
import { CheckboxGroup } from './controls';
import { formatDateTime, type FieldSchemaEntry } from './model';
import { Labelled, SelectField } from '../../ui/field';

/** What a form holds for one field: text for most types, a flag, or a list of choices. */
export type FieldDraft = string | boolean | string[];
export type CustomFieldDrafts = Record<string, FieldDraft>;

/** Fields in display order (`order`, then the schema's own order). */
export function orderedFields(schema: FieldSchemaEntry[]): FieldSchemaEntry[] {
  return schema
    .map((field, index) => ({ field, index }))
    .sort((a, b) => a.field.order - b.field.order || a.index - b.index)
    .map(({ field }) => field);
}

function allowedValues(field: FieldSchemaEntry): string[] {
  const values = field.constraints.allowed_values;
  return Array.isArray(values) ? values.filter((value): value is string => typeof value === 'string') : [];
}

const pad = (value: number) => String(value).padStart(2, '0');

/** An ISO instant as the local `YYYY-MM-DDTHH:MM:SS` a datetime-local input shows. */
function localDateTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
  );
}

/** The draft a form starts from for a stored (or default) value. */
export function toDraft(field: FieldSchemaEntry, value: unknown): FieldDraft {
  switch (field.type) {
    case 'boolean':
      return value === true;
    case 'multi_select':
      return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
    case 'datetime':
      return typeof value === 'string' ? localDateTime(value) : '';
    case 'number':
      return typeof value === 'number' ? String(value) : '';
    default:
      return typeof value === 'string' ? value : '';
  }
}

/** The drafts of every field, from stored values (the defaults where none is given). */
export function draftsOf(schema: FieldSchemaEntry[], values?: Record<string, unknown>): CustomFieldDrafts {
  const drafts: CustomFieldDrafts = {};
  for (const field of schema) {
    drafts[field.name] = toDraft(field, values ? values[field.name] : (field.default_value ?? null));
  }
  return drafts;
}

/** The value the API takes for a draft: null for "no value"; text that is not a number stays text. */
export function fromDraft(field: FieldSchemaEntry, draft: FieldDraft): unknown {
  if (typeof draft === 'boolean') return draft;
  if (Array.isArray(draft)) return draft.length > 0 ? draft : null;
  if (draft.trim() === '') return null;
  if (field.type === 'number') {
    const number = Number(draft);
    return Number.isFinite(number) ? number : draft;
  }
  if (field.type === 'datetime') {
    const date = new Date(draft);
    return Number.isNaN(date.getTime()) ? draft : date.toISOString();
  }
  return draft;
}

export function valuesOf(schema: FieldSchemaEntry[], drafts: CustomFieldDrafts): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const field of schema) values[field.name] = fromDraft(field, drafts[field.name] ?? '');
  return values;
}

/** Errors keyed `custom_fields.<name>`, as the server's 422 keys them (none when every value passes). */
export function checkCustomFields(
  schema: FieldSchemaEntry[],
  values: Record<string, unknown>,
): Record<string, string[]> {
  // The document types default_value as optional; the server stores null for "no default".
  const definitions = schema.map((field) => ({ ...field, default_value: field.default_value ?? null }));
  const result = validateCustomFields(definitions, values);
  return result.ok ? {} : result.errors;
}

/** The messages for one API value of `field` (none when it passes). */
export function checkCustomField(field: FieldSchemaEntry, value: unknown): string[] {
  return checkCustomFields([field], { [field.name]: value })[`custom_fields.${field.name}`] ?? [];
}

/** A stored value as text ("—" for none). */
export function formatCustomValue(field: FieldSchemaEntry, value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (Array.isArray(value)) return value.length > 0 ? value.join(', ') : '—';
  if (field.type === 'datetime' && typeof value === 'string') return formatDateTime(value);
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  return JSON.stringify(value);
}

const INPUT_TYPES = {
  text: 'text',
  email: 'email',
  url: 'url',
  number: 'number',
  date: 'date',
  datetime: 'datetime-local',
} as const;

/** The labelled input of one field for its draft. */
export function CustomFieldInput({
  field,
  draft,
  onDraft,
  errors,
}: {
  field: FieldSchemaEntry;
  draft: FieldDraft;
  onDraft: (draft: FieldDraft) => void;
  errors?: string[] | undefined;
}) {
  const label = field.required ? `${field.label} (required)` : field.label;
  if (field.type === 'multi_select') {
    const options = allowedValues(field).map((value) => ({ value, label: value }));
    return (
      <CheckboxGroup
        legend={label}
        options={options}
        values={Array.isArray(draft) ? draft : []}
        onValues={onDraft}
        errors={errors}
      />
    );
  }
  if (field.type === 'boolean') {
    return (
      <Labelled label={label} errors={errors}>
        {(attributes) => (
          <input
            {...attributes}
            type="checkbox"
            class="ticket-checkbox-input"
            checked={draft === true}
            onChange={(event) => onDraft(event.currentTarget.checked)}
          />
        )}
      </Labelled>
    );
  }
  const text = typeof draft === 'string' ? draft : '';
  if (field.type === 'select') {
    const options = [
      { value: '', label: '—' },
      ...allowedValues(field).map((value) => ({ value, label: value })),
    ];
    return <SelectField label={label} value={text} options={options} onValue={onDraft} errors={errors} />;
  }
  if (field.type === 'textarea') {
    return (
      <Labelled label={label} errors={errors}>
        {(attributes) => (
          <textarea
            {...attributes}
            rows={3}
            value={text}
            onInput={(event) => onDraft(event.currentTarget.value)}
          />
        )}
      </Labelled>
    );
  }
  const type = INPUT_TYPES[field.type];
  return (
    <Labelled label={label} errors={errors}>
      {(attributes) => (
        <input
          {...attributes}
          // Preact types <input> per `type`; every type listed in INPUT_TYPES takes these attributes.
          // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
          type={type as 'text'}
          step={field.type === 'datetime' ? 1 : field.type === 'number' ? 'any' : undefined}
          value={text}
          onInput={(event) => onDraft(event.currentTarget.value)}
        />
      )}
    </Labelled>
  );
}

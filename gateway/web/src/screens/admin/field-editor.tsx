/**
 * The editor of a ticket type's `field_schema` (spec "Ticket type"): one row per custom field with
 * its name, label, type, required flag and the constraints its type takes (text: lengths and a
 * pattern; textarea: lengths; number: bounds; select and multi_select: the options, one a line),
 * reordered with Up and Down (`order` is the position) and removed. The server validates; its 422
 * paths (`field_schema[2].constraints.allowed_values`) land on the control they name.
 */
import { CUSTOM_FIELD_TYPES } from '@tix/contract';
import { Button } from '../../ui/button';
import type { components } from '../../generated/api';
import { Field, SelectField, TextAreaField } from '../../ui/field';
import { CheckboxField, Errors, type FieldErrors } from './controls';

type Entry = components['schemas']['FieldSchemaEntry'];
export type FieldType = Entry['type'];

export const FIELD_TYPES = CUSTOM_FIELD_TYPES satisfies readonly FieldType[];

const TYPE_LABELS: Record<FieldType, string> = {
  text: 'Text',
  textarea: 'Long text',
  number: 'Number',
  date: 'Date',
  datetime: 'Date and time',
  select: 'Select (one option)',
  multi_select: 'Multi-select (several options)',
  boolean: 'Yes / no',
  email: 'Email',
  url: 'URL',
};

/** The constraint inputs each type shows: [constraint key, label]. */
const CONSTRAINT_INPUTS: Record<FieldType, readonly (readonly [string, string])[]> = {
  text: [
    ['min_length', 'Minimum length'],
    ['max_length', 'Maximum length'],
    ['pattern', 'Pattern (regular expression)'],
  ],
  textarea: [
    ['min_length', 'Minimum length'],
    ['max_length', 'Maximum length'],
  ],
  number: [
    ['min_value', 'Minimum value'],
    ['max_value', 'Maximum value'],
  ],
  select: [],
  multi_select: [],
  date: [],
  datetime: [],
  boolean: [],
  email: [],
  url: [],
};

const takesOptions = (type: FieldType) => type === 'select' || type === 'multi_select';

/** A field as the editor holds it: constraint values as typed, options one a line. */
export interface DraftField {
  key: number;
  name: string;
  label: string;
  type: FieldType;
  required: boolean;
  constraints: Record<string, string>;
  options: string;
  /** Kept as stored (the editor does not change it; a type change clears it). */
  default_value: unknown;
}

let nextKey = 1;

export function newDraftField(): DraftField {
  return {
    key: nextKey++,
    name: '',
    label: '',
    type: 'text',
    required: false,
    constraints: {},
    options: '',
    default_value: null,
  };
}

export function toDraft(entry: Entry): DraftField {
  const constraints: Record<string, string> = {};
  let options = '';
  for (const [key, value] of Object.entries(entry.constraints)) {
    if (key === 'allowed_values' && Array.isArray(value))
      options = value
        .map((option) => (typeof option === 'string' ? option : JSON.stringify(option)))
        .join('\n');
    else if (value !== null && value !== undefined)
      constraints[key] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return {
    key: nextKey++,
    name: entry.name,
    label: entry.label,
    type: entry.type,
    required: entry.required,
    constraints,
    options,
    default_value: entry.default_value ?? null,
  };
}

/** The schema entry the API takes; a number typed in a bound is sent as a number, anything else as typed. */
export function toEntry(draft: DraftField, index: number): Entry {
  const constraints: Record<string, unknown> = {};
  for (const [key] of CONSTRAINT_INPUTS[draft.type]) {
    const typed = (draft.constraints[key] ?? '').trim();
    if (typed === '') continue;
    constraints[key] = key === 'pattern' || !Number.isFinite(Number(typed)) ? typed : Number(typed);
  }
  if (takesOptions(draft.type)) {
    constraints.allowed_values = draft.options
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '');
  }
  return {
    name: draft.name.trim(),
    label: draft.label,
    type: draft.type,
    required: draft.required,
    constraints,
    default_value: draft.default_value,
    order: index,
  };
}

interface FieldEditorProps {
  fields: DraftField[];
  onFields: (fields: DraftField[]) => void;
  /** The form's field errors (keys under `field_schema`). */
  errors: FieldErrors;
}

function FieldRow({
  field,
  index,
  count,
  errors,
  onChange,
  onMove,
  onRemove,
}: {
  field: DraftField;
  index: number;
  count: number;
  errors: FieldErrors;
  onChange: (change: Partial<DraftField>) => void;
  onMove: (by: -1 | 1) => void;
  onRemove: () => void;
}) {
  const path = `field_schema[${index}]`;
  const errorsOf = (key: string) => errors[`${path}.${key}`];
  const placed = new Set([
    'name',
    'label',
    'type',
    'required',
    ...CONSTRAINT_INPUTS[field.type].map(([key]) => `constraints.${key}`),
    ...(takesOptions(field.type) ? ['constraints.allowed_values'] : []),
  ]);
  // What the server said of this field that no control shows (the entry itself, a default value).
  const rest = Object.entries(errors)
    .filter(
      ([key]) => key === path || (key.startsWith(`${path}.`) && !placed.has(key.slice(path.length + 1))),
    )
    .flatMap(([key, messages]) =>
      messages.map((message) => (key === path ? message : `${key.slice(path.length + 1)}: ${message}`)),
    );
  const title = field.label || field.name || `Field ${index + 1}`;
  return (
    <li class="admin-schema-field" aria-label={`Field ${index + 1}: ${title}`}>
      <div class="admin-row">
        <Field
          label={`Field ${index + 1} name`}
          name={`${path}.name`}
          hint="The key in custom_fields: lower-case letters, digits, underscores."
          value={field.name}
          onValue={(name) => onChange({ name })}
          errors={errorsOf('name')}
        />
        <Field
          label={`Field ${index + 1} label`}
          name={`${path}.label`}
          value={field.label}
          onValue={(label) => onChange({ label })}
          errors={errorsOf('label')}
        />
        <SelectField
          label={`Field ${index + 1} type`}
          name={`${path}.type`}
          value={field.type}
          onValue={(type) => onChange({ type: type as FieldType, constraints: {}, default_value: null })}
          options={FIELD_TYPES.map((type) => ({ value: type, label: TYPE_LABELS[type] }))}
          errors={errorsOf('type')}
        />
      </div>
      <CheckboxField
        label={`Field ${index + 1} required`}
        name={`${path}.required`}
        checked={field.required}
        onChecked={(required) => onChange({ required })}
        errors={errorsOf('required')}
      />
      {CONSTRAINT_INPUTS[field.type].length > 0 && (
        <div class="admin-row">
          {CONSTRAINT_INPUTS[field.type].map(([key, label]) => (
            <Field
              key={key}
              label={`Field ${index + 1} ${label.toLowerCase()}`}
              name={`${path}.constraints.${key}`}
              value={field.constraints[key] ?? ''}
              onValue={(value) => onChange({ constraints: { ...field.constraints, [key]: value } })}
              errors={errorsOf(`constraints.${key}`)}
            />
          ))}
        </div>
      )}
      {takesOptions(field.type) && (
        <TextAreaField
          label={`Field ${index + 1} options`}
          name={`${path}.constraints.allowed_values`}
          hint="One option a line."
          rows={4}
          value={field.options}
          onValue={(options) => onChange({ options })}
          errors={errorsOf('constraints.allowed_values')}
        />
      )}
      {field.default_value !== null && field.default_value !== undefined && (
        <p class="muted">Default value: {JSON.stringify(field.default_value)}</p>
      )}
      <Errors id={`schema-field-${field.key}`} errors={rest.length > 0 ? rest : undefined} />
      <div class="admin-inline">
        <Button
          kind="quiet"
          disabled={index === 0}
          aria-label={`Move ${title} up`}
          onClick={() => onMove(-1)}
        >
          Up
        </Button>
        <Button
          kind="quiet"
          disabled={index === count - 1}
          aria-label={`Move ${title} down`}
          onClick={() => onMove(1)}
        >
          Down
        </Button>
        <Button kind="quiet" aria-label={`Remove field ${title}`} onClick={onRemove}>
          Remove field
        </Button>
      </div>
    </li>
  );
}

export function FieldEditor({ fields, onFields, errors }: FieldEditorProps) {
  function move(index: number, by: -1 | 1) {
    const copy = [...fields];
    const [moved] = copy.splice(index, 1);
    copy.splice(index + by, 0, moved!);
    onFields(copy);
  }
  return (
    <fieldset class="admin-fieldset">
      <legend>Custom fields</legend>
      <Errors id="field-schema" errors={errors.field_schema} />
      {fields.length === 0 && (
        <p class="muted">No custom fields: tickets of this type have only the standard ones.</p>
      )}
      <ol class="admin-schema">
        {fields.map((field, index) => (
          <FieldRow
            key={field.key}
            field={field}
            index={index}
            count={fields.length}
            errors={errors}
            onChange={(change) =>
              onFields(fields.map((each) => (each.key === field.key ? { ...each, ...change } : each)))
            }
            onMove={(by) => move(index, by)}
            onRemove={() => onFields(fields.filter((each) => each.key !== field.key))}
          />
        ))}
      </ol>
      <Button onClick={() => onFields([...fields, newDraftField()])}>Add a field</Button>
    </fieldset>
  );
}

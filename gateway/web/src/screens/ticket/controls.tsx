/**
 * Labelled form controls the ticket screens need beyond ui/field.tsx's text input: select,
 * textarea, checkbox and a group of checkboxes, each with its field errors linked by
 * aria-describedby (the same pattern as <Field>).
 */
import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';

export interface ControlAttributes {
  id: string;
  'aria-describedby'?: string;
  'aria-invalid'?: 'true';
}

export function ErrorList({ id, errors }: { id: string; errors: string[] | undefined }) {
  if (!errors?.length) return null;
  return (
    <ul class="field-errors" id={id}>
      {errors.map((message) => (
        <li key={message}>{message}</li>
      ))}
    </ul>
  );
}

/** A label, a hint and errors around one control, which receives its id and aria attributes. */
export function Labelled({
  label,
  hint,
  errors,
  children,
}: {
  label: ComponentChildren;
  hint?: string | undefined;
  errors?: string[] | undefined;
  children: (attributes: ControlAttributes) => ComponentChildren;
}) {
  const id = useId();
  const described = [hint ? `${id}-hint` : '', errors?.length ? `${id}-errors` : '']
    .filter(Boolean)
    .join(' ');
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {hint && (
        <p class="field-hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {children({
        id,
        ...(described ? { 'aria-describedby': described } : {}),
        ...(errors?.length ? { 'aria-invalid': 'true' as const } : {}),
      })}
      <ErrorList id={`${id}-errors`} errors={errors} />
    </div>
  );
}

export interface Option {
  value: string;
  label: string;
}

export function SelectField({
  label,
  value,
  options,
  onValue,
  errors,
  hint,
  name,
}: {
  label: string;
  value: string;
  options: readonly Option[];
  onValue: (value: string) => void;
  errors?: string[] | undefined;
  hint?: string;
  name?: string;
}) {
  return (
    <Labelled label={label} errors={errors} hint={hint}>
      {(attributes) => (
        <select
          {...attributes}
          name={name}
          value={value}
          onChange={(event) => onValue(event.currentTarget.value)}
        >
          {options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      )}
    </Labelled>
  );
}

export function TextAreaField({
  label,
  value,
  onValue,
  errors,
  hint,
  name,
  rows = 4,
}: {
  label: string;
  value: string;
  onValue: (value: string) => void;
  errors?: string[] | undefined;
  hint?: string;
  name?: string;
  rows?: number;
}) {
  return (
    <Labelled label={label} errors={errors} hint={hint}>
      {(attributes) => (
        <textarea
          {...attributes}
          name={name}
          rows={rows}
          value={value}
          onInput={(event) => onValue(event.currentTarget.value)}
        />
      )}
    </Labelled>
  );
}

/** Checkboxes under one legend (a multi-select), with the group's errors. */
export function CheckboxGroup({
  legend,
  options,
  values,
  onValues,
  errors,
}: {
  legend: string;
  options: readonly Option[];
  values: string[];
  onValues: (values: string[]) => void;
  errors?: string[] | undefined;
}) {
  const id = useId();
  return (
    <fieldset
      class="field ticket-checkbox-group"
      aria-describedby={errors?.length ? `${id}-errors` : undefined}
    >
      <legend>{legend}</legend>
      {options.map((option) => (
        <label key={option.value} class="ticket-checkbox">
          <input
            type="checkbox"
            checked={values.includes(option.value)}
            onChange={(event) =>
              onValues(
                event.currentTarget.checked
                  ? [...values, option.value]
                  : values.filter((value) => value !== option.value),
              )
            }
          />
          {option.label}
        </label>
      ))}
      <ErrorList id={`${id}-errors`} errors={errors} />
    </fieldset>
  );
}

/**
 * Labelled form controls, each with its field errors (from a 422's validation_errors, keyed by the
 * API's field name) linked by aria-describedby so a screen reader reads them with the control:
 * `Labelled` (a label, a hint and errors around any one control), and on it a text input (`Field`),
 * a select and a textarea. `FormError` is an error of the whole form.
 */
import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';
import './field.css';

export interface ControlAttributes {
  id: string;
  'aria-describedby'?: string;
  'aria-invalid'?: 'true';
}

export interface Option {
  value: string;
  label: string;
}

/** The <option>s of a select. */
export function Options({ options }: { options: readonly Option[] }) {
  return (
    <>
      {options.map((option) => (
        <option key={option.value} value={option.value}>
          {option.label}
        </option>
      ))}
    </>
  );
}

/** Values as options, each labelled by `label` (the value itself by default). */
export function optionsOf(
  values: readonly string[],
  label: (value: string) => string = (value) => value,
): Option[] {
  return values.map((value) => ({ value, label: label(value) }));
}

/** The messages of one field, under the id its control's aria-describedby names. */
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

interface ControlProps {
  label: string;
  /** The API's name of the field (also the control's name). */
  name?: string;
  value: string;
  onValue: (value: string) => void;
  errors?: string[] | undefined;
  hint?: string;
  disabled?: boolean;
}

/** A control's name (the API's field), value, setter and that field's errors, from one call. */
export type BoundControl = Required<Pick<ControlProps, 'name' | 'value' | 'onValue'>> &
  Pick<ControlProps, 'errors'>;

/** Binds a control to the field `name` of a form whose 422 errors are `errors`. */
export function bindControl(
  errors: Record<string, string[]>,
  name: string,
  value: string,
  onValue: (value: string) => void,
): BoundControl {
  return { name, value, onValue, errors: errors[name] };
}

interface FieldProps extends ControlProps {
  name: string;
  type?: 'text' | 'email' | 'password' | 'number' | 'search' | 'url';
  autoComplete?: string;
  required?: boolean;
}

export function Field({ label, value, onValue, errors, hint, type = 'text', ...input }: FieldProps) {
  return (
    <Labelled label={label} errors={errors} hint={hint}>
      {(attributes) => (
        <input
          {...input}
          // Preact 11 types <input> per `type`, which tsc cannot match for a union; the attributes given
          // here suit every type listed above. (typescript-eslint resolves the type differently.)
          // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
          type={type as 'text'}
          {...attributes}
          value={value}
          onInput={(event) => onValue(event.currentTarget.value)}
        />
      )}
    </Labelled>
  );
}

export function SelectField({
  label,
  value,
  onValue,
  options,
  errors,
  hint,
  ...select
}: ControlProps & { options: readonly Option[] }) {
  return (
    <Labelled label={label} errors={errors} hint={hint}>
      {(attributes) => (
        <select
          {...select}
          {...attributes}
          value={value}
          onChange={(event) => onValue(event.currentTarget.value)}
        >
          <Options options={options} />
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
  rows = 3,
  ...textarea
}: ControlProps & { rows?: number }) {
  return (
    <Labelled label={label} errors={errors} hint={hint}>
      {(attributes) => (
        <textarea
          {...textarea}
          {...attributes}
          rows={rows}
          value={value}
          onInput={(event) => onValue(event.currentTarget.value)}
        />
      )}
    </Labelled>
  );
}

/** An error of the whole form (not of one field), announced when it appears. */
export function FormError({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <p class="form-error" role="alert">
      {message}
    </p>
  );
}

/**
 * A labelled input with its field errors (from a 422's validation_errors, keyed by the API's field
 * name), linked by aria-describedby so a screen reader reads them with the field.
 */
import { useId } from 'preact/hooks';
import './field.css';

interface FieldProps {
  label: string;
  /** The API's name of the field (also the input's name). */
  name: string;
  type?: 'text' | 'email' | 'password' | 'number' | 'search' | 'url';
  value: string;
  onValue: (value: string) => void;
  errors?: string[] | undefined;
  hint?: string;
  autoComplete?: string;
  required?: boolean;
  disabled?: boolean;
}

export function Field({ label, value, onValue, errors, hint, type = 'text', ...input }: FieldProps) {
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
      <input
        {...input}
        // Preact 11 types <input> per `type`, which tsc cannot match for a union; the attributes given
        // here suit every type listed above. (typescript-eslint resolves the type differently.)
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
        type={type as 'text'}
        id={id}
        value={value}
        onInput={(event) => onValue(event.currentTarget.value)}
        aria-invalid={errors?.length ? 'true' : undefined}
        aria-describedby={described || undefined}
      />
      {errors?.length ? (
        <ul class="field-errors" id={`${id}-errors`}>
          {errors.map((message) => (
            <li key={message}>{message}</li>
          ))}
        </ul>
      ) : null}
    </div>
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

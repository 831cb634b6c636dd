/**
 * Form controls the administration screens share beside ui/field.tsx's (text, select, textarea): a
 * checkbox and a checkbox group, each labelled and showing its 422 field errors (linked by
 * aria-describedby), a titled panel, and `useForm`, the administration forms' submit path: busy
 * flag, 422 -> field errors, other refusals of the form -> a form error, everything else ->
 * showError (ui/submit.ts's `useSubmit` is the same path for the other screens, with refusals in a
 * toast). `form.field`/`checkbox`/`choice` bind a control to its field by the API's name.
 */
import type { ComponentChildren } from 'preact';
import { useId, useState } from 'preact/hooks';
import { ApiError, fieldErrorsOf, showError } from '../../api/client';
import { Button } from '../../ui/button';
import { EmptyState, Loading } from '../../ui/empty-state';
import { bindControl, ErrorList, FormError, type BoundControl } from '../../ui/field';
import { ColumnHeads } from '../../ui/table';
import type { FieldErrors } from '../../ui/submit';
import './admin.css';

export type { FieldErrors };

/** Statuses a form shows as its own error (the request was understood and refused), not a toast. */
const FORM_REFUSALS = new Set([403, 404, 409, 422]);

export interface FormState {
  busy: boolean;
  fieldErrors: FieldErrors;
  formError: string | null;
  /** Runs `action`; answers true when it succeeded. Errors land in fieldErrors/formError or a toast. */
  run: (action: () => Promise<void>) => Promise<boolean>;
  clear: () => void;
  /** A text, select or textarea control's props: its name is the API's field, whose errors it shows. */
  field: (name: string, value: string, onValue: (value: string) => void) => BoundControl;
  /** A CheckboxField's props, bound the same way. */
  checkbox: (name: string, checked: boolean, onChecked: (checked: boolean) => void) => BoundCheckbox;
  /** A CheckboxGroup's props, bound the same way. */
  choice: (name: string, chosen: readonly string[], onChosen: (chosen: string[]) => void) => BoundChoice;
}

interface Bound {
  name: string;
  errors: string[] | undefined;
}

export interface BoundCheckbox extends Bound {
  checked: boolean;
  onChecked: (checked: boolean) => void;
}

export interface BoundChoice extends Bound {
  chosen: readonly string[];
  onChosen: (chosen: string[]) => void;
}

export function useForm(): FormState {
  const [busy, setBusy] = useState(false);
  const [fieldErrors, setFieldErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<string | null>(null);
  function clear() {
    setFieldErrors({});
    setFormError(null);
  }
  async function run(action: () => Promise<void>): Promise<boolean> {
    setBusy(true);
    clear();
    try {
      await action();
      return true;
    } catch (error) {
      const fields = fieldErrorsOf(error);
      if (fields) {
        setFieldErrors(fields);
        setFormError('Check the highlighted fields.');
      } else if (error instanceof ApiError && FORM_REFUSALS.has(error.status)) setFormError(error.message);
      else showError(error);
      return false;
    } finally {
      setBusy(false);
    }
  }
  const bound = (name: string): Bound => ({ name, errors: fieldErrors[name] });
  return {
    busy,
    fieldErrors,
    formError,
    run,
    clear,
    field: (name, value, onValue) => bindControl(fieldErrors, name, value, onValue),
    checkbox: (name, checked, onChecked) => ({ ...bound(name), checked, onChecked }),
    choice: (name, chosen, onChosen) => ({ ...bound(name), chosen, onChosen }),
  };
}

/** The messages of `errors` under keys no control of the form shows (e.g. `body`), for the form error. */
export function unplacedErrors(errors: FieldErrors, placed: readonly string[]): string[] {
  return Object.entries(errors)
    .filter(([key]) => !placed.includes(key))
    .flatMap(([key, messages]) => messages.map((message) => `${key}: ${message}`));
}

function describedBy(id: string, errors: string[] | undefined): string | undefined {
  return errors?.length ? `${id}-errors` : undefined;
}

export function Errors({ id, errors }: { id: string; errors: string[] | undefined }) {
  return <ErrorList id={`${id}-errors`} errors={errors} />;
}

interface CheckboxFieldProps {
  label: string;
  name: string;
  checked: boolean;
  onChecked: (checked: boolean) => void;
  errors?: string[] | undefined;
  disabled?: boolean;
}

export function CheckboxField({ label, name, checked, onChecked, errors, disabled }: CheckboxFieldProps) {
  const id = useId();
  return (
    <div class="field admin-checkbox">
      <input
        type="checkbox"
        id={id}
        name={name}
        checked={checked}
        disabled={disabled}
        onChange={(event) => onChecked(event.currentTarget.checked)}
        aria-invalid={errors?.length ? 'true' : undefined}
        aria-describedby={describedBy(id, errors)}
      />
      <label for={id}>{label}</label>
      <Errors id={id} errors={errors} />
    </div>
  );
}

interface CheckboxGroupProps {
  legend: string;
  name: string;
  options: readonly string[];
  chosen: readonly string[];
  onChosen: (chosen: string[]) => void;
  errors?: string[] | undefined;
}

/** A fieldset of checkboxes choosing a subset of `options` (scopes, events), kept in `options` order. */
export function CheckboxGroup({ legend, name, options, chosen, onChosen, errors }: CheckboxGroupProps) {
  const id = useId();
  return (
    <fieldset class="field admin-checkbox-group" aria-describedby={describedBy(id, errors)}>
      <legend>{legend}</legend>
      {options.map((option) => (
        <label key={option} class="admin-checkbox">
          <input
            type="checkbox"
            name={name}
            value={option}
            checked={chosen.includes(option)}
            onChange={(event) => {
              const on = event.currentTarget.checked;
              onChosen(options.filter((each) => (each === option ? on : chosen.includes(each))));
            }}
          />
          {option}
        </label>
      ))}
      <Errors id={id} errors={errors} />
    </fieldset>
  );
}

/** A titled panel of an administration screen. */
export function Panel({ title, children }: { title: string; children: ComponentChildren }) {
  const id = useId();
  return (
    <section class="admin-panel" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

/**
 * A list of an administration screen as a table: loading until `rows` arrive, `empty` when there are
 * none, else the columns' headings and a row each (`children` renders a row, with its key).
 */
export function AdminTable<Row>({
  label,
  what,
  empty,
  rows,
  columns,
  children,
}: {
  label: string;
  what: string;
  empty: string;
  rows: readonly Row[] | null;
  columns: readonly string[];
  children: (row: Row) => ComponentChildren;
}) {
  if (!rows) return <Loading what={what} />;
  if (rows.length === 0) return <EmptyState title={empty} />;
  return (
    <div class="admin-table-wrap">
      <table class="admin-table" aria-label={label}>
        <ColumnHeads columns={columns} />
        <tbody>{rows.map(children)}</tbody>
      </table>
    </div>
  );
}

/**
 * A form of an administration screen: the browser does not validate (the server's 422 names the
 * fields), submitting runs `onSubmit` through the form's `run`, and the form's error shows above the
 * controls together with field errors no control shows (`otherErrors`, or those not in `placed`).
 * The controls end with the primary button `submit` names, and `actions` beside it when given.
 */
export function AdminForm({
  form,
  placed = [],
  otherErrors,
  label,
  onSubmit,
  submit,
  actions,
  children,
}: {
  form: FormState;
  placed?: readonly string[];
  otherErrors?: readonly string[];
  label?: string;
  onSubmit: () => Promise<void>;
  submit: string;
  actions?: ComponentChildren;
  children: ComponentChildren;
}) {
  const unplaced = otherErrors ?? unplacedErrors(form.fieldErrors, placed);
  return (
    <form
      class="form admin-form"
      onSubmit={(event) => {
        event.preventDefault();
        void form.run(onSubmit);
      }}
      noValidate
      aria-label={label}
    >
      <FormError message={[form.formError, ...unplaced].filter(Boolean).join(' ') || null} />
      {children}
      <div class={actions ? 'admin-inline' : undefined}>
        <Button kind="primary" type="submit" busy={form.busy}>
          {submit}
        </Button>
        {actions}
      </div>
    </form>
  );
}

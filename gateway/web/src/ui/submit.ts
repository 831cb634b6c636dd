/**
 * The submit path of a form whose field errors show beside its controls: busy while the action runs,
 * a 422's field errors kept under the API's field names (for ui/field.tsx's controls), anything else
 * a toast. (The administration screens' `useForm`, screens/admin/controls.tsx, also shows refusals
 * as a form error.)
 */
import { useState } from 'preact/hooks';
import { fieldErrorsOf, showError } from '../api/client';
import { bindControl, type BoundControl } from './field';

export type FieldErrors = Record<string, string[]>;

export interface Submit {
  busy: boolean;
  errors: FieldErrors;
  setErrors: (errors: FieldErrors) => void;
  /**
   * Runs `action` with the errors cleared; a 422 lands in `errors`, anything else in `otherwise`
   * (a toast by default).
   */
  run: (action: () => Promise<void>, otherwise?: (error: unknown) => void) => Promise<void>;
  /** A ui/field.tsx control's props: its name is the API's field, whose errors it shows. */
  field: (name: string, value: string, onValue: (value: string) => void) => BoundControl;
}

export function useSubmit(): Submit {
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FieldErrors>({});
  async function run(
    action: () => Promise<void>,
    otherwise: (error: unknown) => void = showError,
  ): Promise<void> {
    setBusy(true);
    setErrors({});
    try {
      await action();
    } catch (error) {
      const fields = fieldErrorsOf(error);
      if (fields) setErrors(fields);
      else otherwise(error);
    } finally {
      setBusy(false);
    }
  }
  return {
    busy,
    errors,
    setErrors,
    run,
    field: (name, value, onValue) => bindControl(errors, name, value, onValue),
  };
}

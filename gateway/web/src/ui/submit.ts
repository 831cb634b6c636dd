/**
 * The submit path of a form whose field errors show beside its controls: busy while the action runs,
 * a 422's field errors kept under the API's field names (for ui/field.tsx's controls), anything else
 * a toast. (The administration screens' `useForm`, screens/admin/controls.tsx, also shows refusals
 * as a form error.)
 */
import { useState } from 'preact/hooks';
import { fieldErrorsOf, showError } from '../api/client';

export type FieldErrors = Record<string, string[]>;

export interface Submit {
  busy: boolean;
  errors: FieldErrors;
  setErrors: (errors: FieldErrors) => void;
  /** Runs `action` with the errors cleared; a 422 lands in `errors`, anything else in a toast. */
  run: (action: () => Promise<void>) => Promise<void>;
}

export function useSubmit(): Submit {
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FieldErrors>({});
  async function run(action: () => Promise<void>): Promise<void> {
    setBusy(true);
    setErrors({});
    try {
      await action();
    } catch (error) {
      const fields = fieldErrorsOf(error);
      if (fields) setErrors(fields);
      else showError(error);
    } finally {
      setBusy(false);
    }
  }
  return { busy, errors, setErrors, run };
}

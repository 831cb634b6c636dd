/**
 * One field of the ticket shown as a value with an "Edit" button, which turns into a small form
 * (the editor, Save, Cancel; Escape cancels). The draft is checked by `validate` first; `save`
 * writes it, and what it throws is shown: a 422's messages beside the field, anything else as a
 * toast. Focus goes back to the Edit button when the form closes.
 */
import type { ComponentChildren, JSX } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { fieldErrorsOf, showError } from '../../api/client';
import { Button } from '../../ui/button';

export interface InlineFieldProps<T> {
  label: string;
  /** The value as shown when not editing. */
  shown: ComponentChildren;
  canEdit: boolean;
  /** The draft the editor starts from (read when Edit is pressed). */
  initial: () => T;
  /** The editor: its own labelled control(s) for the draft, showing `errors`. */
  editor: (draft: T, setDraft: (draft: T) => void, errors: string[] | undefined) => JSX.Element;
  validate?: (draft: T) => string[];
  save: (draft: T) => Promise<void>;
  /** 'heading': the value is the page's h1 (the title). */
  variant?: 'row' | 'heading';
}

export function InlineField<T>({
  label,
  shown,
  canEdit,
  initial,
  editor,
  validate,
  save,
  variant = 'row',
}: InlineFieldProps<T>) {
  const [draft, setDraft] = useState<T | null>(null);
  const [errors, setErrors] = useState<string[] | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const editButton = useRef<HTMLButtonElement>(null);
  const form = useRef<HTMLFormElement>(null);
  const wasEditing = useRef(false);
  const editing = draft !== null;

  // In the same task as the render that shows the button or the form again (a layout effect), so
  // focus never lags behind what the reader sees.
  useLayoutEffect(() => {
    if (editing) form.current?.querySelector<HTMLElement>('input, select, textarea')?.focus();
    else if (wasEditing.current) editButton.current?.focus();
    wasEditing.current = editing;
  }, [editing]);

  function close() {
    setDraft(null);
    setErrors(undefined);
  }

  async function submit(event: Event) {
    event.preventDefault();
    if (draft === null) return;
    const problems = validate?.(draft) ?? [];
    if (problems.length > 0) {
      setErrors(problems);
      return;
    }
    setBusy(true);
    try {
      await save(draft);
      close();
    } catch (error) {
      const fieldErrors = fieldErrorsOf(error);
      if (fieldErrors) setErrors(Object.values(fieldErrors).flat());
      else showError(error);
    } finally {
      setBusy(false);
    }
  }

  if (editing) {
    return (
      <form
        ref={form}
        class={`ticket-inline-edit ticket-inline-edit-${variant}`}
        aria-label={`Edit ${label}`}
        noValidate
        onSubmit={(event) => void submit(event)}
        onKeyDown={(event) => {
          if (event.key === 'Escape') {
            event.preventDefault();
            close();
          }
        }}
      >
        {editor(draft, setDraft, errors)}
        <div class="ticket-inline-edit-actions">
          <Button kind="primary" type="submit" busy={busy}>
            Save
          </Button>
          <Button kind="quiet" onClick={close}>
            Cancel
          </Button>
        </div>
      </form>
    );
  }

  const edit = canEdit && (
    <Button
      kind="quiet"
      ref={editButton}
      aria-label={`Edit ${label}`}
      onClick={() => {
        setErrors(undefined);
        setDraft(initial());
      }}
    >
      Edit
    </Button>
  );
  if (variant === 'heading') {
    return (
      <div class="ticket-title-row">
        <h1>{shown}</h1>
        {edit}
      </div>
    );
  }
  return (
    <div class="ticket-field">
      <dt>{label}</dt>
      <dd>
        <span class="ticket-field-value">{shown}</span>
        {edit}
      </dd>
    </div>
  );
}

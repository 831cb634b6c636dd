/**
 * Acknowledging or reverting an autonomous action (team leads and admins): a note or a reason, then
 * POST /ai/audit-queue/{id}/acknowledge or /revert. A revert refused with 409 because the ticket
 * changed since shows which fields, who and when (the server's validation_errors); an admin may then
 * revert anyway (`force`), losing the later change. Used by the audit queue and the ticket's panel.
 */
import { useEffect, useId, useState } from 'preact/hooks';
import { api, ApiError, call, fieldErrorsOf, isConflict, showError } from '../../api/client';
import { can } from '../../session';
import { Button } from '../../ui/button';
import { Dialog } from '../../ui/dialog';
import { toast } from '../../ui/toast';
import { actionLabel, type AutonomousAction } from './format';
import './ai.css';

export type ReviewKind = 'acknowledge' | 'revert';

export interface ReviewRequest {
  kind: ReviewKind;
  action: AutonomousAction;
}

interface Refusal {
  message: string;
  fields: [string, string[]][];
}

export function ReviewDialog({
  request,
  onClose,
  onDone,
}: {
  request: ReviewRequest | null;
  onClose: () => void;
  onDone: (action: AutonomousAction) => void;
}) {
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<string[]>([]);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const textId = useId();
  useEffect(() => {
    setText('');
    setErrors([]);
    setRefusal(null);
  }, [request?.action.id, request?.kind]);

  const revert = request?.kind === 'revert';
  const field = revert ? 'reason' : 'note';

  async function submit(force = false) {
    if (!request) return;
    setBusy(true);
    setErrors([]);
    const id = request.action.id;
    const trimmed = text.trim();
    try {
      const answer = revert
        ? await call(
            api.POST('/ai/audit-queue/{id}/revert', {
              params: { path: { id } },
              body: { ...(trimmed ? { reason: trimmed } : {}), ...(force ? { force: true } : {}) },
            }),
          )
        : await call(
            api.POST('/ai/audit-queue/{id}/acknowledge', {
              params: { path: { id } },
              body: trimmed ? { note: trimmed } : {},
            }),
          );
      toast(revert ? `Reverted: ${answer.action.ticket_number} is as before.` : 'Acknowledged.');
      onDone(answer.action);
    } catch (error) {
      const fieldErrors = fieldErrorsOf(error);
      if (fieldErrors) setErrors(fieldErrors[field] ?? Object.values(fieldErrors).flat());
      else if (isConflict(error) || (error instanceof ApiError && error.status === 422)) {
        setRefusal({ message: error.message, fields: Object.entries(error.fieldErrors) });
      } else showError(error);
    } finally {
      setBusy(false);
    }
  }

  const action = request?.action;
  const title = action
    ? `${revert ? 'Revert' : 'Acknowledge'} ${actionLabel(action.action_type).toLowerCase()} on ${action.ticket_number}`
    : '';
  return (
    <Dialog open={request !== null} title={title} onClose={onClose}>
      {action && (
        <form
          class="ai-review-form"
          onSubmit={(event) => {
            event.preventDefault();
            void submit();
          }}
        >
          <p>
            {revert
              ? 'Restores exactly the fields this action changed; later changes to other fields stay.'
              : 'Marks the action as reviewed and right.'}
          </p>
          <div class="field">
            <label for={textId}>{revert ? 'Reason (optional)' : 'Note (optional)'}</label>
            <textarea
              id={textId}
              name={field}
              rows={3}
              maxLength={1000}
              value={text}
              onInput={(event) => setText(event.currentTarget.value)}
              aria-invalid={errors.length ? 'true' : undefined}
              aria-describedby={errors.length ? `${textId}-errors` : undefined}
            />
            {errors.length > 0 && (
              <ul class="field-errors" id={`${textId}-errors`}>
                {errors.map((message) => (
                  <li key={message}>{message}</li>
                ))}
              </ul>
            )}
          </div>
          {refusal && (
            <div class="ai-refusal" role="alert">
              <p class="ai-refusal-title">{refusal.message}</p>
              {refusal.fields.length > 0 && (
                <ul>
                  {refusal.fields.map(([name, messages]) => (
                    <li key={name}>
                      <strong>{name.replace(/_/g, ' ')}</strong>: {messages.join('; ')}
                    </li>
                  ))}
                </ul>
              )}
              {revert && refusal.fields.length > 0 && can('ai.admin') && (
                <p>As an administrator you may revert anyway: the later change is lost.</p>
              )}
            </div>
          )}
          <div class="dialog-actions">
            {!refusal && (
              <Button type="submit" kind={revert ? 'danger' : 'primary'} busy={busy}>
                {revert ? 'Revert' : 'Acknowledge'}
              </Button>
            )}
            {refusal && revert && refusal.fields.length > 0 && can('ai.admin') && (
              <Button kind="danger" busy={busy} onClick={() => void submit(true)}>
                Force revert
              </Button>
            )}
            <Button kind="quiet" onClick={onClose}>
              {refusal ? 'Close' : 'Cancel'}
            </Button>
          </div>
        </form>
      )}
    </Dialog>
  );
}

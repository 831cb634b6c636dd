/**
 * The kill switch (admins): stops every autonomous action at once, in this project or in all of them,
 * with a reason (POST /ai/autonomy/kill; pressing it again never fails), and resumes them
 * (POST /ai/autonomy/clear-kill, 409 when that switch is not on). Shows the switch's state and who
 * threw or cleared it when, the assistant's effective status and the action types auto-paused.
 */
import { useEffect, useId, useState } from 'preact/hooks';
import { api, call, fieldErrorsOf, isConflict, showError } from '../../api/client';
import { currentProject } from '../../projects';
import { Button } from '../../ui/button';
import { EmptyState, Loading } from '../../ui/empty-state';
import { FormError } from '../../ui/field';
import { toast } from '../../ui/toast';
import { effectiveText, loadAutonomy, type Autonomy } from '../assistant/autonomy';
import { actionLabel, when } from '../assistant/format';
import './kill-switch.css';

type Scope = 'project' | 'global';

export default function KillSwitchScreen() {
  const project = currentProject.value;
  const [autonomy, setAutonomy] = useState<Autonomy | null>(null);
  const [reason, setReason] = useState('');
  const [scope, setScope] = useState<Scope>('project');
  const [errors, setErrors] = useState<string[]>([]);
  const [refusal, setRefusal] = useState<string | null>(null);
  const [busy, setBusy] = useState<'kill' | 'clear' | null>(null);
  const reasonId = useId();

  useEffect(() => {
    if (!project) return;
    setAutonomy(null);
    loadAutonomy(project.id).then(setAutonomy).catch(showError);
  }, [project?.id]);

  async function press(kind: 'kill' | 'clear') {
    if (!project) return;
    setBusy(kind);
    setErrors([]);
    setRefusal(null);
    const options = {
      params: { query: scope === 'project' ? { project_id: project.id } : {} },
      body: { reason: reason.trim() },
    };
    try {
      if (kind === 'kill') {
        const answer = await call(api.POST('/ai/autonomy/kill', options));
        toast(
          answer.already_active
            ? 'The kill switch was already on.'
            : `The assistant is stopped; ${answer.cancelled_actions} pending action(s) cancelled.`,
        );
      } else {
        await call(api.POST('/ai/autonomy/clear-kill', options));
        toast('The assistant may act again.');
      }
      setReason('');
      // The answer of a global switch has no project's view: read this project's again.
      setAutonomy(await loadAutonomy(project.id));
    } catch (error) {
      const fieldErrors = fieldErrorsOf(error);
      if (fieldErrors) setErrors(fieldErrors.reason ?? Object.values(fieldErrors).flat());
      else if (isConflict(error)) setRefusal(error.message);
      else showError(error);
    } finally {
      setBusy(null);
    }
  }

  if (!project) return <EmptyState title="No project yet: an administrator creates one." />;
  if (!autonomy) return <Loading what="the kill switch" />;
  const kill = autonomy.kill_switch;
  const scopes: [Scope, string][] = [
    ['project', `This project (${project.name})`],
    ['global', 'Every project'],
  ];
  return (
    <section class="screen kill-screen">
      <h1>
        Kill switch <span class="muted">{project.name}</span>
      </h1>
      <div
        class={`kill-state ${kill.active ? 'kill-state-on' : 'kill-state-off'}`}
        role="status"
        data-kill-active={String(kill.active)}
      >
        <p class="kill-state-title">
          {kill.active
            ? `Stopped ${kill.scope === 'global' ? 'in every project' : 'in this project'}`
            : 'The assistant may act'}
        </p>
        {kill.active ? (
          <p>
            By {kill.activated_by?.name ?? 'someone'} · {when(kill.activated_at)}
            {kill.reason ? `: “${kill.reason}”` : ''}
          </p>
        ) : kill.cleared_at ? (
          <p>
            Last resumed by {kill.cleared_by?.name ?? 'someone'} · {when(kill.cleared_at)}
          </p>
        ) : null}
        <p>Status: {effectiveText(autonomy.status.effective)}</p>
        {autonomy.status.paused_actions.length > 0 && (
          <p>Paused action types: {autonomy.status.paused_actions.map(actionLabel).join(', ')}</p>
        )}
      </div>
      <form
        class="form kill-form"
        onSubmit={(event) => {
          event.preventDefault();
          void press('kill');
        }}
      >
        <fieldset class="kill-scope">
          <legend>Where</legend>
          {scopes.map(([value, label]) => (
            <label key={value}>
              <input
                type="radio"
                name="scope"
                value={value}
                checked={scope === value}
                onChange={() => setScope(value)}
              />{' '}
              {label}
            </label>
          ))}
        </fieldset>
        <div class="field">
          <label for={reasonId}>Reason</label>
          <textarea
            id={reasonId}
            name="reason"
            rows={2}
            maxLength={500}
            required
            value={reason}
            onInput={(event) => setReason(event.currentTarget.value)}
            aria-invalid={errors.length ? 'true' : undefined}
            aria-describedby={errors.length ? `${reasonId}-errors` : undefined}
          />
          {errors.length > 0 && (
            <ul class="field-errors" id={`${reasonId}-errors`}>
              {errors.map((message) => (
                <li key={message}>{message}</li>
              ))}
            </ul>
          )}
        </div>
        <FormError message={refusal} />
        <div class="kill-buttons">
          <button
            type="submit"
            class="kill-button"
            disabled={busy !== null}
            aria-busy={busy === 'kill' ? 'true' : undefined}
          >
            Stop the assistant
          </button>
          <Button busy={busy === 'clear'} onClick={() => void press('clear')}>
            Resume the assistant
          </Button>
        </div>
      </form>
    </section>
  );
}

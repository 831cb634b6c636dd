/**
 * The assistant's guardrails (admins): every setting of the project's guardrails in one form, saved
 * as the changes made (PUT /ai/autonomy/guardrails with the version read). A 409 shows my changes
 * against the saved ones and re-applies mine on the newest version; a 422 puts each message beside
 * the field its dotted path names. Beside it: the effective status, paused action types, the last
 * 24 hours, and the threshold preview.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, call, isConflict, showError } from '../../api/client';
import type { components } from '../../generated/api';
import { currentProject } from '../../projects';
import { Button } from '../../ui/button';
import { askConflict } from '../../ui/conflict-dialog';
import { EmptyState, Loading } from '../../ui/empty-state';
import { useSubmit } from '../../ui/submit';
import { toast } from '../../ui/toast';
import { effectiveText, loadAutonomy, type Autonomy } from '../assistant/autonomy';
import { ACTION_TYPES, actionLabel, valueText, when, type ActionType } from '../assistant/format';
import { GuardrailsFields, type FormState } from '../assistant/guardrails-form';
import {
  changedPaths,
  getAt,
  leafPaths,
  patchOf,
  reapply,
  setAt,
  type Guardrails,
} from '../assistant/guardrails-model';
import { ThresholdPreview } from '../assistant/threshold-preview';
import './guardrails.css';

type User = components['schemas']['User'];
type TicketType = components['schemas']['TicketType'];

export default function GuardrailsScreen() {
  const project = currentProject.value;
  const [autonomy, setAutonomy] = useState<Autonomy | null>(null);
  const [saved, setSaved] = useState<Guardrails | null>(null);
  const [draft, setDraft] = useState<Guardrails | null>(null);
  const { busy, errors, setErrors, run } = useSubmit();
  const [warnings, setWarnings] = useState<string[]>([]);
  const [users, setUsers] = useState<User[]>([]);
  const [ticketTypes, setTicketTypes] = useState<TicketType[]>([]);

  function show(next: Autonomy) {
    setAutonomy(next);
    const guardrails = next.guardrails;
    setSaved(guardrails);
    setDraft(guardrails);
  }

  useEffect(() => {
    if (!project) return;
    setAutonomy(null);
    setErrors({});
    setWarnings([]);
    loadAutonomy(project.id).then(show).catch(showError);
    call(api.GET('/ticket-types', { params: { query: { project_id: project.id } } }))
      .then((answer) => setTicketTypes(answer.ticket_types.filter((type) => type.retired_at === null)))
      .catch(showError);
  }, [project?.id]);
  useEffect(() => {
    call(api.GET('/users'))
      .then((answer) => setUsers(answer.users.filter((user) => user.is_active && !user.is_system)))
      .catch(showError);
  }, []);

  async function save() {
    if (!project || !saved || !draft) return;
    const paths = changedPaths(saved, draft);
    if (paths.length === 0) {
      toast('Nothing changed.');
      return;
    }
    let version = saved.version;
    let mine = draft;
    await run(async () => {
      for (;;) {
        try {
          const answer = await call(
            api.PUT('/ai/autonomy/guardrails', {
              params: { query: { project_id: project.id } },
              body: { version, ...patchOf(mine, paths) },
            }),
          );
          show(answer.autonomy);
          setWarnings(answer.warnings);
          toast('Guardrails saved.');
          return;
        } catch (error) {
          if (!isConflict(error)) throw error;
          const latest = await loadAutonomy(project.id);
          const theirs = latest.guardrails;
          if (!theirs) throw error;
          const choice = await askConflict({
            title: 'The guardrails changed',
            detail: theirs.updated_by
              ? `Saved by ${theirs.updated_by.name} at ${when(theirs.updated_at)}.`
              : undefined,
            rows: paths.map((path) => ({
              label: path,
              mine: valueText(getAt(mine, path)),
              theirs: valueText(getAt(theirs, path)),
            })),
          });
          setAutonomy(latest);
          setSaved(theirs);
          if (choice === 'discard') {
            setDraft(theirs);
            return;
          }
          mine = reapply(theirs, mine, paths);
          setDraft(mine);
          version = theirs.version;
        }
      }
    });
  }

  if (!project) return <EmptyState title="No project yet: an administrator creates one." />;
  if (!autonomy || !draft || !saved) return <Loading what="the guardrails" />;
  const form: FormState = {
    draft,
    errors,
    set: (path, value) => setDraft((current) => current && setAt(current, path, value)),
  };
  const known = new Set(leafPaths(draft));
  const otherErrors = Object.entries(errors).filter(([path]) => !known.has(path));
  const dirty = changedPaths(saved, draft).length > 0;
  const thresholds = Object.fromEntries(
    ACTION_TYPES.map((type) => [type, draft.actions[type].threshold]),
  ) as Partial<Record<ActionType, number>>;
  const stats = autonomy.stats_24h;
  return (
    <section class="screen guardrails-screen">
      <h1>
        Guardrails <span class="muted">{project.name}</span>
      </h1>
      <div class="guardrails-status notice" data-effective={autonomy.status.effective}>
        <p>
          <strong>{effectiveText(autonomy.status.effective)}</strong>
          {autonomy.kill_switch.active && (
            <>
              {' '}
              · <a href="/admin/kill-switch">Kill switch</a>
            </>
          )}
        </p>
        {autonomy.status.paused_actions.length > 0 && (
          <p>Paused action types: {autonomy.status.paused_actions.map(actionLabel).join(', ')}</p>
        )}
        {stats && (
          <p class="muted">
            Last 24 hours: {stats.predictions} predictions, {stats.executed} actions, {stats.pending_review}{' '}
            to review, {stats.acknowledged} acknowledged, {stats.reverted} reverted.
          </p>
        )}
        <p class="muted">
          Version {saved.version}
          {saved.updated_by
            ? `, saved by ${saved.updated_by.name} · ${when(saved.updated_at)}`
            : ' (the defaults)'}
        </p>
      </div>
      <div class="guardrails-layout">
        <form
          class="form guardrails-form"
          aria-label="Guardrails"
          // The server judges every setting and names each problem by its path (shown beside the field).
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            void save();
          }}
        >
          {otherErrors.length > 0 && (
            <ul class="form-error" role="alert">
              {otherErrors.map(([path, messages]) => (
                <li key={path}>
                  {path}: {messages.join('; ')}
                </li>
              ))}
            </ul>
          )}
          {Object.keys(errors).length > 0 && otherErrors.length === 0 && (
            <p class="form-error" role="alert">
              Some settings need a change: see the messages beside them.
            </p>
          )}
          {warnings.length > 0 && (
            <ul class="notice guardrails-warnings" role="status">
              {warnings.map((warning) => (
                <li key={warning}>{warning}</li>
              ))}
            </ul>
          )}
          <GuardrailsFields form={form} project={project} users={users} ticketTypes={ticketTypes} />
          <div class="guardrails-buttons">
            <Button type="submit" kind="primary" busy={busy} disabled={!dirty}>
              Save guardrails
            </Button>
            <Button
              disabled={!dirty || busy}
              onClick={() => {
                setDraft(saved);
                setErrors({});
              }}
            >
              Undo changes
            </Button>
          </div>
        </form>
        <ThresholdPreview projectId={project.id} currentThresholds={thresholds} />
      </div>
    </section>
  );
}

/**
 * A project's workflow, edited one status at a time (the board's lanes, in order): relabel, close or
 * reopen, move up or down (PATCH /projects/{id}/statuses/{slug}), add at a place (POST), and remove
 * (DELETE with `move_to`: the server refuses with 409 and the ticket count while live tickets are
 * in the status and no target is given; the dialog then asks for one). Every answer is the project
 * with its new workflow, handed to `onProject`.
 */
import { useState } from 'preact/hooks';
import { api, ApiError, call, showError } from '../../api/client';
import type { components } from '../../generated/api';
import type { Project } from '../../projects';
import { Button } from '../../ui/button';
import { Field, FormError, SelectField } from '../../ui/field';
import { toast } from '../../ui/toast';
import { AdminForm, CheckboxField, useForm } from './controls';
import { ConfirmDialog } from './confirm-dialog';

type Status = components['schemas']['ProjectStatus'];

interface EditorProps {
  project: Project;
  onProject: (project: Project) => void;
}

function StatusRow({
  project,
  status,
  index,
  onProject,
  onRemove,
}: EditorProps & { status: Status; index: number; onRemove: () => void }) {
  const [label, setLabel] = useState(status.label);
  const form = useForm();
  const last = project.statuses.length - 1;

  async function change(body: { label?: string; is_closed?: boolean; position?: number }, done: string) {
    await form.run(async () => {
      const answer = await call(
        api.PATCH('/projects/{id}/statuses/{slug}', {
          params: { path: { id: project.id, slug: status.slug } },
          body,
        }),
      );
      onProject(answer.project);
      toast(done);
    });
  }

  const errors = [form.formError, ...Object.values(form.fieldErrors).flat()].filter(Boolean);
  return (
    <li class="admin-status" data-status={status.slug}>
      <div class="admin-status-main">
        <span class="admin-status-slug muted">{status.slug}</span>
        <label>
          <span class="visually-hidden">Label of {status.slug}</span>
          <input value={label} onInput={(event) => setLabel(event.currentTarget.value)} />
        </label>
        {label !== status.label && (
          <Button busy={form.busy} onClick={() => void change({ label }, `Renamed to ${label}.`)}>
            Rename
          </Button>
        )}
        <label class="admin-checkbox">
          <input
            type="checkbox"
            checked={status.is_closed}
            disabled={form.busy}
            onChange={(event) => {
              const closed = event.currentTarget.checked;
              void change({ is_closed: closed }, `${status.label} is ${closed ? 'closed' : 'open'} now.`);
            }}
          />
          <span class="visually-hidden">{status.label}</span> Closed
        </label>
      </div>
      <div class="admin-inline">
        <Button
          kind="quiet"
          disabled={index === 0 || form.busy}
          aria-label={`Move ${status.label} up`}
          onClick={() => void change({ position: index - 1 }, `${status.label} moved up.`)}
        >
          Up
        </Button>
        <Button
          kind="quiet"
          disabled={index === last || form.busy}
          aria-label={`Move ${status.label} down`}
          onClick={() => void change({ position: index + 1 }, `${status.label} moved down.`)}
        >
          Down
        </Button>
        <Button kind="quiet" aria-label={`Remove ${status.label}`} onClick={onRemove}>
          Remove
        </Button>
      </div>
      {errors.length > 0 && (
        <p class="form-error admin-status-errors" role="alert">
          {errors.join(' ')}
        </p>
      )}
    </li>
  );
}

function AddStatusForm({ project, onProject }: EditorProps) {
  const [slug, setSlug] = useState('');
  const [label, setLabel] = useState('');
  const [closed, setClosed] = useState(false);
  const [position, setPosition] = useState('');
  const form = useForm();
  const placed = ['slug', 'label', 'is_closed', 'position'];

  async function submit() {
    const answer = await call(
      api.POST('/projects/{id}/statuses', {
        params: { path: { id: project.id } },
        body: { slug, label, is_closed: closed, ...(position ? { position: Number(position) } : {}) },
      }),
    );
    onProject(answer.project);
    toast(`${label} added to the workflow.`);
    setSlug('');
    setLabel('');
    setClosed(false);
    setPosition('');
  }

  const places = [
    { value: '', label: 'At the end' },
    ...project.statuses.map((status, index) => ({ value: String(index), label: `Before ${status.label}` })),
  ];
  return (
    <AdminForm form={form} placed={placed} label="Add a status" onSubmit={submit} submit="Add status">
      <div class="admin-row">
        <Field
          label="Status slug"
          hint="Lower-case words joined by underscores: in_review."
          {...form.field('slug', slug, setSlug)}
        />
        <Field label="Status label" {...form.field('label', label, setLabel)} />
        <SelectField label="Place" options={places} {...form.field('position', position, setPosition)} />
      </div>
      <CheckboxField
        label="Closed (tickets here are resolved)"
        {...form.checkbox('is_closed', closed, setClosed)}
      />
    </AdminForm>
  );
}

function RemoveStatusDialog({
  project,
  status,
  onProject,
  onClose,
}: EditorProps & { status: Status | null; onClose: () => void }) {
  const [moveTo, setMoveTo] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const others = project.statuses.filter((each) => each.slug !== status?.slug);

  function close() {
    setMoveTo('');
    setProblem(null);
    onClose();
  }

  async function remove() {
    if (!status) return;
    setBusy(true);
    setProblem(null);
    try {
      const answer = await call(
        api.DELETE('/projects/{id}/statuses/{slug}', {
          params: { path: { id: project.id, slug: status.slug }, query: moveTo ? { move_to: moveTo } : {} },
        }),
      );
      onProject(answer.project);
      toast(`${status.label} removed${moveTo ? `; its tickets move to ${labelOf(project, moveTo)}` : ''}.`);
      close();
    } catch (error) {
      // 409: live tickets are in it and no target was chosen; 422: the workflow rules (or move_to).
      if (
        error instanceof ApiError &&
        (error.status === 409 || error.status === 422 || error.status === 404)
      ) {
        setProblem([error.message, ...Object.values(error.fieldErrors).flat()].join(' '));
      } else showError(error);
    } finally {
      setBusy(false);
    }
  }

  return (
    <ConfirmDialog
      open={status !== null}
      title={status ? `Remove ${status.label}?` : ''}
      confirmLabel="Remove status"
      busy={busy}
      onConfirm={() => void remove()}
      onClose={close}
    >
      <p>Its lane leaves the board. Tickets in it move to the status you choose.</p>
      <FormError message={problem} />
      <SelectField
        label="Move its tickets to"
        name="move_to"
        value={moveTo}
        onValue={setMoveTo}
        hint="Needed only when tickets are in it."
        options={[
          { value: '', label: 'Choose a status' },
          ...others.map((each) => ({ value: each.slug, label: each.label })),
        ]}
      />
    </ConfirmDialog>
  );
}

function labelOf(project: Project, slug: string): string {
  return project.statuses.find((status) => status.slug === slug)?.label ?? slug;
}

export function WorkflowEditor({ project, onProject }: EditorProps) {
  const [removing, setRemoving] = useState<Status | null>(null);
  return (
    <>
      <ol class="admin-statuses" aria-label={`Workflow of ${project.name}`}>
        {project.statuses.map((status, index) => (
          <StatusRow
            // A new workflow (after a move or a rename) renders fresh rows with the saved labels.
            key={`${project.id}:${status.slug}:${status.label}:${index}`}
            project={project}
            status={status}
            index={index}
            onProject={onProject}
            onRemove={() => setRemoving(status)}
          />
        ))}
      </ol>
      <AddStatusForm key={project.id} project={project} onProject={onProject} />
      <RemoveStatusDialog
        project={project}
        status={removing}
        onProject={onProject}
        onClose={() => setRemoving(null)}
      />
    </>
  );
}

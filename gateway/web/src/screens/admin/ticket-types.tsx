/**
 * Ticket types (admin) of the project the console works in: the list (GET /ticket-types, retired
 * ones included), creating one (POST) and editing one (PATCH /ticket-types/{id}): name, description,
 * the default flag and the custom fields (admin/field-editor.tsx); retiring and bringing back. A new
 * field_schema that stored tickets would not fit is refused with 409 and their count, shown on the form.
 * The type being edited is in the query (`?type=<id>` or `?type=new`).
 */
import { useState } from 'preact/hooks';
import { api, call } from '../../api/client';
import type { components } from '../../generated/api';
import { currentProject, type Project } from '../../projects';
import { setQuery } from '../../router';
import { Button } from '../../ui/button';
import { EmptyState } from '../../ui/empty-state';
import { Field, FormError, TextAreaField } from '../../ui/field';
import { toast } from '../../ui/toast';
import { AdminForm, AdminTable, CheckboxField, Panel, useForm, unplacedErrors } from './controls';
import { FieldEditor, toDraft, toEntry, type DraftField } from './field-editor';
import { formatTime, useLoaded } from './use-loaded';
import type { ScreenProps } from '../screen';

type TicketType = components['schemas']['TicketType'];

function TicketTypeForm({
  project,
  type,
  onSaved,
}: {
  project: Project;
  /** null: a new type. */
  type: TicketType | null;
  onSaved: (type: TicketType) => void;
}) {
  const [name, setName] = useState(type?.name ?? '');
  const [slug, setSlug] = useState(type?.slug ?? '');
  const [description, setDescription] = useState(type?.description ?? '');
  const [isDefault, setIsDefault] = useState(type?.is_default ?? false);
  const [fields, setFields] = useState<DraftField[]>(() =>
    [...(type?.field_schema ?? [])].sort((a, b) => a.order - b.order).map(toDraft),
  );
  const form = useForm();
  const retire = useForm();
  const query = { project_id: project.id };

  async function submit() {
    const field_schema = fields.map(toEntry);
    const answer = type
      ? await call(
          api.PATCH('/ticket-types/{id}', {
            params: { path: { id: type.id }, query },
            body: { name, description, is_default: isDefault, field_schema },
          }),
        )
      : await call(
          api.POST('/ticket-types', {
            params: { query },
            body: { name, slug, description, is_default: isDefault, field_schema },
          }),
        );
    toast(`${answer.ticket_type.name} saved.`);
    onSaved(answer.ticket_type);
  }

  async function setRetired(is_retired: boolean) {
    if (!type) return;
    await retire.run(async () => {
      const answer = await call(
        api.PATCH('/ticket-types/{id}', { params: { path: { id: type.id }, query }, body: { is_retired } }),
      );
      toast(
        is_retired ? `${type.name} is retired: it takes no new tickets.` : `${type.name} is back in use.`,
      );
      onSaved(answer.ticket_type);
    });
  }

  const placed = ['name', 'slug', 'description', 'is_default'];
  const formErrors = unplacedErrors(form.fieldErrors, placed).filter(
    (message) => !message.startsWith('field_schema'),
  );
  return (
    <>
      <AdminForm
        form={form}
        otherErrors={formErrors}
        label={type ? `Edit ${type.name}` : 'New ticket type'}
        onSubmit={submit}
        submit={type ? 'Save ticket type' : 'Create ticket type'}
        actions={
          <Button kind="quiet" onClick={() => setQuery({ type: null })}>
            Close
          </Button>
        }
      >
        <div class="admin-row">
          <Field label="Type name" {...form.field('name', name, setName)} />
          {type ? (
            <p class="muted">
              Slug <code>{type.slug}</code> (never changes)
            </p>
          ) : (
            <Field
              label="Type slug"
              hint="Lower-case words joined by underscores: bug."
              {...form.field('slug', slug, setSlug)}
            />
          )}
        </div>
        <TextAreaField label="Type description" {...form.field('description', description, setDescription)} />
        <CheckboxField
          label="Default type (new tickets that name no type get it)"
          {...form.checkbox('is_default', isDefault, setIsDefault)}
        />
        <FieldEditor fields={fields} onFields={setFields} errors={form.fieldErrors} />
      </AdminForm>
      {type && (
        <div class="admin-retire">
          <FormError
            message={
              [retire.formError, ...Object.values(retire.fieldErrors).flat()].filter(Boolean).join(' ') ||
              null
            }
          />
          {type.retired_at ? (
            <Button busy={retire.busy} onClick={() => void setRetired(false)}>
              Bring {type.name} back
            </Button>
          ) : (
            <Button kind="danger" busy={retire.busy} onClick={() => void setRetired(true)}>
              Retire {type.name}
            </Button>
          )}
          <p class="field-hint">
            A retired type keeps its tickets and their values but takes no new tickets.
          </p>
        </div>
      )}
    </>
  );
}

export default function AdminTicketTypes({ query }: ScreenProps) {
  const project = currentProject.value;
  const chosen = query.get('type');
  const types = useLoaded(
    async () =>
      project
        ? (await call(api.GET('/ticket-types', { params: { query: { project_id: project.id } } })))
            .ticket_types
        : [],
    [project?.id],
  );

  if (!project) return <EmptyState title="No project yet: create one under Projects first." />;
  const editing =
    chosen && chosen !== 'new' ? (types.data?.find((type) => String(type.id) === chosen) ?? null) : null;
  return (
    <section class="screen admin-screen">
      <div class="screen-head">
        <h1>
          Ticket types <span class="muted">{project.name}</span>
        </h1>
        <Button kind="primary" onClick={() => setQuery({ type: 'new' })}>
          New ticket type
        </Button>
      </div>
      <Panel title="Types">
        <AdminTable
          label="Ticket types"
          what="ticket types"
          empty="No ticket types yet: tickets need one. Create the first."
          rows={types.data}
          columns={['Name', 'Slug', 'Custom fields', 'State', 'Actions']}
        >
          {(type) => (
            <tr key={type.id} class={type.retired_at ? 'admin-inactive' : undefined}>
              <th scope="row">{type.name}</th>
              <td>{type.slug}</td>
              <td>{type.field_schema.map((field) => field.label).join(', ') || '—'}</td>
              <td>
                {type.retired_at
                  ? `Retired ${formatTime(type.retired_at)}`
                  : type.is_default
                    ? 'Default'
                    : 'In use'}
              </td>
              <td>
                <Button
                  kind="quiet"
                  aria-label={`Edit ${type.name}`}
                  onClick={() => setQuery({ type: String(type.id) })}
                >
                  Edit
                </Button>
              </td>
            </tr>
          )}
        </AdminTable>
      </Panel>
      {chosen === 'new' && (
        <Panel title="New ticket type">
          <TicketTypeForm
            key={`new:${project.id}`}
            project={project}
            type={null}
            onSaved={(type) => {
              types.reload();
              setQuery({ type: String(type.id) });
            }}
          />
        </Panel>
      )}
      {editing && (
        <Panel title={`Edit ${editing.name}`}>
          <TicketTypeForm
            key={`${editing.id}:${JSON.stringify(editing)}`}
            project={project}
            type={editing}
            onSaved={() => types.reload()}
          />
        </Panel>
      )}
    </section>
  );
}

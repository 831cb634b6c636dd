/**
 * Projects and statuses (admin): every project (GET /projects), creating one with its workflow
 * (POST /projects: an empty list of statuses gets the default workflow), and editing the project
 * the console works in (the switcher's, `?project=`): its name and description (PATCH
 * /projects/{id}) and its workflow (admin/workflow-editor.tsx). The board's lanes follow at once.
 */
import { useState } from 'preact/hooks';
import { api, call } from '../../api/client';
import { currentProject, loadProjects, projects, type Project } from '../../projects';
import { Button } from '../../ui/button';
import { Field, TextAreaField } from '../../ui/field';
import { toast } from '../../ui/toast';
import { AdminForm, AdminTable, Errors, Panel, useForm } from './controls';
import { WorkflowEditor } from './workflow-editor';

interface DraftStatus {
  key: number;
  slug: string;
  label: string;
  is_closed: boolean;
}

let nextDraftKey = 1;

/** Puts the project an edit answered in the console's list (the switcher and the board read it). */
function replaceProject(project: Project): void {
  projects.value = (projects.value ?? []).map((each) => (each.id === project.id ? project : each));
}

function NewProjectForm() {
  const [name, setName] = useState('');
  const [slug, setSlug] = useState('');
  const [prefix, setPrefix] = useState('');
  const [description, setDescription] = useState('');
  const [statuses, setStatuses] = useState<DraftStatus[]>([]);
  const form = useForm();
  const placed = ['name', 'slug', 'prefix', 'description'];

  function edit(key: number, change: Partial<DraftStatus>) {
    setStatuses((list) => list.map((status) => (status.key === key ? { ...status, ...change } : status)));
  }
  function move(index: number, by: -1 | 1) {
    setStatuses((list) => {
      const copy = [...list];
      const [moved] = copy.splice(index, 1);
      copy.splice(index + by, 0, moved!);
      return copy;
    });
  }

  async function submit() {
    const answer = await call(
      api.POST('/projects', {
        body: {
          name,
          slug,
          prefix,
          ...(description ? { description } : {}),
          ...(statuses.length > 0
            ? { statuses: statuses.map(({ slug: s, label, is_closed }) => ({ slug: s, label, is_closed })) }
            : {}),
        },
      }),
    );
    await loadProjects();
    toast(`Project ${answer.project.name} created.`);
    setName('');
    setSlug('');
    setPrefix('');
    setDescription('');
    setStatuses([]);
  }

  const statusErrors = (index: number, key: string) => form.fieldErrors[`statuses[${index}].${key}`];
  const placedStatusKeys = statuses.flatMap((_, index) => [
    `statuses[${index}].slug`,
    `statuses[${index}].label`,
    `statuses[${index}]`,
  ]);
  return (
    <AdminForm
      form={form}
      placed={[...placed, 'statuses', ...placedStatusKeys]}
      label="New project"
      onSubmit={submit}
      submit="Create project"
    >
      <div class="admin-row">
        <Field label="Name" {...form.field('name', name, setName)} />
        <Field
          label="Slug"
          hint="Lower-case words joined by hyphens; used in links."
          {...form.field('slug', slug, setSlug)}
        />
        <Field
          label="Prefix"
          hint="Upper-case letters and digits of ticket numbers: SUP."
          {...form.field('prefix', prefix, setPrefix)}
        />
      </div>
      <TextAreaField
        label="Description (optional)"
        {...form.field('description', description, setDescription)}
      />
      <fieldset class="admin-fieldset">
        <legend>Workflow</legend>
        <p class="field-hint">
          Leave it empty for the default workflow (Open, Work in progress, Waiting, Closed). The first status
          is where new tickets start and cannot be closed; at least one must be closed.
        </p>
        <Errors id="new-project-statuses" errors={form.fieldErrors.statuses} />
        <ol class="admin-statuses">
          {statuses.map((status, index) => (
            <li key={status.key} class="admin-status">
              <div class="admin-status-main">
                <Field
                  label={`Status ${index + 1} slug`}
                  name={`statuses[${index}].slug`}
                  value={status.slug}
                  onValue={(value) => edit(status.key, { slug: value })}
                  errors={statusErrors(index, 'slug')}
                />
                <Field
                  label={`Status ${index + 1} label`}
                  name={`statuses[${index}].label`}
                  value={status.label}
                  onValue={(value) => edit(status.key, { label: value })}
                  errors={statusErrors(index, 'label')}
                />
                <label class="admin-checkbox">
                  <input
                    type="checkbox"
                    checked={status.is_closed}
                    onChange={(event) => edit(status.key, { is_closed: event.currentTarget.checked })}
                  />
                  <span class="visually-hidden">Status {index + 1}</span> Closed
                </label>
              </div>
              <Errors
                id={`new-project-status-${status.key}`}
                errors={form.fieldErrors[`statuses[${index}]`]}
              />
              <div class="admin-inline">
                <Button
                  kind="quiet"
                  disabled={index === 0}
                  aria-label={`Move status ${index + 1} up`}
                  onClick={() => move(index, -1)}
                >
                  Up
                </Button>
                <Button
                  kind="quiet"
                  disabled={index === statuses.length - 1}
                  aria-label={`Move status ${index + 1} down`}
                  onClick={() => move(index, 1)}
                >
                  Down
                </Button>
                <Button
                  kind="quiet"
                  aria-label={`Remove status ${index + 1}`}
                  onClick={() => setStatuses((list) => list.filter((each) => each.key !== status.key))}
                >
                  Remove
                </Button>
              </div>
            </li>
          ))}
        </ol>
        <Button
          onClick={() =>
            setStatuses((list) => [...list, { key: nextDraftKey++, slug: '', label: '', is_closed: false }])
          }
        >
          Add a status
        </Button>
      </fieldset>
    </AdminForm>
  );
}

function ProjectDetailsForm({ project }: { project: Project }) {
  const [name, setName] = useState(project.name);
  const [description, setDescription] = useState(project.description);
  const form = useForm();

  async function submit() {
    const answer = await call(
      api.PATCH('/projects/{id}', { params: { path: { id: project.id } }, body: { name, description } }),
    );
    replaceProject(answer.project);
    toast('Project saved.');
  }

  return (
    <AdminForm
      form={form}
      placed={['name', 'description']}
      label="Project details"
      onSubmit={submit}
      submit="Save project"
    >
      <p class="muted">
        Slug <code>{project.slug}</code>, ticket prefix <code>{project.prefix}</code>: these never change,
        links and ticket numbers use them.
      </p>
      <Field label="Project name" {...form.field('name', name, setName)} />
      <TextAreaField
        label="Project description"
        {...form.field('description', description, setDescription)}
      />
    </AdminForm>
  );
}

export default function AdminProjects() {
  const list = projects.value;
  const project = currentProject.value;
  return (
    <section class="screen admin-screen">
      <h1>Projects and statuses</h1>
      <Panel title="Projects">
        <AdminTable
          label="Projects"
          what="projects"
          empty="No projects yet: create the first one below."
          rows={list}
          columns={['Name', 'Slug', 'Prefix', 'Workflow']}
        >
          {(each) => (
            <tr key={each.id} aria-current={each.id === project?.id ? 'true' : undefined}>
              <th scope="row">
                <a href={`/admin/projects?project=${each.slug}`}>{each.name}</a>
              </th>
              <td>{each.slug}</td>
              <td>{each.prefix}</td>
              <td>{each.statuses.map((status) => status.label).join(' → ')}</td>
            </tr>
          )}
        </AdminTable>
      </Panel>
      {project && (
        <Panel title={`Edit ${project.name}`}>
          <ProjectDetailsForm
            key={`${project.id}:${project.name}:${project.description}`}
            project={project}
          />
          <h3>Workflow (board lanes, in order)</h3>
          <WorkflowEditor project={project} onProject={replaceProject} />
        </Panel>
      )}
      <Panel title="New project">
        <NewProjectForm />
      </Panel>
    </section>
  );
}

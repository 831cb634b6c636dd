/**
 * API keys (admin): every key (GET /api-keys: prefix, name, owner, scopes, project, dates; never a
 * value), filtered by owner (`?user=<id>`), creating one for a user with scopes and an optional
 * project (POST /api-keys: the value is in that answer only, shown once with a Copy button), and
 * revoking (DELETE /api-keys/{id}: at once on every gateway).
 */
import { SCOPES } from '@tix/contract';
import { useState } from 'preact/hooks';
import { api, call, showError } from '../../api/client';
import type { components, operations } from '../../generated/api';
import { projects } from '../../projects';
import { setQuery } from '../../router';
import { Button } from '../../ui/button';
import { Loading } from '../../ui/empty-state';
import { Field, SelectField } from '../../ui/field';
import { toast } from '../../ui/toast';
import { ConfirmDialog } from './confirm-dialog';
import { AdminForm, AdminTable, CheckboxGroup, Panel, useForm } from './controls';
import { ShownOnce } from './shown-once';
import { formatTime, useLoaded } from './use-loaded';
import type { ScreenProps } from '../screen';

type ApiKey = components['schemas']['ApiKey'];
type User = components['schemas']['User'];
type Scope = operations['createApiKey']['requestBody']['content']['application/json']['scopes'][number];

function CreateKeyForm({
  users,
  onCreated,
}: {
  users: User[];
  onCreated: (key: ApiKey, value: string) => void;
}) {
  const owners = users.filter((user) => user.is_active && !user.is_system);
  const [name, setName] = useState('');
  const [userId, setUserId] = useState('');
  const [projectId, setProjectId] = useState('');
  const [scopes, setScopes] = useState<string[]>(['tickets:read']);
  const form = useForm();
  const placed = ['name', 'user_id', 'project_id', 'scopes'];

  async function submit() {
    const answer = await call(
      api.POST('/api-keys', {
        body: {
          name,
          scopes: scopes as Scope[],
          // An unchosen owner is sent as 0 so the server names the field (no client-side second rulebook).
          user_id: Number(userId),
          project_id: projectId ? Number(projectId) : null,
        },
      }),
    );
    onCreated(answer.api_key, answer.key);
    setName('');
  }

  return (
    <AdminForm form={form} placed={placed} label="New API key" onSubmit={submit} submit="Create API key">
      <div class="admin-row">
        <Field
          label="Key name"
          hint="What it is for: Zapier, nightly export."
          {...form.field('name', name, setName)}
        />
        <SelectField
          label="Acts as user"
          hint="The key has this user's role as well as its scopes."
          options={[
            { value: '', label: 'Choose a user' },
            ...owners.map((user) => ({
              value: String(user.id),
              label: `${user.name} (${user.role.replace('_', ' ')})`,
            })),
          ]}
          {...form.field('user_id', userId, setUserId)}
        />
        <SelectField
          label="Project"
          options={[
            { value: '', label: 'Every project' },
            ...(projects.value ?? []).map((project) => ({ value: String(project.id), label: project.name })),
          ]}
          {...form.field('project_id', projectId, setProjectId)}
        />
      </div>
      {/* The contract's one list: a new scope appears here without touching this screen. */}
      <CheckboxGroup legend="Scopes" options={SCOPES} {...form.choice('scopes', scopes, setScopes)} />
    </AdminForm>
  );
}

export default function AdminApiKeys({ query }: ScreenProps) {
  const owner = query.get('user') ?? '';
  const users = useLoaded(async () => (await call(api.GET('/users'))).users, []);
  const keys = useLoaded(
    async () =>
      (await call(api.GET('/api-keys', { params: { query: owner ? { user_id: Number(owner) } : {} } })))
        .api_keys,
    [owner],
  );
  const [created, setCreated] = useState<{ name: string; value: string } | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [busy, setBusy] = useState(false);

  const userById = new Map((users.data ?? []).map((user) => [user.id, user]));
  const projectById = new Map((projects.value ?? []).map((project) => [project.id, project]));

  async function revoke() {
    if (!revoking) return;
    setBusy(true);
    try {
      await call(api.DELETE('/api-keys/{id}', { params: { path: { id: revoking.id } } }));
      toast(`${revoking.name} is revoked.`);
      keys.reload();
      setRevoking(null);
    } catch (error) {
      showError(error);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section class="screen admin-screen">
      <h1>API keys</h1>
      <p class="muted">
        Integrations call <code>/v1</code> with <code>Authorization: Bearer &lt;key&gt;</code>. A key can do
        what its scopes allow and its user&apos;s role permits.
      </p>
      <Panel title="New API key">
        {users.data ? (
          <CreateKeyForm
            users={users.data}
            onCreated={(key, value) => {
              setCreated({ name: key.name, value });
              keys.reload();
            }}
          />
        ) : (
          <Loading what="users" />
        )}
        {created && (
          <ShownOnce
            label={`API key ${created.name}`}
            value={created.value}
            onDone={() => setCreated(null)}
          />
        )}
      </Panel>
      <Panel title="Keys">
        <div class="filters">
          <SelectField
            label="Owner"
            name="owner"
            value={owner}
            onValue={(value) => setQuery({ user: value })}
            options={[
              { value: '', label: 'Everyone' },
              ...(users.data ?? []).map((user) => ({ value: String(user.id), label: user.name })),
            ]}
          />
        </div>
        <AdminTable
          label="API keys"
          what="API keys"
          empty="No API keys."
          rows={keys.data}
          columns={['Name', 'Prefix', 'User', 'Project', 'Scopes', 'Created', 'Last used', 'State']}
        >
          {(key) => (
            <tr key={key.id} class={key.revoked_at ? 'admin-inactive' : undefined}>
              <th scope="row">{key.name}</th>
              <td>
                <code>{key.prefix}…</code>
              </td>
              <td>{userById.get(key.user_id)?.name ?? `#${key.user_id}`}</td>
              <td>
                {key.project_id === null
                  ? 'Every project'
                  : (projectById.get(key.project_id)?.name ?? `#${key.project_id}`)}
              </td>
              <td>{key.scopes.join(', ')}</td>
              <td>{formatTime(key.created_at)}</td>
              <td>{formatTime(key.last_used_at)}</td>
              <td>
                {key.revoked_at ? (
                  `Revoked ${formatTime(key.revoked_at)}`
                ) : (
                  <Button kind="quiet" aria-label={`Revoke ${key.name}`} onClick={() => setRevoking(key)}>
                    Revoke
                  </Button>
                )}
              </td>
            </tr>
          )}
        </AdminTable>
      </Panel>
      <ConfirmDialog
        open={revoking !== null}
        title={revoking ? `Revoke ${revoking.name}?` : ''}
        confirmLabel="Revoke key"
        busy={busy}
        onConfirm={() => void revoke()}
        onClose={() => setRevoking(null)}
      >
        <p>Every request with this key is refused from now on, on every gateway. This cannot be undone.</p>
      </ConfirmDialog>
    </section>
  );
}

/**
 * Users (admin): every user the API lists (GET /users), creating one with a role and an optional
 * password (POST /users), changing a role, deactivating and reactivating (PATCH /users/{id}: each
 * ends the user's sessions at once), and issuing a password reset link (POST
 * /users/{id}/password-reset). The assistant's own user (is_system) cannot be edited. The lookup
 * service holds the rules (the last active admin stays) and its refusals are shown as they come.
 */
import { ROLES, type Role } from '@tix/contract';
import { useState } from 'preact/hooks';
import { api, call } from '../../api/client';
import type { components } from '../../generated/api';
import { currentUser } from '../../session';
import { Button } from '../../ui/button';
import { Field, Options, SelectField } from '../../ui/field';
import { toast } from '../../ui/toast';
import { AdminForm, AdminTable, Panel, useForm } from './controls';
import { ShownOnce } from './shown-once';
import { useLoaded } from './use-loaded';

type User = components['schemas']['User'];

/** The contract's roles, most powerful first. */
const ROLE_OPTIONS = ROLES.map((role) => ({ value: role, label: roleLabel(role) }));

function roleLabel(role: string): string {
  const words = role.replace('_', ' ');
  return words[0]!.toUpperCase() + words.slice(1);
}

function CreateUserForm({ onCreated }: { onCreated: (user: User) => void }) {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  // A new user is an agent unless chosen otherwise (the form's default, not a rule).
  const [role, setRole] = useState<Role>('agent');
  const [password, setPassword] = useState('');
  const form = useForm();
  const placed = ['name', 'email', 'role', 'password'];

  async function submit() {
    const answer = await call(
      api.POST('/users', { body: { name, email, role, ...(password ? { password } : {}) } }),
    );
    onCreated(answer.user);
    toast(`${answer.user.name} can now ${password ? 'sign in' : 'be sent a reset link'}.`);
    setName('');
    setEmail('');
    setPassword('');
  }

  return (
    <AdminForm form={form} placed={placed} onSubmit={submit} submit="Create user">
      <Field label="Name" {...form.field('name', name, setName)} required />
      <Field
        label="Email"
        type="email"
        autoComplete="off"
        {...form.field('email', email, setEmail)}
        required
      />
      <SelectField
        label="Role"
        options={ROLE_OPTIONS}
        {...form.field('role', role, (value) => setRole(value as Role))}
      />
      <Field
        label="Password (optional)"
        type="password"
        autoComplete="new-password"
        hint="Without one, the user signs in after you send them a reset link."
        {...form.field('password', password, setPassword)}
      />
    </AdminForm>
  );
}

function UserRow({
  user,
  onChanged,
  onResetLink,
}: {
  user: User;
  onChanged: (user: User) => void;
  onResetLink: (user: User, link: string | undefined, message: string) => void;
}) {
  const [role, setRole] = useState(user.role);
  const form = useForm();
  const isMe = currentUser.value?.id === user.id;

  async function update(body: { role?: Role; is_active?: boolean }, done: string) {
    await form.run(async () => {
      const answer = await call(api.PATCH('/users/{id}', { params: { path: { id: user.id } }, body }));
      onChanged(answer.user);
      setRole(answer.user.role);
      toast(done);
    });
  }

  async function issueReset() {
    await form.run(async () => {
      const answer = await call(
        api.POST('/users/{id}/password-reset', { params: { path: { id: user.id } } }),
      );
      onResetLink(user, answer.link, answer.message);
    });
  }

  const errors = [form.formError, ...Object.values(form.fieldErrors).flat()].filter(Boolean);
  return (
    <tr class={user.is_active ? undefined : 'admin-inactive'}>
      <th scope="row">
        {user.name}
        {isMe && <span class="muted"> (you)</span>}
      </th>
      <td class="admin-break">{user.email}</td>
      <td>
        {user.is_system ? (
          <span class="muted">Assistant (system)</span>
        ) : (
          <div class="admin-inline">
            <label>
              <span class="visually-hidden">Role of {user.name}</span>
              <select value={role} onChange={(event) => setRole(event.currentTarget.value)}>
                <Options options={ROLE_OPTIONS} />
              </select>
            </label>
            {role !== user.role && (
              <Button
                busy={form.busy}
                onClick={() => void update({ role: role as Role }, `${user.name} is now ${roleLabel(role)}.`)}
              >
                Save role
              </Button>
            )}
          </div>
        )}
      </td>
      <td>{user.is_active ? 'Active' : 'Deactivated'}</td>
      <td>
        {!user.is_system && (
          <div class="admin-inline">
            {user.is_active ? (
              <Button
                kind="quiet"
                busy={form.busy}
                aria-label={`Deactivate ${user.name}`}
                onClick={() => void update({ is_active: false }, `${user.name} is deactivated.`)}
              >
                Deactivate
              </Button>
            ) : (
              <Button
                kind="quiet"
                busy={form.busy}
                aria-label={`Activate ${user.name}`}
                onClick={() => void update({ is_active: true }, `${user.name} is active again.`)}
              >
                Activate
              </Button>
            )}
            {user.is_active && (
              <Button
                kind="quiet"
                busy={form.busy}
                aria-label={`Send ${user.name} a password reset link`}
                onClick={() => void issueReset()}
              >
                Reset link
              </Button>
            )}
          </div>
        )}
        {errors.length > 0 && (
          <p class="form-error" role="alert">
            {errors.join(' ')}
          </p>
        )}
      </td>
    </tr>
  );
}

export default function AdminUsers() {
  const users = useLoaded(async () => (await call(api.GET('/users'))).users, []);
  const [resetLink, setResetLink] = useState<{ name: string; link: string } | null>(null);

  function replace(user: User) {
    const list = users.data ?? [];
    const known = list.some((each) => each.id === user.id);
    users.set(known ? list.map((each) => (each.id === user.id ? user : each)) : [...list, user]);
  }

  return (
    <section class="screen admin-screen">
      <h1>Users</h1>
      <p class="muted">
        Changing a role or deactivating a user signs them out everywhere at once; a deactivated user&apos;s
        API keys stop working.
      </p>
      <Panel title="New user">
        <CreateUserForm onCreated={replace} />
      </Panel>
      {resetLink && (
        <ShownOnce
          label={`Password reset link for ${resetLink.name}`}
          value={resetLink.link}
          warning="No mail relay is configured, so pass this link on yourself. It works once, for 30 minutes."

          onDone={() => setResetLink(null)}
        />
      )}
      <Panel title="All users">
        <AdminTable
          label="Users"
          what="users"
          empty="No users yet."
          rows={users.data}
          columns={['Name', 'Email', 'Role', 'Status', 'Actions']}
        >
          {(user) => (
            <UserRow
              key={user.id}
              user={user}
              onChanged={replace}
              onResetLink={(who, link, message) => {
                if (link) setResetLink({ name: who.name, link });
                else toast(message);
              }}
            />
          )}
        </AdminTable>
      </Panel>
    </section>
  );
}

/**
 * Mailboxes (admin) of the project the console works in: each with its status and last error
 * (GET /mailboxes), adding one (POST /mailboxes: an SMTP address the listener accepts, or an IMAP
 * account with host, port, TLS, user, and a password or an OAuth2 client (token URL, client id and
 * secret, refresh token, scope: XOAUTH2, refreshed by the server); secrets are never shown again),
 * pausing and resuming (PATCH /mailboxes/{id} `paused`), changing the sign-in of an IMAP mailbox
 * (PATCH `auth`/`secret`/`oauth2`, e.g. a new refresh token), testing the connection now (POST
 * /mailboxes/{id}/test, the answer shown), and what the chosen mailbox received (`?mailbox=<id>`:
 * GET /mailboxes/{id}/messages, each message's state and outcome, linked to its ticket), and the
 * project's mail settings (mail-settings.tsx).
 * docs/mail.md describes the mail service behind it.
 */
import { useState } from 'preact/hooks';
import { api, call, showError } from '../../api/client';
import type { operations } from '../../generated/api';
import { currentProject, type Project } from '../../projects';
import { setQuery } from '../../router';
import { senderChecks } from '../../sender-checks';
import { Button } from '../../ui/button';
import { EmptyState } from '../../ui/empty-state';
import { Field, SelectField } from '../../ui/field';
import { toast } from '../../ui/toast';
import { formatBytes, ticketPath } from '../ticket/model';
import type { ScreenProps } from '../screen';
import { AdminForm, AdminTable, CheckboxField, Panel, unplacedErrors, useForm } from './controls';
import { MailSettingsForm } from './mail-settings';
import {
  mailboxStatus,
  OAUTH2_PRESETS,
  oauth2CreateBody,
  oauth2UpdateBody,
  outcomeParts,
  testSummary,
  type Mailbox,
  type MailboxMessage,
  type OAuth2Fields,
} from './mailbox-model';
import { formatTime, useLoaded } from './use-loaded';

type MailboxBody = operations['createMailbox']['requestBody']['content']['application/json'];

const MESSAGES_SHOWN = 50;
const NO_OAUTH2: OAuth2Fields = {
  token_url: '',
  client_id: '',
  client_secret: '',
  refresh_token: '',
  scope: '',
};
const OAUTH2_PLACED = ['oauth2', ...Object.keys(NO_OAUTH2).map((key) => `oauth2.${key}`)];

/**
 * The OAuth2 client's fields. `keep`: a change of a stored client, where an empty field keeps what
 * is stored (its secrets are never shown).
 */
function OAuth2Fieldset({
  form,
  fields,
  onFields,
  keep = false,
}: {
  form: ReturnType<typeof useForm>;
  fields: OAuth2Fields;
  onFields: (fields: OAuth2Fields) => void;
  keep?: boolean;
}) {
  const set = (key: keyof OAuth2Fields) => (value: string) => onFields({ ...fields, [key]: value });
  const kept = keep ? ' Empty: unchanged.' : '';
  return (
    <fieldset class="admin-fieldset">
      <legend>OAuth2 client</legend>
      <SelectField
        label="Provider"
        options={[
          { value: '', label: 'Other (enter the token URL)' },
          ...OAUTH2_PRESETS.map((preset) => ({ value: preset.id, label: preset.label })),
        ]}
        value={OAUTH2_PRESETS.find((preset) => preset.token_url === fields.token_url)?.id ?? ''}
        onValue={(id) => {
          const preset = OAUTH2_PRESETS.find((candidate) => candidate.id === id);
          if (preset) onFields({ ...fields, token_url: preset.token_url, scope: preset.scope });
        }}
      />
      <div class="admin-row">
        <Field
          label="Token URL"
          hint={`Where Tix refreshes the access token.${kept}`}
          {...form.field('oauth2.token_url', fields.token_url, set('token_url'))}
        />
        <Field
          label="Scope"
          hint={`Optional.${kept}`}
          {...form.field('oauth2.scope', fields.scope, set('scope'))}
        />
      </div>
      <div class="admin-row">
        <Field
          label="Client ID"
          autoComplete="off"
          hint={keep ? 'Empty: unchanged.' : undefined}
          {...form.field('oauth2.client_id', fields.client_id, set('client_id'))}
        />
        <Field
          label="Client secret"
          type="password"
          autoComplete="new-password"
          hint={`Stored sealed; never shown again.${keep ? kept : ' Empty for a public client.'}`}
          {...form.field('oauth2.client_secret', fields.client_secret, set('client_secret'))}
        />
        <Field
          label="Refresh token"
          type="password"
          autoComplete="new-password"
          hint={`From the consent of the IMAP user; stored sealed.${kept}`}
          {...form.field('oauth2.refresh_token', fields.refresh_token, set('refresh_token'))}
        />
      </div>
    </fieldset>
  );
}

/** A new sign-in for an IMAP mailbox: a new password, or OAuth2 client values (a new refresh token). */
function SignInForm({
  mailbox,
  project,
  onSaved,
}: {
  mailbox: Mailbox;
  project: Project;
  onSaved: () => void;
}) {
  const [auth, setAuth] = useState<Mailbox['auth']>(mailbox.auth);
  const [secret, setSecret] = useState('');
  const [oauth2, setOAuth2] = useState<OAuth2Fields>(NO_OAUTH2);
  const form = useForm();
  // A mailbox with an OAuth2 client keeps it unless changed; switching to OAuth2 needs a whole one.
  const keep = auth === 'xoauth2' && mailbox.auth === 'xoauth2' && mailbox.oauth2 !== null;

  async function submit() {
    const client = auth === 'xoauth2' ? (keep ? oauth2UpdateBody(oauth2) : oauth2CreateBody(oauth2)) : null;
    await call(
      api.PATCH('/mailboxes/{id}', {
        params: { path: { id: mailbox.id }, query: { project_id: project.id } },
        body: {
          ...(auth === mailbox.auth ? {} : { auth }),
          ...(auth === 'password' ? { secret } : {}),
          ...(client ? { oauth2: client } : {}),
        },
      }),
    );
    toast(`Sign-in of ${mailbox.address} changed.`);
    setSecret('');
    setOAuth2(NO_OAUTH2);
    onSaved();
  }

  return (
    <AdminForm
      form={form}
      otherErrors={unplacedErrors(form.fieldErrors, ['auth', 'secret', ...OAUTH2_PLACED])}
      label={`Sign-in of ${mailbox.address}`}
      onSubmit={submit}
      submit="Change sign-in"
    >
      <SelectField
        label="Sign-in"
        options={[
          { value: 'password', label: 'Password' },
          { value: 'xoauth2', label: 'OAuth2 (XOAUTH2)' },
        ]}
        {...form.field('auth', auth, (value) => setAuth(value as Mailbox['auth']))}
      />
      {auth === 'password' ? (
        <Field
          label="New password"
          type="password"
          autoComplete="new-password"
          {...form.field('secret', secret, setSecret)}
        />
      ) : (
        <OAuth2Fieldset form={form} fields={oauth2} onFields={setOAuth2} keep={keep} />
      )}
    </AdminForm>
  );
}

function CreateMailboxForm({ project, onCreated }: { project: Project; onCreated: () => void }) {
  const [kind, setKind] = useState<MailboxBody['kind']>('smtp');
  const [address, setAddress] = useState('');
  const [host, setHost] = useState('');
  const [port, setPort] = useState('993');
  const [tls, setTls] = useState(true);
  const [user, setUser] = useState('');
  const [auth, setAuth] = useState<NonNullable<MailboxBody['auth']>>('password');
  const [secret, setSecret] = useState('');
  const [oauth2, setOAuth2] = useState<OAuth2Fields>(NO_OAUTH2);
  const [typeId, setTypeId] = useState('');
  const types = useLoaded(
    async () =>
      (await call(api.GET('/ticket-types', { params: { query: { project_id: project.id } } }))).ticket_types,
    [project.id],
  );
  const form = useForm();
  const placed = [
    'kind',
    'address',
    'default_ticket_type_id',
    ...(kind === 'imap'
      ? ['imap_host', 'imap_port', 'imap_tls', 'imap_user', 'auth', 'secret', ...OAUTH2_PLACED]
      : []),
  ];

  async function submit() {
    const imap =
      kind === 'imap'
        ? {
            imap_host: host.trim(),
            // A port that is not a number is sent as it is, for the server's 422 beside the field.
            imap_port: /^\d+$/.test(port.trim()) ? Number(port.trim()) : (port as unknown as number),
            imap_tls: tls,
            imap_user: user.trim(),
            auth,
            ...(auth === 'xoauth2' ? { oauth2: oauth2CreateBody(oauth2) } : { secret }),
          }
        : {};
    await call(
      api.POST('/mailboxes', {
        params: { query: { project_id: project.id } },
        body: {
          kind,
          address: address.trim(),
          ...imap,
          ...(typeId ? { default_ticket_type_id: Number(typeId) } : {}),
        },
      }),
    );
    toast(`Mailbox ${address.trim().toLowerCase()} added.`);
    setAddress('');
    setSecret('');
    setOAuth2(NO_OAUTH2);
    onCreated();
  }

  return (
    <AdminForm
      form={form}
      otherErrors={unplacedErrors(form.fieldErrors, placed)}
      label="New mailbox"
      onSubmit={submit}
      submit="Add mailbox"
    >
      <div class="admin-row">
        <SelectField
          label="Kind"
          options={[
            { value: 'smtp', label: 'SMTP: a relay or MX forwards mail to Tix' },
            { value: 'imap', label: 'IMAP: Tix fetches from an account' },
          ]}
          {...form.field('kind', kind, (value) => setKind(value as MailboxBody['kind']))}
        />
        <Field
          label="Address"
          type="email"
          hint="The address customers write to."
          {...form.field('address', address, setAddress)}
        />
        <SelectField
          label="Type of new tickets"
          options={[
            { value: '', label: 'The project default' },
            ...(types.data ?? [])
              .filter((type) => type.retired_at === null)
              .map((type) => ({ value: String(type.id), label: type.name })),
          ]}
          {...form.field('default_ticket_type_id', typeId, setTypeId)}
        />
      </div>
      {kind === 'imap' && (
        <fieldset class="admin-fieldset">
          <legend>IMAP account</legend>
          <div class="admin-row">
            <Field label="IMAP host" {...form.field('imap_host', host, setHost)} />
            <Field label="IMAP port" type="number" {...form.field('imap_port', port, setPort)} />
            <Field label="IMAP user" autoComplete="off" {...form.field('imap_user', user, setUser)} />
          </div>
          <CheckboxField label="Connect over TLS" {...form.checkbox('imap_tls', tls, setTls)} />
          <div class="admin-row">
            <SelectField
              label="Sign-in"
              options={[
                { value: 'password', label: 'Password' },
                { value: 'xoauth2', label: 'OAuth2 (XOAUTH2)' },
              ]}
              {...form.field('auth', auth, (value) => setAuth(value as NonNullable<MailboxBody['auth']>))}
            />
            {auth === 'password' && (
              <Field
                label="Password"
                type="password"
                autoComplete="new-password"
                hint="Stored sealed; never shown again."
                {...form.field('secret', secret, setSecret)}
              />
            )}
          </div>
          {auth === 'xoauth2' && <OAuth2Fieldset form={form} fields={oauth2} onFields={setOAuth2} />}
        </fieldset>
      )}
    </AdminForm>
  );
}

function Outcome({ message, project }: { message: MailboxMessage; project: Project }) {
  const { action, ticketId, reason } = outcomeParts(message.outcome);
  if (!action && ticketId === null && !reason) return <span class="muted">—</span>;
  return (
    <span>
      {action}
      {ticketId !== null && (
        <>
          {action ? ': ' : ''}
          <a href={ticketPath(ticketId, project)}>ticket {ticketId}</a>
        </>
      )}
      {reason && <span class="muted"> ({reason})</span>}
    </span>
  );
}

/** SPF, DKIM and DMARC as verified for the message, with a warning when DMARC failed. */
function SenderChecks({ message }: { message: MailboxMessage }) {
  const auth = senderChecks(message.outcome);
  if (!auth) return <span class="muted">—</span>;
  return (
    <span class="admin-sender-checks">
      <span class={auth.warning ? undefined : 'muted'}>{auth.line}</span>
      {auth.warning && (
        <span class="admin-warning" role="note">
          {' '}
          ⚠ {auth.warning}
        </span>
      )}
    </span>
  );
}

function Messages({ mailbox, project }: { mailbox: Mailbox; project: Project }) {
  const messages = useLoaded(
    async () =>
      (
        await call(
          api.GET('/mailboxes/{id}/messages', {
            params: { path: { id: mailbox.id }, query: { project_id: project.id, limit: MESSAGES_SHOWN } },
          }),
        )
      ).messages,
    [mailbox.id, project.id],
  );
  return (
    <>
      <div class="admin-inline">
        <Button kind="quiet" onClick={messages.reload}>
          Refresh
        </Button>
        <Button kind="quiet" onClick={() => setQuery({ mailbox: null })}>
          Close
        </Button>
      </div>
      <AdminTable
        label={`Messages received by ${mailbox.address}`}
        what="the messages"
        empty="Nothing received yet."
        rows={messages.data}
        columns={['Received', 'Message-ID', 'Via', 'Size', 'State', 'Outcome', 'Sender checks']}
      >
        {(message) => (
          <tr key={message.id} data-state={message.state}>
            <td>{formatTime(message.received_at)}</td>
            <td class="admin-break">{message.message_id ?? '—'}</td>
            <td>{message.source.toUpperCase()}</td>
            <td>{formatBytes(message.size)}</td>
            <td>{message.state}</td>
            <td>
              <Outcome message={message} project={project} />
            </td>
            <td>
              <SenderChecks message={message} />
            </td>
          </tr>
        )}
      </AdminTable>
    </>
  );
}

export default function AdminMailboxes({ query }: ScreenProps) {
  const project = currentProject.value;
  const chosen = query.get('mailbox');
  const mailboxes = useLoaded(
    async () =>
      project
        ? (await call(api.GET('/mailboxes', { params: { query: { project_id: project.id } } }))).mailboxes
        : [],
    [project?.id],
  );
  const [working, setWorking] = useState<number | null>(null);
  const [tested, setTested] = useState<string>('');

  async function setPaused(mailbox: Mailbox, paused: boolean) {
    if (!project) return;
    setWorking(mailbox.id);
    try {
      await call(
        api.PATCH('/mailboxes/{id}', {
          params: { path: { id: mailbox.id }, query: { project_id: project.id } },
          body: { paused },
        }),
      );
      toast(
        paused
          ? `${mailbox.address} paused: its mail waits until it resumes.`
          : `${mailbox.address} resumed.`,
      );
      mailboxes.reload();
    } catch (error) {
      showError(error);
    } finally {
      setWorking(null);
    }
  }

  async function test(mailbox: Mailbox) {
    if (!project) return;
    setWorking(mailbox.id);
    setTested(`Testing ${mailbox.address}…`);
    try {
      const { result } = await call(
        api.POST('/mailboxes/{id}/test', {
          params: { path: { id: mailbox.id }, query: { project_id: project.id } },
        }),
      );
      setTested(testSummary(mailbox, result));
      mailboxes.reload();
    } catch (error) {
      setTested('');
      showError(error);
    } finally {
      setWorking(null);
    }
  }

  if (!project) return <EmptyState title="No project yet: create one under Projects first." />;
  const selected = mailboxes.data?.find((mailbox) => String(mailbox.id) === chosen) ?? null;
  return (
    <section class="screen admin-screen">
      <h1>
        Mailboxes <span class="muted">{project.name}</span>
      </h1>
      <p>
        Without a mailbox, {project.name} still takes mail sent to its own address on the Tix mail domain (the
        project’s slug, and slug+anything).
      </p>
      <Panel title="Mailboxes">
        <p class="admin-test-result" role="status">
          {tested}
        </p>
        <AdminTable
          label="Mailboxes"
          what="mailboxes"
          empty="No mailboxes in this project."
          rows={mailboxes.data}
          columns={['Address', 'Kind', 'Status', 'Last error', 'Added', 'Actions']}
        >
          {(mailbox) => (
            <tr
              key={mailbox.id}
              data-paused={String(mailbox.paused)}
              aria-current={mailbox.id === selected?.id ? 'true' : undefined}
            >
              <th scope="row" class="admin-break">
                {mailbox.address}
              </th>
              <td>
                {mailbox.kind === 'imap'
                  ? `IMAP ${mailbox.imap_host ?? ''}:${mailbox.imap_port ?? ''}${mailbox.imap_tls ? ' (TLS)' : ''}`
                  : 'SMTP'}
              </td>
              <td>{mailboxStatus(mailbox)}</td>
              <td class="admin-break">{mailbox.last_error ?? '—'}</td>
              <td>{formatTime(mailbox.created_at)}</td>
              <td>
                <div class="admin-inline">
                  <Button
                    kind="quiet"
                    busy={working === mailbox.id}
                    aria-label={`${mailbox.paused ? 'Resume' : 'Pause'} ${mailbox.address}`}
                    onClick={() => void setPaused(mailbox, !mailbox.paused)}
                  >
                    {mailbox.paused ? 'Resume' : 'Pause'}
                  </Button>
                  <Button
                    kind="quiet"
                    busy={working === mailbox.id}
                    aria-label={`Test connection of ${mailbox.address}`}
                    onClick={() => void test(mailbox)}
                  >
                    Test connection
                  </Button>
                  <Button
                    kind="quiet"
                    aria-label={`Messages received by ${mailbox.address}`}
                    onClick={() => setQuery({ mailbox: String(mailbox.id) })}
                  >
                    Messages
                  </Button>
                  {mailbox.kind === 'imap' && (
                    <Button
                      kind="quiet"
                      aria-label={`Change sign-in of ${mailbox.address}`}
                      onClick={() => setQuery({ mailbox: String(mailbox.id) })}
                    >
                      Sign-in
                    </Button>
                  )}
                </div>
              </td>
            </tr>
          )}
        </AdminTable>
      </Panel>
      {selected && (
        <Panel title={`Received by ${selected.address}`}>
          <Messages key={selected.id} mailbox={selected} project={project} />
        </Panel>
      )}
      {selected?.kind === 'imap' && (
        <Panel title={`Sign-in of ${selected.address}`}>
          {selected.oauth2 && (
            <p>
              OAuth2 client {selected.oauth2.client_id} at {selected.oauth2.token_url}
              {selected.oauth2.access_token_expires_at
                ? `; the current access token expires ${formatTime(selected.oauth2.access_token_expires_at)}`
                : ''}
              .
            </p>
          )}
          <SignInForm key={selected.id} mailbox={selected} project={project} onSaved={mailboxes.reload} />
        </Panel>
      )}
      <Panel title="New mailbox">
        <CreateMailboxForm key={project.id} project={project} onCreated={mailboxes.reload} />
      </Panel>
      <Panel title="Mail settings">
        <MailSettingsForm key={project.id} project={project} />
      </Panel>
    </section>
  );
}

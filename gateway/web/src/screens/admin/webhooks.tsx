/**
 * Webhooks (admin) of the project the console works in: every owner's subscriptions (GET
 * /webhooks?owner=all), subscribing a URL to events (POST /webhooks: the signing secret is in that
 * answer only, shown once), deleting one (DELETE /webhooks/{id}), and the delivery log with
 * redelivery of the one chosen (`?webhook=<id>`, admin/delivery-log.tsx). docs/webhooks.md tells
 * receivers how to verify what arrives.
 */
import { SUBSCRIBABLE_EVENT_TYPES } from '@tix/contract';
import { useState } from 'preact/hooks';
import { api, call, showError } from '../../api/client';
import type { components } from '../../generated/api';
import { currentProject, type Project } from '../../projects';
import { setQuery } from '../../router';
import { Button } from '../../ui/button';
import { EmptyState } from '../../ui/empty-state';
import { Field } from '../../ui/field';
import { toast } from '../../ui/toast';
import { ConfirmDialog } from './confirm-dialog';
import { DeliveryLog } from './delivery-log';
import { AdminForm, AdminTable, CheckboxGroup, Panel, useForm } from './controls';
import { ShownOnce } from './shown-once';
import { formatTime, useLoaded } from './use-loaded';
import type { ScreenProps } from '../screen';

type Webhook = components['schemas']['Webhook'];

function CreateWebhookForm({
  project,
  onCreated,
}: {
  project: Project;
  onCreated: (secret: string) => void;
}) {
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>(['ticket.created']);
  const [secret, setSecret] = useState('');
  const form = useForm();
  const placed = ['url', 'events', 'secret'];

  async function submit() {
    const answer = await call(
      api.POST('/webhooks', {
        params: { query: { project_id: project.id } },
        body: { url, events, project_id: project.id, secret: secret || null },
      }),
    );
    onCreated(answer.webhook.secret);
    setUrl('');
    setSecret('');
  }

  return (
    <AdminForm form={form} placed={placed} label="New webhook" onSubmit={submit} submit="Create webhook">
      <Field
        label="Payload URL"
        type="url"
        hint="Receives a signed POST for each event. In production: https and a public host."
        {...form.field('url', url, setUrl)}
      />
      <CheckboxGroup
        legend="Events"
        options={SUBSCRIBABLE_EVENT_TYPES}
        {...form.choice('events', events, setEvents)}
      />
      <Field
        label="Signing secret (optional)"
        type="password"
        autoComplete="off"
        hint="16 to 256 printable characters without spaces; leave empty and Tix generates one."
        {...form.field('secret', secret, setSecret)}
      />
    </AdminForm>
  );
}

export default function AdminWebhooks({ query }: ScreenProps) {
  const project = currentProject.value;
  const chosen = query.get('webhook');
  const webhooks = useLoaded(
    async () =>
      project
        ? (await call(api.GET('/webhooks', { params: { query: { project_id: project.id, owner: 'all' } } })))
            .webhooks
        : [],
    [project?.id],
  );
  const [secret, setSecret] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Webhook | null>(null);
  const [busy, setBusy] = useState(false);

  async function remove() {
    if (!deleting || !project) return;
    setBusy(true);
    try {
      await call(
        api.DELETE('/webhooks/{id}', {
          params: { path: { id: deleting.id }, query: { project_id: project.id } },
        }),
      );
      toast('Webhook deleted: nothing more is sent to it.');
      if (chosen === String(deleting.id)) setQuery({ webhook: null });
      setDeleting(null);
      webhooks.reload();
    } catch (error) {
      showError(error);
    } finally {
      setBusy(false);
    }
  }

  if (!project) return <EmptyState title="No project yet: create one under Projects first." />;
  const selected = webhooks.data?.find((webhook) => String(webhook.id) === chosen) ?? null;
  return (
    <section class="screen admin-screen">
      <h1>
        Webhooks <span class="muted">{project.name}</span>
      </h1>
      <Panel title="New webhook">
        <CreateWebhookForm
          key={project.id}
          project={project}
          onCreated={(value) => {
            setSecret(value);
            webhooks.reload();
          }}
        />
        {secret && (
          <ShownOnce
            label="Signing secret"
            value={secret}
            warning="This is the only time it is shown. Your receiver checks each delivery's signature with it (docs/webhooks.md)."
            onDone={() => setSecret(null)}
          />
        )}
      </Panel>
      <Panel title="Subscriptions">
        <AdminTable
          label="Webhooks"
          what="webhooks"
          empty="No webhooks in this project."
          rows={webhooks.data}
          columns={['URL', 'Events', 'Created', 'Actions']}
        >
          {(webhook) => (
            <tr key={webhook.id} aria-current={webhook.id === selected?.id ? 'true' : undefined}>
              <th scope="row" class="admin-break">
                {webhook.url}
              </th>
              <td>{webhook.events.join(', ')}</td>
              <td>{formatTime(webhook.created_at)}</td>
              <td>
                <div class="admin-inline">
                  <Button
                    kind="quiet"
                    aria-label={`Delivery log of ${webhook.url}`}
                    onClick={() => setQuery({ webhook: String(webhook.id) })}
                  >
                    Delivery log
                  </Button>
                  <Button
                    kind="quiet"
                    aria-label={`Delete ${webhook.url}`}
                    onClick={() => setDeleting(webhook)}
                  >
                    Delete
                  </Button>
                </div>
              </td>
            </tr>
          )}
        </AdminTable>
      </Panel>
      {selected && (
        <Panel title={`Delivery log: ${selected.url}`}>
          <DeliveryLog key={selected.id} project={project} webhook={selected} />
        </Panel>
      )}
      <ConfirmDialog
        open={deleting !== null}
        title="Delete this webhook?"
        confirmLabel="Delete webhook"
        busy={busy}
        onConfirm={() => void remove()}
        onClose={() => setDeleting(null)}
      >
        <p class="admin-break">
          Nothing more is sent to {deleting?.url}, not even a retry already scheduled.
        </p>
      </ConfirmDialog>
    </section>
  );
}

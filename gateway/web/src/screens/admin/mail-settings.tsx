/**
 * The project's mail settings (admin), a section of the mailboxes screen: the sender's name and
 * address, the reply signature, the acknowledgement of new mail tickets (on/off, subject and body
 * templates), the reopen window and whether list mail opens tickets (GET and PUT /mail-settings;
 * docs/mail.md, "Outbound"). Saving sends only what changed; the 422 names the bad fields.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, call } from '../../api/client';
import type { Project } from '../../projects';
import { Field, TextAreaField } from '../../ui/field';
import { toast } from '../../ui/toast';
import { AdminForm, CheckboxField, useForm } from './controls';
import { draftOf, settingsChange, type MailSettingsDraft } from './mail-settings-model';
import { formatTime, useLoaded } from './use-loaded';

const PLACEHOLDERS = '{{ticket.number}}, {{ticket.title}}, {{requester.name}}, {{project.name}}';

export function MailSettingsForm({ project }: { project: Project }) {
  const settings = useLoaded(
    async () =>
      (await call(api.GET('/mail-settings', { params: { query: { project_id: project.id } } }))).settings,
    [project.id],
  );
  const [draft, setDraft] = useState<MailSettingsDraft | null>(null);
  useEffect(() => setDraft(settings.data ? draftOf(settings.data) : null), [settings.data]);
  const form = useForm();
  if (!settings.data || !draft) return <p class="muted">Loading the mail settings…</p>;
  const saved = settings.data;
  const set =
    <K extends keyof MailSettingsDraft>(field: K) =>
    (value: MailSettingsDraft[K]) =>
      setDraft((current) => current && { ...current, [field]: value });

  async function submit() {
    const change = settingsChange(saved, draft!);
    if (Object.keys(change).length === 0) {
      toast('Nothing changed.');
      return;
    }
    const answer = await call(
      api.PUT('/mail-settings', { params: { query: { project_id: project.id } }, body: change }),
    );
    settings.set(answer.settings);
    toast('Mail settings saved.');
  }

  return (
    <AdminForm
      form={form}
      label="Mail settings"
      placed={Object.keys(draft)}
      onSubmit={submit}
      submit="Save mail settings"
    >
      <div class="admin-row">
        <Field
          label="From name"
          hint={`Empty: ${project.name}.`}
          {...form.field('from_name', draft.from_name, set('from_name'))}
        />
        <Field
          label="From address"
          type="email"
          hint="Empty: the project’s own address on the Tix mail domain."
          {...form.field('from_address', draft.from_address, set('from_address'))}
        />
        <Field
          label="Reopen window (days)"
          type="number"
          hint="A reply to a ticket closed within this many days reopens it; later ones open a new ticket."
          {...form.field('reopen_window_days', draft.reopen_window_days, set('reopen_window_days'))}
        />
      </div>
      <TextAreaField
        label="Signature"
        hint="Added under every reply mailed to customers."
        {...form.field('signature', draft.signature, set('signature'))}
      />
      <CheckboxField
        label="Acknowledge new tickets opened by mail"
        {...form.checkbox('acknowledge', draft.acknowledge, set('acknowledge'))}
      />
      <Field
        label="Acknowledgement subject"
        hint={`Placeholders: ${PLACEHOLDERS}.`}
        {...form.field('ack_subject', draft.ack_subject, set('ack_subject'))}
      />
      <TextAreaField
        label="Acknowledgement body"
        rows={5}
        {...form.field('ack_body', draft.ack_body, set('ack_body'))}
      />
      <CheckboxField
        label="Open tickets from mailing-list mail"
        {...form.checkbox('accept_list_mail', draft.accept_list_mail, set('accept_list_mail'))}
      />
      {saved.updated_at && <p class="muted">Last changed {formatTime(saved.updated_at)}.</p>}
    </AdminForm>
  );
}

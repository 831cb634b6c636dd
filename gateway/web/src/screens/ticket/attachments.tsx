/**
 * The ticket's attachments: download links for everyone (the bytes come from
 * /api/attachments/{id}/download), upload with a progress bar and removal for agents and above.
 */
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { api, call, fieldErrorsOf, showError } from '../../api/client';
import type { Project } from '../../projects';
import { can } from '../../session';
import { Button } from '../../ui/button';
import { Dialog } from '../../ui/dialog';
import { toast } from '../../ui/toast';
import { attachmentDownloadPath, formatBytes, formatDateTime, type Attachment, type Ticket } from './model';
import { uploadAttachment } from './upload';
import { ErrorList } from '../../ui/field';

function downloadPath(attachment: Attachment, project: Project): string {
  return attachmentDownloadPath(attachment.id, project);
}

function UploadForm({
  ticket,
  project,
  onUploaded,
}: {
  ticket: Ticket;
  project: Project;
  onUploaded: (attachment: Attachment) => void;
}) {
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [errors, setErrors] = useState<string[] | undefined>(undefined);

  async function submit(event: Event) {
    event.preventDefault();
    if (!file) {
      setErrors(['Choose a file first']);
      return;
    }
    setErrors(undefined);
    setProgress(0);
    try {
      const attachment = await uploadAttachment(ticket.id, project.id, file, setProgress);
      setProgress(1);
      toast(`Uploaded ${attachment.original_filename}`);
      setFile(null);
      if (input.current) input.current.value = '';
      onUploaded(attachment);
    } catch (error) {
      const fieldErrors = fieldErrorsOf(error);
      if (fieldErrors) setErrors(Object.values(fieldErrors).flat());
      else showError(error);
    } finally {
      setProgress(null);
    }
  }

  const percent = progress === null ? null : Math.round(progress * 100);
  return (
    <form class="ticket-attachment-upload" noValidate onSubmit={(event) => void submit(event)}>
      <div class="field">
        <label for={id}>File to attach</label>
        <input
          ref={input}
          id={id}
          type="file"
          aria-invalid={errors ? 'true' : undefined}
          aria-describedby={errors ? `${id}-errors` : undefined}
          onChange={(event) => {
            setErrors(undefined);
            setFile(event.currentTarget.files?.[0] ?? null);
          }}
        />
        <ErrorList id={`${id}-errors`} errors={errors} />
      </div>
      <Button type="submit" busy={percent !== null}>
        Upload
      </Button>
      {percent !== null && (
        <div class="ticket-attachment-progress">
          <progress id={`${id}-progress`} max={100} value={percent} aria-label="Upload progress" />
          <span aria-live="polite">{percent}%</span>
        </div>
      )}
    </form>
  );
}

export function Attachments({
  ticket,
  project,
  onChanged,
}: {
  ticket: Ticket;
  project: Project;
  onChanged: () => void;
}) {
  const [attachments, setAttachments] = useState<Attachment[] | null>(null);
  const [removing, setRemoving] = useState<Attachment | null>(null);
  const canWrite = can('tickets.write');

  useEffect(() => {
    let current = true;
    call(
      api.GET('/tickets/{id}/attachments', {
        params: { path: { id: ticket.id }, query: { project_id: project.id } },
      }),
    )
      .then((answer) => {
        if (current) setAttachments(answer.attachments);
      })
      .catch(showError);
    return () => {
      current = false;
    };
  }, [ticket.id, project.id]);

  async function remove() {
    const attachment = removing;
    setRemoving(null);
    if (!attachment) return;
    try {
      await call(
        api.DELETE('/attachments/{id}', {
          params: { path: { id: attachment.id }, query: { project_id: project.id } },
        }),
      );
      setAttachments((list) => list && list.filter((item) => item.id !== attachment.id));
      onChanged();
    } catch (error) {
      showError(error);
    }
  }

  return (
    <section class="ticket-panel" aria-labelledby="ticket-attachments-heading">
      <h2 id="ticket-attachments-heading">Attachments</h2>
      {attachments === null ? (
        <p class="muted">Loading attachments…</p>
      ) : attachments.length === 0 ? (
        <p class="muted">No attachments.</p>
      ) : (
        <ul class="ticket-attachment-list">
          {attachments.map((attachment) => (
            <li key={attachment.id} class="ticket-attachment">
              <a href={downloadPath(attachment, project)} download={attachment.original_filename}>
                {attachment.original_filename}
              </a>
              <span class="muted">
                {formatBytes(attachment.size_bytes)} · {formatDateTime(attachment.created_at)}
              </span>
              {canWrite && (
                <Button
                  kind="quiet"
                  aria-label={`Remove ${attachment.original_filename}`}
                  onClick={() => setRemoving(attachment)}
                >
                  Remove
                </Button>
              )}
            </li>
          ))}
        </ul>
      )}
      {canWrite && (
        <UploadForm
          ticket={ticket}
          project={project}
          onUploaded={(attachment) => {
            setAttachments((list) => [...(list ?? []), attachment]);
            onChanged();
          }}
        />
      )}
      <Dialog
        open={removing !== null}
        title={`Remove ${removing?.original_filename ?? 'the file'}?`}
        onClose={() => setRemoving(null)}
      >
        <p>The file is deleted from the ticket for everyone.</p>
        <div class="dialog-actions">
          <Button kind="danger" onClick={() => void remove()}>
            Remove file
          </Button>
          <Button onClick={() => setRemoving(null)}>Keep it</Button>
        </div>
      </Dialog>
    </section>
  );
}

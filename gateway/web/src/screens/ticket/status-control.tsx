/**
 * The ticket's status: shown to everyone; agents and above change it (PATCH /tickets/{id}/status),
 * choosing a resolution when the new status is a closed one of the project's workflow (the only
 * statuses that take one).
 */
import { useEffect, useState } from 'preact/hooks';
import { api, call } from '../../api/client';
import type { Project } from '../../projects';
import { Button } from '../../ui/button';
import { RESOLUTIONS, resolutionLabel, type Resolution, type Ticket } from './model';
import { SelectField } from '../../ui/field';
import { useSubmit } from '../../ui/submit';

export function StatusControl({
  ticket,
  project,
  canEdit,
  onSaved,
}: {
  ticket: Ticket;
  project: Project;
  canEdit: boolean;
  onSaved: (ticket: Ticket) => void;
}) {
  const [status, setStatus] = useState(ticket.status);
  const [resolution, setResolution] = useState<Resolution>(ticket.resolution_type ?? 'resolved');
  const { busy, run, field } = useSubmit();
  useEffect(() => {
    setStatus(ticket.status);
    setResolution(ticket.resolution_type ?? 'resolved');
  }, [ticket.status, ticket.resolution_type]);

  const target = project.statuses.find((candidate) => candidate.slug === status);
  const needsResolution = target?.is_closed === true;
  const unchanged = status === ticket.status && (!needsResolution || resolution === ticket.resolution_type);

  async function submit(event: Event) {
    event.preventDefault();
    await run(async () => {
      const answer = await call(
        api.PATCH('/tickets/{id}/status', {
          params: { path: { id: ticket.id }, query: { project_id: project.id } },
          body: { status, ...(needsResolution ? { resolution_type: resolution } : {}) },
        }),
      );
      onSaved(answer.ticket);
    });
  }

  const current = (
    <p class="ticket-status-current">
      <span class="ticket-status-badge">{ticket.status_label}</span>
      {ticket.resolution_type && <span class="muted"> · {resolutionLabel(ticket.resolution_type)}</span>}
    </p>
  );
  if (!canEdit) {
    return (
      <section class="ticket-panel" aria-labelledby="ticket-status-heading">
        <h2 id="ticket-status-heading">Status</h2>
        {current}
      </section>
    );
  }
  return (
    <section class="ticket-panel" aria-labelledby="ticket-status-heading">
      <h2 id="ticket-status-heading">Status</h2>
      {current}
      <form class="ticket-status-form" noValidate onSubmit={(event) => void submit(event)}>
        <SelectField
          label="New status"
          options={project.statuses.map((option) => ({ value: option.slug, label: option.label }))}
          {...field('status', status, setStatus)}
        />
        {needsResolution && (
          <SelectField
            label="Resolution"
            options={RESOLUTIONS}
            {...field('resolution_type', resolution, (value) => setResolution(value as Resolution))}
          />
        )}
        <Button type="submit" busy={busy} disabled={unchanged}>
          Change status
        </Button>
      </form>
    </section>
  );
}

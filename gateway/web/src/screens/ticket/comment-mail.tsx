/**
 * The mail a public reply produced, under each public comment by staff: to whom, and whether it was
 * sent, failed, bounced or is still queued, with the reason. Under a comment that came by mail (and
 * atop the thread for the mail that opened the ticket): its sender checks, with a warning when DMARC
 * failed for the From domain. The ticket screen loads the ticket's whole mail log once
 * (GET /tickets/{id}/mail, `useTicketMail`) and hands each comment its part.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, call } from '../../api/client';
import type { Project } from '../../projects';
import type { Comment, Ticket } from './model';
import {
  delivery,
  recipients,
  ticketMailView,
  type OutboundMessage,
  type ReceivedChecks,
  type TicketMailView,
} from './mail-model';

/** The ticket's mail by comment id (null while it loads or when it could not be read). */
export function useTicketMail(ticket: Ticket, project: Project, revision: string): TicketMailView | null {
  const [mail, setMail] = useState<TicketMailView | null>(null);
  useEffect(() => {
    let current = true;
    call(
      api.GET('/tickets/{id}/mail', {
        params: { path: { id: ticket.id }, query: { project_id: project.id } },
      }),
    )
      .then((answer) => {
        if (current) setMail(ticketMailView(answer));
      })
      .catch(() => {
        // The delivery log is extra: the thread stays readable without it.
        if (current) setMail(null);
      });
    return () => {
      current = false;
    };
  }, [ticket.id, project.id, revision]);
  return mail;
}

export function CommentMail({ comment, mail }: { comment: Comment; mail: OutboundMessage[] | undefined }) {
  if (!mail || mail.length === 0) return null;
  return (
    <ul class="ticket-comment-mail" aria-label={`Mail sent for comment ${comment.id}`}>
      {mail.map((message) => {
        const { tone, label, reason } = delivery(message);
        return (
          <li key={message.id} class={`ticket-mail ticket-mail-${tone}`} data-state={message.state}>
            <span class="ticket-mail-to">Mailed to {recipients(message)}</span>{' '}
            <span class="ticket-mail-state">{label}</span>
            {reason && <span class="muted">: {reason}</span>}
          </li>
        );
      })}
    </ul>
  );
}

/** How a mail that became a comment (or opened the ticket) fared in the sender checks. */
export function ReceivedMail({
  checks,
  label,
}: {
  checks: ReceivedChecks | undefined | null;
  label: string;
}) {
  if (!checks) return null;
  return (
    <div class="ticket-received-mail" aria-label={label}>
      <span class="muted">
        Received by mail{checks.from ? ` from ${checks.from}` : ''} · {checks.line}
      </span>
      {checks.warning && (
        <p class="ticket-mail-warning" role="note">
          ⚠ {checks.warning}
        </p>
      )}
    </div>
  );
}

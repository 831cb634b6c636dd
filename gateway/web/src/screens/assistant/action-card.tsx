/**
 * One autonomous action as the ticket panel and the audit queue show it: what it changed (before and
 * after), how sure the assistant was against the threshold, why (rationale and source tickets), and
 * what became of it (reviewed, reverted, a conflict). Buttons for the viewer's role come as children.
 */
import type { ComponentChildren } from 'preact';
import {
  actionLabel,
  changeText,
  confidenceText,
  percent,
  statusLabel,
  valueText,
  when,
  type AutonomousAction,
} from './format';
import './ai.css';

export function ActionCard({
  action,
  showTicket = true,
  children,
}: {
  action: AutonomousAction;
  showTicket?: boolean;
  children?: ComponentChildren;
}) {
  const headingId = `action-${action.id}`;
  return (
    <article
      class={`ai-action ai-action-${action.status}`}
      aria-labelledby={headingId}
      data-action-id={action.id}
    >
      <header class="ai-action-head">
        <h3 id={headingId} class="ai-action-title">
          {actionLabel(action.action_type)}
          {showTicket && (
            <>
              {' on '}
              <a href={`/tickets/${action.ticket_id}`}>{action.ticket_number}</a>
            </>
          )}
        </h3>
        <span class={`ai-status ai-status-${action.status}`}>{statusLabel(action.status)}</span>
      </header>
      <ul class="ai-action-changes">
        {changeText(action.before, action.after).map((line) => (
          <li key={line}>{line}</li>
        ))}
      </ul>
      <p class="ai-action-meta">
        Confidence {confidenceText(action.confidence, action.confidence_label)}, threshold{' '}
        {percent(action.threshold)} · {when(action.created_at)}
      </p>
      {action.rationale && <p class="ai-action-rationale">{action.rationale}</p>}
      {action.sources.length > 0 && (
        <p class="ai-action-sources">
          Like{' '}
          {action.sources.map((source, index) => (
            <span key={source.ticket_id}>
              {index > 0 && ', '}
              <a href={`/tickets/${source.ticket_id}`} title={source.title}>
                {source.ticket_number}
              </a>{' '}
              <span class="muted">({percent(source.similarity)})</span>
            </span>
          ))}
        </p>
      )}
      {action.irreversible_effects.length > 0 && (
        <p class="ai-warning">Cannot be undone: {action.irreversible_effects.join(', ')}</p>
      )}
      {action.conflict && (
        <p class="ai-warning">
          {action.conflict.message}
          {action.conflict.fields ? ` (${valueText(action.conflict.fields)})` : ''}
        </p>
      )}
      {action.reviewed_by && (
        <p class="ai-action-meta">
          Reviewed by {action.reviewed_by.name} · {when(action.reviewed_at)}
          {action.review_note ? `: “${action.review_note}”` : ''}
        </p>
      )}
      {action.reverted_by && (
        <p class="ai-action-meta">
          Reverted by {action.reverted_by.name} · {when(action.reverted_at)}
          {action.revert_reason ? `: “${action.revert_reason}”` : ''}
        </p>
      )}
      {children && <div class="ai-action-buttons">{children}</div>}
    </article>
  );
}

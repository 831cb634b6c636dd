/**
 * The assistant beside a ticket (agents and above): whether suggestions are available and how many of
 * the hourly quota are left; "Suggest reply" with its tone, confidence and source tickets, and
 * "Insert into composer"; the ticket's predictions, each applied in one click as an ordinary ticket
 * change under `version` (then POST /ai/predictions/{id}/accept, which keeps the track record), except
 * one the assistant's own rules hold back (`held_back`), shown with the reason and not offered; and
 * what the assistant did to this ticket on its own, with Acknowledge and Revert for team leads.
 */
import { useEffect, useId, useState } from 'preact/hooks';
import { DEFAULT_SUGGESTION_TONE, SUGGESTION_TONES, type SuggestionTone as Tone } from '@tix/contract';
import { api, call, isConflict, showError } from '../../api/client';
import type { components } from '../../generated/api';
import { can } from '../../session';
import { Button } from '../../ui/button';
import { askConflict } from '../../ui/conflict-dialog';
import { Loading } from '../../ui/empty-state';
import { toast } from '../../ui/toast';
import { ActionCard } from './action-card';
import {
  actionLabel,
  confidenceText,
  valueText,
  when,
  type AutonomousAction,
  type Prediction,
} from './format';
import { ReviewDialog, type ReviewRequest } from './review-dialog';
import './ai.css';
import { Options, optionsOf } from '../../ui/field';
import { SourceList } from './source-list';

type Ticket = components['schemas']['Ticket'];
type User = components['schemas']['User'];
type Suggestion = components['schemas']['Suggestion'];
type Availability = NonNullable<Awaited<ReturnType<typeof loadAvailability>>>;

export interface AssistantPanelProps {
  ticket: Ticket;
  projectId: number;
  onInsertReply: (text: string) => void;
  onChanged: () => void;
}

/** What each pane of the panel about the ticket's assistant actions takes. */
type TicketPaneProps = Pick<AssistantPanelProps, 'ticket' | 'projectId' | 'onChanged'>;

const REASONS: Record<string, string> = {
  disabled: 'The assistant is turned off.',
  insufficient_history: 'Not enough resolved tickets yet to learn from.',
  rate_limited: 'Your hourly quota of suggestions is spent.',
  provider_unavailable: 'The assistant cannot reach its model right now.',
  no_confident_match: 'No resolved ticket is close enough to suggest a reply.',
};

function reasonText(reason: string | null | undefined): string {
  return reason ? (REASONS[reason] ?? reason.replace(/_/g, ' ')) : '';
}

/** Why a prediction is not offered: what the assistant's own rules would not do (`held_back`). */
const HELD_BACK: Record<string, string> = {
  would_downgrade: 'The assistant does not lower a priority on its own.',
};

function heldBackText(heldBack: string): string {
  return (
    HELD_BACK[heldBack] ?? `The assistant would not do this on its own (${heldBack.replace(/_/g, ' ')}).`
  );
}

function loadAvailability(projectId: number, ticketId: number) {
  return call(
    api.GET('/ai/suggest-reply/availability', {
      params: { query: { project_id: projectId, ticket_id: ticketId } },
    }),
  );
}

function AvailabilityLine({ availability }: { availability: Availability | null }) {
  if (!availability) return <Loading what="the assistant's availability" />;
  const quota = availability.rate_limit;
  return (
    <div class="ai-availability" data-available={availability.available ? 'true' : 'false'}>
      <p>
        <strong>{availability.available ? 'Suggestions available' : 'Suggestions unavailable'}</strong>
        {!availability.available && `: ${reasonText(availability.reason)}`}
      </p>
      {quota && (
        <p class="muted" data-quota-remaining={quota.remaining}>
          {quota.remaining} of {quota.limit} suggestions left this hour
          {quota.remaining < quota.limit ? ` (one more from ${when(quota.reset_at)})` : ''}
        </p>
      )}
      <p class="muted">
        Autonomy:{' '}
        <span
          class={availability.autonomy === 'killed' ? 'ai-killed' : undefined}
          data-autonomy={availability.autonomy}
        >
          {availability.autonomy === 'killed' ? 'stopped by the kill switch' : availability.autonomy}
        </span>
      </p>
    </div>
  );
}

function SuggestReply({
  ticket,
  projectId,
  availability,
  onInsertReply,
  onSuggested,
}: {
  ticket: Ticket;
  projectId: number;
  availability: Availability | null;
  onInsertReply: (text: string) => void;
  onSuggested: () => void;
}) {
  const [tone, setTone] = useState<Tone>(DEFAULT_SUGGESTION_TONE);
  const [busy, setBusy] = useState(false);
  const [suggestion, setSuggestion] = useState<Suggestion | null>(null);
  const [noSuggestion, setNoSuggestion] = useState<string | null>(null);
  const toneId = useId();
  useEffect(() => {
    setSuggestion(null);
    setNoSuggestion(null);
  }, [ticket.id]);

  async function suggest() {
    setBusy(true);
    try {
      const answer = await call(
        api.POST('/ai/suggest-reply', {
          params: { query: { project_id: projectId } },
          body: { ticket_id: ticket.id, tone },
        }),
      );
      if ('suggestion' in answer && answer.suggestion) {
        setSuggestion(answer.suggestion);
        setNoSuggestion(null);
      } else {
        setSuggestion(null);
        setNoSuggestion(reasonText('reason' in answer ? answer.reason : null));
      }
    } catch (error) {
      showError(error);
    } finally {
      setBusy(false);
      onSuggested();
    }
  }

  return (
    <section class="ai-section" aria-labelledby={`${toneId}-heading`}>
      <h3 id={`${toneId}-heading`}>Suggested reply</h3>
      <div class="ai-suggest-controls">
        <label for={toneId}>Tone</label>
        <select id={toneId} value={tone} onChange={(event) => setTone(event.currentTarget.value as Tone)}>
          <Options
            options={optionsOf(SUGGESTION_TONES, (value) => value[0]!.toUpperCase() + value.slice(1))}
          />
        </select>
        <Button
          kind="primary"
          busy={busy}
          disabled={availability?.available === false}
          onClick={() => void suggest()}
        >
          Suggest reply
        </Button>
      </div>
      {noSuggestion && (
        <p class="muted" role="status">
          {noSuggestion}
        </p>
      )}
      {suggestion && (
        <div class="ai-suggestion" data-suggestion-id={suggestion.id}>
          <p class="ai-suggestion-text">{suggestion.content}</p>
          <p class="muted">
            Confidence {confidenceText(suggestion.confidence, suggestion.confidence_label)}
            {suggestion.redactions > 0 && ` · ${suggestion.redactions} personal details redacted`}
            {suggestion.provider.external ? ` · written by ${suggestion.provider.model}` : ''}
          </p>
          <h4>Sources</h4>
          <SourceList sources={suggestion.sources} />
          {can('comments.write') && (
            <Button kind="primary" onClick={() => onInsertReply(suggestion.content)}>
              Insert into composer
            </Button>
          )}
        </div>
      )}
    </section>
  );
}

function predictionText(prediction: Prediction, users: Map<number, User>): string {
  const value = prediction.value;
  switch (prediction.action_type) {
    case 'set_priority':
      return `Priority ${valueText(value)}`;
    case 'assign':
      return `Assign to ${typeof value === 'number' ? (users.get(value)?.name ?? `user ${value}`) : valueText(value)}`;
    case 'add_tags':
      return `Add tags ${valueText(value)}`;
    case 'close_duplicate':
      return `Duplicate of ticket ${valueText((value as { ticket_id?: number } | null)?.ticket_id)}`;
    case 'post_internal_note':
    case 'send_reply':
      // A drafted reply: its text, not the field that holds it.
      return `${actionLabel(prediction.action_type)}: ${valueText((value as { content?: unknown } | null)?.content)}`;
    default:
      return `${actionLabel(prediction.action_type)}: ${valueText(value)}`;
  }
}

/** The ticket change that applies a prediction, or null when it is not a field change. */
function predictionChange(prediction: Prediction, ticket: Ticket): Record<string, unknown> | null {
  const value = prediction.value;
  switch (prediction.action_type) {
    case 'set_priority':
      return typeof value === 'string' ? { priority: value } : null;
    case 'assign':
      return typeof value === 'number' ? { assigned_to: value } : null;
    case 'add_tags':
      return Array.isArray(value) ? { tags: [...new Set([...ticket.tags, ...value.map(String)])] } : null;
    default:
      return null;
  }
}

function duplicateTarget(prediction: Prediction): number | null {
  const target = (prediction.value as { ticket_id?: unknown } | null)?.ticket_id;
  return prediction.action_type === 'close_duplicate' && typeof target === 'number' ? target : null;
}

async function loadTicket(id: number, projectId: number): Promise<Ticket> {
  return (
    await call(api.GET('/tickets/{id}', { params: { path: { id }, query: { project_id: projectId } } }))
  ).ticket;
}

/** PUT the change under `version`; on 409 shows both sides and re-applies on the newest version. */
async function saveChange(
  ticket: Ticket,
  projectId: number,
  change: Record<string, unknown>,
): Promise<boolean> {
  let version = ticket.version;
  for (;;) {
    try {
      await call(
        api.PUT('/tickets/{id}', {
          params: { path: { id: ticket.id }, query: { project_id: projectId } },
          body: { ...change, version },
        }),
      );
      return true;
    } catch (error) {
      if (!isConflict(error)) throw error;
      const current = await loadTicket(ticket.id, projectId);
      const choice = await askConflict({
        title: `${current.ticket_number} changed`,
        rows: Object.entries(change).map(([field, mine]) => ({
          label: field.replace(/_/g, ' '),
          mine: valueText(mine),
          theirs: valueText((current as unknown as Record<string, unknown>)[field]),
        })),
      });
      if (choice === 'discard') return false;
      version = current.version;
    }
  }
}

function Predictions({ ticket, projectId, onChanged }: TicketPaneProps) {
  const [predictions, setPredictions] = useState<Prediction[] | null>(null);
  const [users, setUsers] = useState<Map<number, User>>(new Map());
  const [applying, setApplying] = useState<number | null>(null);

  function reload() {
    call(api.GET('/ai/predictions', { params: { query: { project_id: projectId, ticket_id: ticket.id } } }))
      .then((answer) => setPredictions(answer.predictions))
      .catch(showError);
  }
  // Whether a prediction is held back depends on the ticket as it is now: a change moves the version.
  useEffect(reload, [ticket.id, ticket.version, projectId]);
  useEffect(() => {
    call(api.GET('/users'))
      .then((answer) => setUsers(new Map(answer.users.map((user) => [user.id, user]))))
      .catch(showError);
  }, []);

  async function apply(prediction: Prediction) {
    setApplying(prediction.id);
    try {
      const change = predictionChange(prediction, ticket);
      const target = duplicateTarget(prediction);
      if (change) {
        if (!(await saveChange(ticket, projectId, change))) return;
      } else if (target !== null) {
        await call(
          api.POST('/tickets/{id}/merge', {
            params: { path: { id: ticket.id }, query: { project_id: projectId } },
            body: { target_id: target },
          }),
        );
      } else return;
      await call(
        api.POST('/ai/predictions/{id}/accept', {
          params: { path: { id: prediction.id }, query: { project_id: projectId } },
        }),
      );
      toast(`Applied: ${predictionText(prediction, users)}.`);
      reload();
      onChanged();
    } catch (error) {
      showError(error);
    } finally {
      setApplying(null);
    }
  }

  if (!predictions) return <Loading what="predictions" />;
  return (
    <section class="ai-section" aria-labelledby={`predictions-${ticket.id}`}>
      <h3 id={`predictions-${ticket.id}`}>Suggested fields</h3>
      {predictions.length === 0 ? (
        <p class="muted">No predictions for this ticket.</p>
      ) : (
        <ul class="ai-predictions">
          {predictions.map((prediction) => {
            const applicable =
              prediction.outcome === null &&
              prediction.held_back === null &&
              (predictionChange(prediction, ticket) !== null || duplicateTarget(prediction) !== null);
            const text = predictionText(prediction, users);
            return (
              <li key={prediction.id} class="ai-prediction" data-prediction-id={prediction.id}>
                <div>
                  <strong>{text}</strong>{' '}
                  <span class="muted">
                    {confidenceText(prediction.confidence, prediction.confidence_label)}
                  </span>
                </div>
                {prediction.rationale && <p class="muted">{prediction.rationale}</p>}
                {prediction.outcome ? (
                  <p class="ai-outcome">{prediction.outcome.replace(/_/g, ' ')}</p>
                ) : prediction.held_back !== null ? (
                  <p class="muted" data-held-back={prediction.held_back}>
                    {heldBackText(prediction.held_back)}
                  </p>
                ) : (
                  applicable &&
                  can('tickets.write') && (
                    <Button
                      busy={applying === prediction.id}
                      aria-label={`Apply: ${text}`}
                      onClick={() => void apply(prediction)}
                    >
                      Apply
                    </Button>
                  )
                )}
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}

function TicketActions({ ticket, projectId, onChanged }: TicketPaneProps) {
  const [actions, setActions] = useState<AutonomousAction[] | null>(null);
  const [review, setReview] = useState<ReviewRequest | null>(null);

  function reload() {
    call(
      api.GET('/ai/autonomous-actions', {
        params: { query: { project_id: projectId, ticket_id: ticket.id, per_page: 20 } },
      }),
    )
      .then((answer) => setActions(answer.actions))
      .catch(showError);
  }
  // The version moves when the assistant (or anyone) changes the ticket: its actions may have changed.
  useEffect(reload, [ticket.id, ticket.version, projectId]);

  if (!actions) return <Loading what="the assistant's actions" />;
  return (
    <section class="ai-section" aria-labelledby={`actions-${ticket.id}`}>
      <h3 id={`actions-${ticket.id}`}>What the assistant did</h3>
      {actions.length === 0 ? (
        <p class="muted">The assistant has not acted on this ticket.</p>
      ) : (
        actions.map((action) => (
          <ActionCard key={action.id} action={action} showTicket={false}>
            {can('ai.review') && action.status === 'pending_review' && (
              <Button onClick={() => setReview({ kind: 'acknowledge', action })}>Acknowledge</Button>
            )}
            {can('ai.review') && (action.status === 'pending_review' || action.status === 'acknowledged') && (
              <Button kind="danger" onClick={() => setReview({ kind: 'revert', action })}>
                Revert
              </Button>
            )}
          </ActionCard>
        ))
      )}
      <ReviewDialog
        request={review}
        onClose={() => setReview(null)}
        onDone={() => {
          setReview(null);
          reload();
          onChanged();
        }}
      />
    </section>
  );
}

export function AssistantPanel({ ticket, projectId, onInsertReply, onChanged }: AssistantPanelProps) {
  const [availability, setAvailability] = useState<Availability | null>(null);
  function refreshAvailability() {
    loadAvailability(projectId, ticket.id).then(setAvailability).catch(showError);
  }
  useEffect(refreshAvailability, [ticket.id, projectId]);

  if (!can('ai.suggest')) return null;
  return (
    <aside class="ai-panel" aria-label="Assistant">
      <h2>Assistant</h2>
      <AvailabilityLine availability={availability} />
      <SuggestReply
        ticket={ticket}
        projectId={projectId}
        availability={availability}
        onInsertReply={onInsertReply}
        onSuggested={refreshAvailability}
      />
      <Predictions ticket={ticket} projectId={projectId} onChanged={onChanged} />
      <TicketActions ticket={ticket} projectId={projectId} onChanged={onChanged} />
    </aside>
  );
}

export default AssistantPanel;

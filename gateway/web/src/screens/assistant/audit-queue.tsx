/**
 * The audit queue (team leads and admins): the assistant's actions waiting for review in the current
 * project, oldest first, with the counts by review state; filters by status, action type and
 * confidence (kept in the URL), pages; Acknowledge (with a note) and Revert (with a reason; a 409
 * names the changed fields, who and when, and admins may force it).
 */
import { useEffect, useId, useState } from 'preact/hooks';
import { api, call, fieldErrorsOf, showError } from '../../api/client';
import type { components, operations } from '../../generated/api';
import { currentProject } from '../../projects';
import { setQuery } from '../../router';
import { can } from '../../session';
import { Button } from '../../ui/button';
import { EmptyState, Loading } from '../../ui/empty-state';
import { ActionCard } from './action-card';
import { ACTION_TYPES, actionLabel, ACTION_STATUSES, statusLabel, type AutonomousAction } from './format';
import { Pager } from './pager';
import { ReviewDialog, type ReviewRequest } from './review-dialog';
import type { ScreenProps } from '../screen';
import './audit-queue.css';
import { Options, optionsOf } from '../../ui/field';

type QueueQuery = NonNullable<operations['listAuditQueue']['parameters']['query']>;
type Pagination = components['schemas']['Pagination'];
interface Queue {
  actions: AutonomousAction[];
  pagination: Pagination;
  counts: { pending_review: number; acknowledged: number; reverted: number };
}

const SORTS: { value: NonNullable<QueueQuery['sort']>; label: string }[] = [
  { value: 'created_at', label: 'Oldest first' },
  { value: '-created_at', label: 'Newest first' },
  { value: 'confidence', label: 'Least confident first' },
];
const PER_PAGE = 20;

function ConfidenceInput({
  label,
  name,
  value,
  errors,
}: {
  label: string;
  name: string;
  value: string;
  errors: string[] | undefined;
}) {
  const id = useId();
  return (
    <label for={id}>
      {label}
      <input
        id={id}
        type="number"
        min={0}
        max={1}
        step={0.05}
        inputMode="decimal"
        value={value}
        aria-invalid={errors?.length ? 'true' : undefined}
        aria-describedby={errors?.length ? `${id}-errors` : undefined}
        onChange={(event) => setQuery({ [name]: event.currentTarget.value, page: null })}
      />
      {errors?.length ? (
        <span class="field-errors" id={`${id}-errors`}>
          {errors.join('; ')}
        </span>
      ) : null}
    </label>
  );
}

export default function AuditQueueScreen({ query }: ScreenProps) {
  const project = currentProject.value;
  const status = query.get('status') ?? 'pending_review';
  const type = query.get('type') ?? '';
  const minConfidence = query.get('min_confidence') ?? '';
  const maxConfidence = query.get('max_confidence') ?? '';
  const sort = (query.get('sort') ?? 'created_at') as NonNullable<QueueQuery['sort']>;
  const page = Number(query.get('page') ?? '1') || 1;
  const [queue, setQueue] = useState<Queue | null>(null);
  const [filterErrors, setFilterErrors] = useState<Record<string, string[]>>({});
  const [review, setReview] = useState<ReviewRequest | null>(null);
  const [reloads, setReloads] = useState(0);

  useEffect(() => {
    if (!project) return;
    let current = true;
    const filters: QueueQuery = {
      project_id: project.id,
      status: status as QueueQuery['status'],
      sort,
      page,
      per_page: PER_PAGE,
      ...(type ? { action_type: type as QueueQuery['action_type'] } : {}),
      ...(minConfidence ? { min_confidence: minConfidence } : {}),
      ...(maxConfidence ? { max_confidence: maxConfidence } : {}),
    };
    call(api.GET('/ai/audit-queue', { params: { query: filters } }))
      .then((answer) => {
        if (!current) return;
        setQueue(answer);
        setFilterErrors({});
      })
      .catch((error: unknown) => {
        const errors = fieldErrorsOf(error);
        if (errors && current) setFilterErrors(errors);
        else showError(error);
      });
    return () => {
      current = false;
    };
  }, [project?.id, status, type, minConfidence, maxConfidence, sort, page, reloads]);

  if (!project) return <EmptyState title="No project yet: an administrator creates one." />;
  const counts = queue?.counts;
  return (
    <section class="screen audit-screen">
      <div class="screen-head">
        <h1>
          Audit queue <span class="muted">{project.name}</span>
        </h1>
      </div>
      {counts && (
        <ul class="audit-counts" aria-label="Actions by review state">
          {(['pending_review', 'acknowledged', 'reverted'] as const).map((state) => (
            <li key={state}>
              <a
                href={`/audit-queue?project=${project.slug}&status=${state}`}
                aria-current={status === state ? 'true' : undefined}
              >
                <span class="audit-count" data-count={state}>
                  {counts[state]}
                </span>{' '}
                {statusLabel(state).toLowerCase()}
              </a>
            </li>
          ))}
        </ul>
      )}
      <form class="filters audit-filters" aria-label="Filters" onSubmit={(event) => event.preventDefault()}>
        <label>
          Status
          <select
            value={status}
            onChange={(event) => setQuery({ status: event.currentTarget.value, page: null })}
          >
            <Options options={optionsOf(ACTION_STATUSES, statusLabel)} />
            <option value="all">Any</option>
          </select>
        </label>
        <label>
          Action
          <select
            value={type}
            onChange={(event) => setQuery({ type: event.currentTarget.value, page: null })}
          >
            <option value="">Any</option>
            <Options options={optionsOf(ACTION_TYPES, actionLabel)} />
          </select>
        </label>
        <ConfidenceInput
          label="Confidence from"
          name="min_confidence"
          value={minConfidence}
          errors={filterErrors.min_confidence}
        />
        <ConfidenceInput
          label="Confidence to"
          name="max_confidence"
          value={maxConfidence}
          errors={filterErrors.max_confidence}
        />
        <label>
          Order
          <select
            value={sort}
            onChange={(event) => setQuery({ sort: event.currentTarget.value, page: null })}
          >
            <Options options={SORTS} />
          </select>
        </label>
      </form>
      {!queue ? (
        <Loading what="the audit queue" />
      ) : queue.actions.length === 0 ? (
        <EmptyState title="Nothing to review here." />
      ) : (
        <div class="audit-list" data-queue-ready="true">
          {queue.actions.map((action) => (
            <ActionCard key={action.id} action={action}>
              {can('ai.review') && action.status === 'pending_review' && (
                <Button onClick={() => setReview({ kind: 'acknowledge', action })}>Acknowledge</Button>
              )}
              {can('ai.review') &&
                (action.status === 'pending_review' || action.status === 'acknowledged') && (
                  <Button kind="danger" onClick={() => setReview({ kind: 'revert', action })}>
                    Revert
                  </Button>
                )}
            </ActionCard>
          ))}
        </div>
      )}
      {queue && (
        <Pager
          pagination={queue.pagination}
          label="Audit queue pages"
          onPage={(next) => setQuery({ page: String(next) })}
        />
      )}
      <ReviewDialog
        request={review}
        onClose={() => setReview(null)}
        onDone={() => {
          setReview(null);
          setReloads((count) => count + 1);
        }}
      />
    </section>
  );
}

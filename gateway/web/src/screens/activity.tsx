/**
 * The activity feed: who changed what, newest first (GET /api/activity), for the current project,
 * filtered by type, actor and field and by date (kept in the URL), in pages that hold still while new
 * entries arrive (`until_id` = the first page's snapshot). A "N new" banner counts what arrived since,
 * from the one poll all open feeds share (assistant/activity-poll.ts); pressing it shows them, marked new.
 * The assistant's autonomy (guardrails, kill switch, acknowledgements, paused types) is listed too.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, call, fieldErrorsOf, showError } from '../api/client';
import type { components, operations } from '../generated/api';
import { currentProject } from '../projects';
import { setQuery } from '../router';
import { EmptyState, Loading } from '../ui/empty-state';
import { matchesFilters, type FeedFilters } from './assistant/activity-match';
import { pollRole, watchNewActivity, type Activity } from './assistant/activity-poll';
import { valueText, when } from './assistant/format';
import { Pager } from './assistant/pager';
import type { ScreenProps } from './screen';
import './activity.css';
import { Options } from '../ui/field';

type User = components['schemas']['User'];
type Pagination = components['schemas']['Pagination'];
type FeedQuery = NonNullable<operations['listActivity']['parameters']['query']>;
type ActorKind = NonNullable<FeedQuery['actor_kind']>;

interface Page {
  activities: Activity[];
  pagination: Pagination;
  snapshotId: number;
  cursor: string;
}

const PER_PAGE = 25;
const TYPES: { value: string; label: string }[] = [
  { value: '', label: 'Everything' },
  { value: 'ticket.*', label: 'Tickets' },
  { value: 'ticket.created', label: 'Tickets created' },
  { value: 'ticket.updated', label: 'Tickets changed' },
  { value: 'ticket.deleted,ticket.restored', label: 'Tickets deleted or restored' },
  { value: 'ticket.merged', label: 'Tickets merged' },
  { value: 'comment.*', label: 'Comments' },
  { value: 'attachment.*', label: 'Files' },
  { value: 'ai.*', label: "The assistant's autonomy" },
];
const ACTOR_KINDS: { value: ActorKind; label: string }[] = [
  { value: 'user', label: 'People' },
  { value: 'api_key', label: 'Integrations' },
  { value: 'ai', label: 'The assistant' },
  { value: 'system', label: 'System' },
];

const numberOrUndefined = (text: string | null) => (text && /^\d+$/.test(text) ? Number(text) : undefined);

function Entry({ entry, fresh }: { entry: Activity; fresh: boolean }) {
  const changes = Object.entries(entry.changes);
  const subject = entry.subject;
  return (
    <li
      class={`activity-entry activity-${entry.type.split('.')[0]}${fresh ? ' activity-fresh' : ''}`}
      data-activity-id={entry.id}
    >
      <div class="activity-line">
        {entry.actor.kind === 'ai' && <span class="activity-badge">Assistant</span>}
        {fresh && <span class="activity-badge activity-badge-new">New</span>}
        <span class="activity-summary">{entry.summary}</span>
      </div>
      <div class="activity-meta muted">
        <time dateTime={entry.occurred_at}>{when(entry.occurred_at)}</time>
        {subject.type === 'ticket' && subject.ticket_number && (
          <>
            {' · '}
            <a href={`/tickets/${subject.id}`}>
              {subject.ticket_number}
              {subject.title ? ` ${subject.title}` : ''}
            </a>
          </>
        )}
        {entry.actor.via?.type === 'ai_action' && ' · by an assistant action'}
        {entry.actor.via?.type === 'ai_revert' && " · reverting the assistant's action"}
      </div>
      {entry.comment?.excerpt && (
        <blockquote class="activity-excerpt">
          {entry.comment.is_internal && <span class="activity-badge">Internal</span>} {entry.comment.excerpt}
        </blockquote>
      )}
      {changes.length > 0 && entry.type !== 'ticket.created' && (
        <ul class="activity-changes">
          {changes.map(([field, change]) => (
            <li key={field}>
              {field}: {valueText(change.from)} → {valueText(change.to)}
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

export default function ActivityScreen({ query }: ScreenProps) {
  const project = currentProject.value;
  const type = query.get('type') ?? '';
  const actorKind = query.get('actor_kind') ?? '';
  const actorId = query.get('actor_id') ?? '';
  const ticketId = query.get('ticket_id') ?? '';
  const field = query.get('field') ?? '';
  const since = query.get('since') ?? '';
  const until = query.get('until') ?? '';
  const pageNumber = Number(query.get('page') ?? '1') || 1;
  const [page, setPage] = useState<Page | null>(null);
  const [users, setUsers] = useState<User[]>([]);
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [arrived, setArrived] = useState<Activity[]>([]);
  /** Entries newer than this were announced by the banner and are marked new once shown. */
  const [freshAfter, setFreshAfter] = useState<number | null>(null);
  const [reloads, setReloads] = useState(0);
  const snapshotRef = useRef<number | null>(null);

  const filterKey = [project?.id, type, actorKind, actorId, ticketId, field, since, until].join('|');
  const filters: FeedFilters = {
    projectId: project?.id ?? null,
    ...(type ? { type } : {}),
    ...(actorKind ? { actorKind } : {}),
    ...(numberOrUndefined(actorId) !== undefined ? { actorId: numberOrUndefined(actorId)! } : {}),
    ...(numberOrUndefined(ticketId) !== undefined ? { ticketId: numberOrUndefined(ticketId)! } : {}),
    ...(field ? { field } : {}),
    ...(since ? { since } : {}),
    ...(until ? { until } : {}),
  };
  const filtersRef = useRef(filters);
  filtersRef.current = filters;

  useEffect(() => {
    call(api.GET('/users'))
      .then((answer) => setUsers(answer.users))
      .catch(showError);
  }, []);

  // A new filter starts a new snapshot.
  useEffect(() => {
    snapshotRef.current = null;
  }, [filterKey]);

  useEffect(() => {
    if (!project) return;
    let current = true;
    const snapshot = pageNumber > 1 ? snapshotRef.current : null;
    const feedQuery: FeedQuery = {
      project_id: project.id,
      page: pageNumber,
      per_page: PER_PAGE,
      ...(snapshot !== null ? { until_id: snapshot } : {}),
      ...(type ? { type } : {}),
      ...(actorKind ? { actor_kind: actorKind as ActorKind } : {}),
      ...(numberOrUndefined(actorId) !== undefined ? { actor_id: numberOrUndefined(actorId) } : {}),
      ...(numberOrUndefined(ticketId) !== undefined ? { ticket_id: numberOrUndefined(ticketId) } : {}),
      ...(field ? { field } : {}),
      ...(since ? { since } : {}),
      ...(until ? { until } : {}),
    };
    call(api.GET('/activity', { params: { query: feedQuery } }))
      .then((answer) => {
        if (!current) return;
        setErrors({});
        if (snapshot === null) {
          snapshotRef.current = answer.snapshot_id;
          setArrived([]);
        }
        setPage({
          activities: answer.activities,
          pagination: answer.pagination,
          snapshotId: snapshotRef.current ?? answer.snapshot_id,
          cursor: answer.cursor,
        });
      })
      .catch((error: unknown) => {
        const fieldErrors = fieldErrorsOf(error);
        if (fieldErrors && current) setErrors(fieldErrors);
        else showError(error);
      });
    return () => {
      current = false;
    };
  }, [filterKey, pageNumber, reloads]);

  // New entries after the snapshot, from the shared poll, counted for the banner.
  const cursor = page?.cursor;
  useEffect(() => {
    if (!cursor) return;
    return watchNewActivity(cursor, (activities) => {
      const snapshot = snapshotRef.current ?? Infinity;
      const wanted = activities.filter(
        (entry) => entry.id > snapshot && matchesFilters(entry, filtersRef.current),
      );
      if (wanted.length === 0) return;
      setArrived((shown) => {
        const known = new Set(shown.map((entry) => entry.id));
        return [...shown, ...wanted.filter((entry) => !known.has(entry.id))];
      });
    });
  }, [cursor]);

  function showNew() {
    setFreshAfter(snapshotRef.current);
    snapshotRef.current = null;
    setArrived([]);
    if (pageNumber !== 1) setQuery({ page: null });
    else setReloads((count) => count + 1);
  }

  function filterChanged(name: string, value: string) {
    setFreshAfter(null);
    setQuery({ [name]: value, page: null });
  }

  if (!project) return <EmptyState title="No project yet: an administrator creates one." />;
  const count = arrived.length;
  return (
    <section class="screen activity-screen" data-poll-role={pollRole.value}>
      <div class="screen-head">
        <h1>
          Activity <span class="muted">{project.name}</span>
        </h1>
      </div>
      <form
        class="filters activity-filters"
        aria-label="Filters"
        onSubmit={(event) => event.preventDefault()}
      >
        <label>
          What
          <select value={type} onChange={(event) => filterChanged('type', event.currentTarget.value)}>
            <Options options={TYPES} />
          </select>
        </label>
        <label>
          Made by
          <select
            value={actorKind}
            onChange={(event) => filterChanged('actor_kind', event.currentTarget.value)}
          >
            <option value="">Anyone</option>
            <Options options={ACTOR_KINDS} />
          </select>
        </label>
        <label>
          Person
          <select value={actorId} onChange={(event) => filterChanged('actor_id', event.currentTarget.value)}>
            <option value="">Anyone</option>
            <Options options={users.map((user) => ({ value: String(user.id), label: user.name }))} />
          </select>
        </label>
        <label>
          Field changed
          <input
            type="text"
            name="field"
            placeholder="status"
            value={field}
            onChange={(event) => filterChanged('field', event.currentTarget.value.trim())}
            aria-invalid={errors.field ? 'true' : undefined}
          />
          {errors.field && <span class="field-errors">{errors.field.join('; ')}</span>}
        </label>
        <label>
          From
          <input
            type="date"
            name="since"
            value={since}
            onChange={(event) => filterChanged('since', event.currentTarget.value)}
            aria-invalid={errors.since ? 'true' : undefined}
          />
          {errors.since && <span class="field-errors">{errors.since.join('; ')}</span>}
        </label>
        <label>
          Before
          <input
            type="date"
            name="until"
            value={until}
            onChange={(event) => filterChanged('until', event.currentTarget.value)}
            aria-invalid={errors.until ? 'true' : undefined}
          />
          {errors.until && <span class="field-errors">{errors.until.join('; ')}</span>}
        </label>
        {ticketId && (
          <p class="activity-ticket-filter">
            One ticket only ·{' '}
            <button type="button" class="button button-quiet" onClick={() => filterChanged('ticket_id', '')}>
              Show all tickets
            </button>
          </p>
        )}
      </form>
      <div class="activity-banner-slot" aria-live="polite">
        {count > 0 && (
          <button type="button" class="activity-banner" onClick={showNew}>
            {count === 1 ? '1 new entry' : `${count} new entries`}: show
          </button>
        )}
      </div>
      {!page ? (
        <Loading what="the activity" />
      ) : page.activities.length === 0 ? (
        <EmptyState title="Nothing happened here yet." />
      ) : (
        <ol class="activity-list" data-activity-ready="true">
          {page.activities.map((entry) => (
            <Entry key={entry.id} entry={entry} fresh={freshAfter !== null && entry.id > freshAfter} />
          ))}
        </ol>
      )}
      {page && (
        <Pager
          pagination={page.pagination}
          label="Activity pages"
          onPage={(next) => setQuery({ page: String(next) })}
        />
      )}
    </section>
  );
}

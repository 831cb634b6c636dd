/**
 * The ticket's history (GET /tickets/{id}/history): every change, comment and file, oldest first,
 * each with who did it, when, and for updates what changed from what to what.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, call, showError } from '../../api/client';
import type { Project } from '../../projects';
import { Button } from '../../ui/button';
import { formatDateTime, type Activity, type Pagination } from './model';

const PER_PAGE = 50;
const CATCH_UP_ATTEMPTS = 8;
const CATCH_UP_DELAY_MS = 750;

function shownValue(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (Array.isArray(value)) return value.length > 0 ? value.map(String).join(', ') : '—';
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return String(value);
  return JSON.stringify(value);
}

function Entry({ activity }: { activity: Activity }) {
  const changes = Object.entries(activity.changes);
  return (
    <li class="ticket-history-entry" data-type={activity.type}>
      <p class="ticket-history-summary">
        {activity.summary}
        <time class="muted" dateTime={activity.occurred_at}>
          {' '}
          · {formatDateTime(activity.occurred_at)}
        </time>
      </p>
      {changes.length > 0 && (
        <ul class="ticket-history-changes">
          {changes.map(([field, change]) => (
            <li key={field}>
              <span class="ticket-history-field">{field.replaceAll('_', ' ')}</span>:{' '}
              {shownValue(change.from)} → {shownValue(change.to)}
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

export function History({
  ticketId,
  project,
  revision,
}: {
  ticketId: number;
  project: Project;
  revision: number;
}) {
  const [page, setPage] = useState(1);
  const [answer, setAnswer] = useState<{ activities: Activity[]; pagination: Pagination } | null>(null);

  const totalRef = useRef<number | null>(null);
  const revisionRef = useRef(revision);

  useEffect(() => {
    let current = true;
    let timer: number | undefined;
    // After a change made on this screen its entry appears once the activity service has folded
    // the change's event (asynchronously): ask again, a few times, until the total grows.
    const afterChange = revision !== revisionRef.current;
    revisionRef.current = revision;
    const totalBefore = afterChange ? totalRef.current : null;
    let attempts = 1;
    function load() {
      call(
        api.GET('/tickets/{id}/history', {
          params: { path: { id: ticketId }, query: { project_id: project.id, page, per_page: PER_PAGE } },
        }),
      )
        .then((loaded) => {
          if (!current) return;
          setAnswer(loaded);
          totalRef.current = loaded.pagination.total;
          if (
            totalBefore !== null &&
            loaded.pagination.total <= totalBefore &&
            attempts < CATCH_UP_ATTEMPTS
          ) {
            attempts += 1;
            timer = window.setTimeout(load, CATCH_UP_DELAY_MS);
          }
        })
        .catch(showError);
    }
    load();
    return () => {
      current = false;
      window.clearTimeout(timer);
    };
  }, [ticketId, project.id, page, revision]);

  return (
    <section class="ticket-section" aria-labelledby="ticket-history-heading">
      <h2 id="ticket-history-heading">History</h2>
      {!answer ? (
        <p class="muted">Loading the history…</p>
      ) : answer.activities.length === 0 ? (
        <p class="muted">Nothing recorded yet.</p>
      ) : (
        <ol class="ticket-history-list" data-history-ready="true">
          {answer.activities.map((activity) => (
            <Entry key={activity.id} activity={activity} />
          ))}
        </ol>
      )}
      {answer && answer.pagination.total_pages > 1 && (
        <nav class="tickets-pager" aria-label="History pages">
          <Button disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Earlier
          </Button>
          <span>
            Page {page} of {answer.pagination.total_pages}
          </span>
          <Button disabled={page >= answer.pagination.total_pages} onClick={() => setPage(page + 1)}>
            Later
          </Button>
        </nav>
      )}
    </section>
  );
}

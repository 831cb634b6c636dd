/**
 * The ticket list: filters (status from the project's workflow, priority, assignee, tag), sort and
 * pagination (page and per_page, with totals), and search (`q`: every match, no pages, as the spec
 * says), all kept in the URL; rows open the ticket. Agents and above get the "New ticket" form.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useId, useState } from 'preact/hooks';
import { api, call, showError } from '../../api/client';
import { currentProject } from '../../projects';
import { navigate, setQuery } from '../../router';
import { can } from '../../session';
import { Button } from '../../ui/button';
import { EmptyState, Loading } from '../../ui/empty-state';
import { toast } from '../../ui/toast';
import {
  assignableUsers,
  capitalised,
  formatDateTime,
  isPriority,
  PRIORITIES,
  ticketPath,
  userName,
  type Pagination,
  type Ticket,
  type TicketType,
  type User,
} from './model';
import { NewTicketForm } from './new-ticket-form';
import type { ScreenProps } from '../screen';
import './ticket.css';
import { Options, optionsOf } from '../../ui/field';
import { ColumnHeads } from '../../ui/table';

export const SORTS = [
  { value: '-created_at', label: 'Newest first' },
  { value: '+created_at', label: 'Oldest first' },
  { value: '-updated_at', label: 'Recently updated' },
  { value: '-priority', label: 'Priority, highest first' },
  { value: '+priority', label: 'Priority, lowest first' },
  { value: '+status', label: 'Status, workflow order' },
  { value: '+title', label: 'Title, A to Z' },
  { value: '-title', label: 'Title, Z to A' },
  { value: '+id', label: 'Number, ascending' },
] as const;
const PAGE_SIZES = ['25', '50', '100'] as const;
const DEFAULT_PAGE_SIZE = '50';

interface ListAnswer {
  tickets: Ticket[];
  pagination?: Pagination | undefined;
}

function positiveInteger(text: string | null): number | undefined {
  const value = Number(text);
  return Number.isInteger(value) && value > 0 ? value : undefined;
}

/** One control of the filter bar, labelled by `for` (a wrapping label would name it by its options too). */
function Filter({ label, children }: { label: string; children: (id: string) => ComponentChildren }) {
  const id = useId();
  return (
    <div class="tickets-filter">
      <label for={id}>{label}</label>
      {children(id)}
    </div>
  );
}

function Pager({ pagination }: { pagination: Pagination }) {
  const { page, total_pages: pages, total } = pagination;
  return (
    <nav class="tickets-pager" aria-label="Pages">
      <Button disabled={page <= 1} onClick={() => setQuery({ page: String(page - 1) })}>
        Previous page
      </Button>
      <span aria-live="polite">
        Page {Math.min(page, Math.max(pages, 1))} of {Math.max(pages, 1)} ·{' '}
        {total === 1 ? '1 ticket' : `${total} tickets`}
      </span>
      <Button disabled={page >= pages} onClick={() => setQuery({ page: String(page + 1) })}>
        Next page
      </Button>
    </nav>
  );
}

function TicketRows({
  tickets,
  users,
  types,
}: {
  tickets: Ticket[];
  users: Map<number, User>;
  types: Map<number, TicketType>;
}) {
  const project = currentProject.value!;
  return (
    <table class="tickets-table">
      <caption class="visually-hidden">Tickets of {project.name}</caption>
      <ColumnHeads
        columns={['Number', 'Title', 'Status', 'Priority', 'Assignee', 'Type', 'Tags', 'Updated']}
      />
      <tbody>
        {tickets.map((ticket) => (
          <tr key={ticket.id} data-id={ticket.id}>
            <td data-label="Number" class="tickets-number">
              {ticket.ticket_number}
            </td>
            <td data-label="Title" class="tickets-title">
              <a href={ticketPath(ticket.id, project)}>{ticket.title}</a>
            </td>
            <td data-label="Status">{ticket.status_label}</td>
            <td data-label="Priority">
              <span class={`priority priority-${ticket.priority}`}>{ticket.priority_label}</span>
            </td>
            <td data-label="Assignee">{userName(users, ticket.assigned_to)}</td>
            <td data-label="Type">{types.get(ticket.ticket_type_id)?.name ?? '—'}</td>
            <td data-label="Tags">{ticket.tags.length > 0 ? ticket.tags.join(', ') : '—'}</td>
            <td data-label="Updated">
              <time dateTime={ticket.updated_at}>{formatDateTime(ticket.updated_at)}</time>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export default function TicketsScreen({ query }: ScreenProps) {
  const project = currentProject.value;
  const status = query.get('status') ?? '';
  const priority = query.get('priority') ?? '';
  const assignee = query.get('assignee') ?? '';
  const tag = query.get('tag') ?? '';
  const q = query.get('q') ?? '';
  const sort = query.get('sort') ?? SORTS[0].value;
  const page = query.get('page') ?? '1';
  const perPage = query.get('per_page') ?? DEFAULT_PAGE_SIZE;
  const [answer, setAnswer] = useState<ListAnswer | null>(null);
  const [users, setUsers] = useState<User[]>([]);
  const [types, setTypes] = useState<TicketType[] | null>(null);
  const [creating, setCreating] = useState(false);
  const [searchText, setSearchText] = useState(q);
  const [tagText, setTagText] = useState(tag);
  const canCreate = can('tickets.write');

  useEffect(() => setSearchText(q), [q]);
  useEffect(() => setTagText(tag), [tag]);

  useEffect(() => {
    call(api.GET('/users'))
      .then((loaded) => setUsers(loaded.users))
      .catch(showError);
  }, []);

  useEffect(() => {
    if (!project) return;
    call(api.GET('/ticket-types', { params: { query: { project_id: project.id } } }))
      .then((loaded) => setTypes(loaded.ticket_types))
      .catch(showError);
  }, [project?.id]);

  useEffect(() => {
    if (!project) return;
    let current = true;
    setAnswer(null);
    call(
      api.GET('/tickets', {
        params: {
          query: {
            project_id: project.id,
            sort,
            ...(status ? { status } : {}),
            ...(isPriority(priority) ? { priority } : {}),
            ...(assignee === 'none' || positiveInteger(assignee) ? { assignee } : {}),
            ...(tag ? { tag } : {}),
            // With q the server answers every match and ignores pages (spec: "List rules").
            ...(q ? { q } : { page: positiveInteger(page) ?? 1, per_page: positiveInteger(perPage) ?? 50 }),
          },
        },
      }),
    )
      .then((loaded) => {
        if (current) setAnswer(loaded);
      })
      .catch((error: unknown) => {
        if (current) setAnswer({ tickets: [] });
        showError(error);
      });
    return () => {
      current = false;
    };
  }, [project?.id, status, priority, assignee, tag, q, sort, page, perPage]);

  if (!project) return <EmptyState title="No project yet: an administrator creates one." />;

  /** Changes filters and goes back to the first page. */
  const filter = (changes: Record<string, string | null>) => setQuery({ ...changes, page: null });
  const userById = new Map(users.map((user) => [user.id, user]));
  const typeById = new Map((types ?? []).map((type) => [type.id, type]));
  const filtered = Boolean(status || priority || assignee || tag || q);

  return (
    <section class="screen tickets-screen">
      <div class="screen-head">
        <h1>
          Tickets <span class="muted">{project.name}</span>
        </h1>
        {canCreate && !creating && (
          <Button kind="primary" onClick={() => setCreating(true)}>
            New ticket
          </Button>
        )}
      </div>
      {creating && !types && <Loading what="the ticket types" />}
      {creating && types && (
        <NewTicketForm
          project={project}
          types={types}
          users={users}
          onCancel={() => setCreating(false)}
          onCreated={(ticket) => {
            toast(`Created ${ticket.ticket_number}`);
            navigate(ticketPath(ticket.id, project));
          }}
        />
      )}
      <form
        class="filters tickets-filters"
        role="search"
        aria-label="Tickets"
        onSubmit={(event) => {
          event.preventDefault();
          filter({ q: searchText.trim(), tag: tagText.trim() });
        }}
      >
        <Filter label="Search">
          {(id) => (
            <input
              id={id}
              type="search"
              name="q"
              value={searchText}
              onInput={(event) => setSearchText(event.currentTarget.value)}
            />
          )}
        </Filter>
        <Filter label="Tag">
          {(id) => (
            <input
              id={id}
              type="text"
              name="tag"
              value={tagText}
              onInput={(event) => setTagText(event.currentTarget.value)}
            />
          )}
        </Filter>
        <Button type="submit">Search</Button>
        <Filter label="Status">
          {(id) => (
            <select
              id={id}
              value={status}
              onChange={(event) => filter({ status: event.currentTarget.value })}
            >
              <option value="">Any</option>
              <Options
                options={project.statuses.map((option) => ({ value: option.slug, label: option.label }))}
              />
            </select>
          )}
        </Filter>
        <Filter label="Priority">
          {(id) => (
            <select
              id={id}
              value={priority}
              onChange={(event) => filter({ priority: event.currentTarget.value })}
            >
              <option value="">Any</option>
              <Options options={optionsOf(PRIORITIES, capitalised)} />
            </select>
          )}
        </Filter>
        <Filter label="Assignee">
          {(id) => (
            <select
              id={id}
              value={assignee}
              onChange={(event) => filter({ assignee: event.currentTarget.value })}
            >
              <option value="">Anyone</option>
              <option value="none">Nobody (unassigned)</option>
              <Options
                options={assignableUsers(users).map((user) => ({ value: String(user.id), label: user.name }))}
              />
            </select>
          )}
        </Filter>
        <Filter label="Sort">
          {(id) => (
            <select id={id} value={sort} onChange={(event) => filter({ sort: event.currentTarget.value })}>
              <Options options={SORTS} />
            </select>
          )}
        </Filter>
        {!q && (
          <Filter label="Per page">
            {(id) => (
              <select
                id={id}
                value={perPage}
                onChange={(event) => filter({ per_page: event.currentTarget.value })}
              >
                <Options options={optionsOf(PAGE_SIZES)} />
              </select>
            )}
          </Filter>
        )}
        {filtered && (
          <Button
            kind="quiet"
            onClick={() => filter({ status: null, priority: null, assignee: null, tag: null, q: null })}
          >
            Clear filters
          </Button>
        )}
      </form>
      {!answer ? (
        <Loading what="tickets" />
      ) : (
        <div class="tickets-results" data-tickets-ready="true">
          {q && (
            <p class="muted" aria-live="polite">
              {answer.tickets.length === 1 ? '1 match' : `${answer.tickets.length} matches`} for “{q}”
            </p>
          )}
          {answer.tickets.length === 0 ? (
            <EmptyState title={filtered ? 'No ticket matches these filters.' : 'No tickets yet.'} />
          ) : (
            <TicketRows tickets={answer.tickets} users={userById} types={typeById} />
          )}
          {answer.pagination && <Pager pagination={answer.pagination} />}
        </div>
      )}
    </section>
  );
}

/**
 * The ticket view: title, description and every field edited inline under the ticket's `version`
 * (a 409 re-fetches the ticket and opens the conflict dialog with both values; "Apply mine on top"
 * retries on the fresh version), the status with its resolution, the custom fields of the ticket's
 * type, the requester and CCs (people.tsx), the comment thread and composer, attachments, the
 * history, and the assistant panel. A viewer sees it all without a write control (the server
 * refuses their writes anyway).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, call, isConflict, showError } from '../../api/client';
import { currentProject, type Project } from '../../projects';
import { can } from '../../session';
import { askConflict, type ConflictRow } from '../../ui/conflict-dialog';
import { EmptyState, Loading } from '../../ui/empty-state';
import { Field, SelectField, TextAreaField } from '../../ui/field';
import { AssistantPanel } from '../assistant/assistant-panel';
import { Attachments } from './attachments';
import { Comments, COMPOSER_ID } from './comments';
import {
  checkCustomField,
  CustomFieldInput,
  formatCustomValue,
  fromDraft,
  orderedFields,
  toDraft,
  type FieldDraft,
} from './custom-fields';
import { History } from './history';
import { People } from './people';
import { InlineField } from './inline-field';
import {
  assignableUsers,
  capitalised,
  formatDateTime,
  parseTags,
  PRIORITIES,
  userName,
  type Priority,
  type Ticket,
  type TicketType,
  type TicketUpdate,
  type User,
} from './model';
import { StatusControl } from './status-control';
import type { ScreenProps } from '../screen';
import './ticket.css';

const TITLE_MAX = 200;
const DESCRIPTION_MAX = 5000;

function fetchTicket(ticketId: number, project: Project): Promise<Ticket> {
  return call(
    api.GET('/tickets/{id}', { params: { path: { id: ticketId }, query: { project_id: project.id } } }),
  ).then((answer) => answer.ticket);
}

/** Yours and theirs for each field of `changes`, as the conflict dialog shows them. */
function conflictRows(
  changes: TicketUpdate,
  fresh: Ticket,
  type: TicketType | undefined,
  users: Map<number, User>,
): ConflictRow[] {
  const rows: ConflictRow[] = [];
  const text = (value: string | null | undefined) => (value ? value : '—');
  if (changes.title !== undefined) rows.push({ label: 'Title', mine: changes.title, theirs: fresh.title });
  if (changes.description !== undefined) {
    rows.push({ label: 'Description', mine: text(changes.description), theirs: text(fresh.description) });
  }
  if (changes.priority !== undefined) {
    rows.push({ label: 'Priority', mine: capitalised(changes.priority), theirs: fresh.priority_label });
  }
  if (changes.assigned_to !== undefined && changes.assigned_to !== null) {
    rows.push({
      label: 'Assignee',
      mine: userName(users, changes.assigned_to === 0 ? null : changes.assigned_to),
      theirs: userName(users, fresh.assigned_to),
    });
  }
  if (changes.tags !== undefined && changes.tags !== null) {
    rows.push({ label: 'Tags', mine: text(changes.tags.join(', ')), theirs: text(fresh.tags.join(', ')) });
  }
  if (changes.requester_id !== undefined || changes.requester !== undefined) {
    rows.push({
      label: 'Requester',
      mine: changes.requester?.email ?? (changes.requester_id ? `Customer ${changes.requester_id}` : '—'),
      theirs: fresh.requester_id === null ? '—' : `Customer ${fresh.requester_id}`,
    });
  }
  if (changes.cc !== undefined || changes.cc_emails !== undefined) {
    const ids = (cc: readonly number[]) => text(cc.map((id) => `Customer ${id}`).join(', '));
    rows.push({
      label: 'CC',
      mine: text(
        [...(changes.cc ?? []).map((id) => `Customer ${id}`), ...(changes.cc_emails ?? [])].join(', '),
      ),
      theirs: ids(fresh.cc),
    });
  }
  for (const [name, value] of Object.entries(changes.custom_fields ?? {})) {
    const field = type?.field_schema.find((candidate) => candidate.name === name);
    if (!field) continue;
    rows.push({
      label: field.label,
      mine: formatCustomValue(field, value),
      theirs: formatCustomValue(field, fresh.custom_fields[name]),
    });
  }
  return rows;
}

function checkTitle(title: string): string[] {
  if (title.trim() === '') return ['Title is required'];
  return [...title.trim()].length > TITLE_MAX ? [`Title must be at most ${TITLE_MAX} characters`] : [];
}

export default function TicketScreen({ params }: ScreenProps) {
  const project = currentProject.value;
  const ticketId = Number(params.id);
  const [ticket, setTicket] = useState<Ticket | null>(null);
  const [notFound, setNotFound] = useState(false);
  const [types, setTypes] = useState<TicketType[]>([]);
  const [users, setUsers] = useState<User[]>([]);
  /** Bumped after any change, so the history (and, for the assistant's changes, comments) reload. */
  const [historyRevision, setHistoryRevision] = useState(0);
  const [commentsRevision, setCommentsRevision] = useState(0);
  const [composerText, setComposerText] = useState('');
  const ticketRef = useRef<Ticket | null>(null);
  ticketRef.current = ticket;
  const canEdit = can('tickets.write');

  useEffect(() => {
    call(api.GET('/users'))
      .then((answer) => setUsers(answer.users))
      .catch(showError);
  }, []);

  useEffect(() => {
    if (!project) return;
    call(api.GET('/ticket-types', { params: { query: { project_id: project.id } } }))
      .then((answer) => setTypes(answer.ticket_types))
      .catch(showError);
  }, [project?.id]);

  useEffect(() => {
    if (!project) return;
    let current = true;
    setTicket(null);
    setNotFound(false);
    if (!Number.isInteger(ticketId) || ticketId < 1) {
      setNotFound(true);
      return;
    }
    fetchTicket(ticketId, project)
      .then((loaded) => {
        if (current) setTicket(loaded);
      })
      .catch((error: unknown) => {
        if (!current) return;
        if (error instanceof ApiError && error.status === 404) setNotFound(true);
        else showError(error);
      });
    return () => {
      current = false;
    };
  }, [project?.id, ticketId]);

  if (!project) return <EmptyState title="No project yet: an administrator creates one." />;
  if (notFound) {
    return (
      <section class="screen">
        <h1>Ticket not found</h1>
        <EmptyState title={`There is no ticket ${params.id} in ${project.name}.`}>
          <a href={`/tickets?project=${encodeURIComponent(project.slug)}`}>Back to the tickets</a>
        </EmptyState>
      </section>
    );
  }
  if (!ticket) return <Loading what="the ticket" />;

  const userById = new Map(users.map((user) => [user.id, user]));
  const type = types.find((candidate) => candidate.id === ticket.ticket_type_id);
  const fields = type ? orderedFields(type.field_schema) : [];

  function changed(saved: Ticket) {
    setTicket(saved);
    setHistoryRevision((value) => value + 1);
  }

  /**
   * Writes `changes` under the shown version. On 409 the fresh ticket is shown and the dialog asks;
   * "Apply mine on top" retries under the fresh version, "Keep theirs" leaves theirs.
   */
  async function update(changes: TicketUpdate): Promise<void> {
    let base = ticketRef.current!;
    for (;;) {
      try {
        const answer = await call(
          api.PUT('/tickets/{id}', {
            params: { path: { id: base.id }, query: { project_id: project!.id } },
            body: { ...changes, version: base.version },
          }),
        );
        changed(answer.ticket);
        return;
      } catch (error) {
        if (!isConflict(error)) throw error;
        const fresh = await fetchTicket(base.id, project!);
        changed(fresh);
        const changedBy = fresh.updated_by === null ? null : userName(userById, fresh.updated_by);
        const choice = await askConflict({
          title: `${fresh.ticket_number} was changed`,
          detail: `${changedBy ? `Changed by ${changedBy}` : 'Changed'} at ${formatDateTime(fresh.updated_at)}.`,
          rows: conflictRows(changes, fresh, type, userById),
        });
        if (choice !== 'reapply') return;
        base = fresh;
      }
    }
  }

  function insertReply(text: string) {
    setComposerText((current) => (current.trim() ? `${current.trimEnd()}\n\n${text}` : text));
    document.getElementById(COMPOSER_ID)?.focus();
  }

  const assignees = assignableUsers(users);
  return (
    <article class="screen ticket-screen" data-ticket-ready="true" data-version={ticket.version}>
      <p class="ticket-breadcrumb">
        <a href={`/tickets?project=${encodeURIComponent(project.slug)}`}>Tickets</a> / {ticket.ticket_number}
      </p>
      <InlineField<string>
        variant="heading"
        label="Title"
        canEdit={canEdit}
        shown={
          <>
            <span class="ticket-number">{ticket.ticket_number}</span> {ticket.title}
          </>
        }
        initial={() => ticket.title}
        validate={checkTitle}
        save={(title) => update({ title: title.trim() })}
        editor={(draft, setDraft, errors) => (
          <Field label="Title" name="title" value={draft} onValue={setDraft} errors={errors} />
        )}
      />
      <div class="ticket-layout">
        <div class="ticket-main">
          <section class="ticket-section" aria-labelledby="ticket-description-heading">
            <h2 id="ticket-description-heading" class="visually-hidden">
              Description
            </h2>
            <dl class="ticket-fields ticket-description">
              <InlineField<string>
                label="Description"
                canEdit={canEdit}
                shown={
                  ticket.description ? (
                    <span class="ticket-description-text">{ticket.description}</span>
                  ) : (
                    <span class="muted">No description</span>
                  )
                }
                initial={() => ticket.description ?? ''}
                validate={(draft) =>
                  [...draft].length > DESCRIPTION_MAX
                    ? [`Description must be at most ${DESCRIPTION_MAX} characters`]
                    : []
                }
                save={(description) => update({ description: description.trim() ? description : null })}
                editor={(draft, setDraft, errors) => (
                  <TextAreaField
                    label="Description"
                    value={draft}
                    onValue={setDraft}
                    errors={errors}
                    rows={6}
                  />
                )}
              />
            </dl>
          </section>
          <Comments
            ticket={ticket}
            project={project}
            users={userById}
            revision={commentsRevision}
            draft={composerText}
            setDraft={setComposerText}
            onChanged={() => setHistoryRevision((value) => value + 1)}
          />
          <History ticketId={ticket.id} project={project} revision={historyRevision} />
        </div>
        <div class="ticket-side">
          <StatusControl ticket={ticket} project={project} canEdit={canEdit} onSaved={changed} />
          <People ticket={ticket} canEdit={canEdit} update={update} />
          <section class="ticket-panel" aria-labelledby="ticket-details-heading">
            <h2 id="ticket-details-heading">Details</h2>
            <dl class="ticket-fields">
              <InlineField<string>
                label="Priority"
                canEdit={canEdit}
                shown={<span class={`priority priority-${ticket.priority}`}>{ticket.priority_label}</span>}
                initial={() => ticket.priority}
                save={(priority) => update({ priority: priority as Priority })}
                editor={(draft, setDraft, errors) => (
                  <SelectField
                    label="Priority"
                    value={draft}
                    options={PRIORITIES.map((value) => ({ value, label: capitalised(value) }))}
                    onValue={setDraft}
                    errors={errors}
                  />
                )}
              />
              <InlineField<string>
                label="Assignee"
                canEdit={canEdit}
                shown={userName(userById, ticket.assigned_to)}
                initial={() => String(ticket.assigned_to ?? 0)}
                // 0 unassigns (null would leave the assignee as it is).
                save={(assignee) => update({ assigned_to: Number(assignee) })}
                editor={(draft, setDraft, errors) => (
                  <SelectField
                    label="Assignee"
                    value={draft}
                    options={[
                      { value: '0', label: 'Unassigned' },
                      ...assignees.map((user) => ({ value: String(user.id), label: user.name })),
                    ]}
                    onValue={setDraft}
                    errors={errors}
                  />
                )}
              />
              <InlineField<string>
                label="Tags"
                canEdit={canEdit}
                shown={ticket.tags.length > 0 ? ticket.tags.join(', ') : <span class="muted">None</span>}
                initial={() => ticket.tags.join(', ')}
                save={(tags) => update({ tags: parseTags(tags) })}
                editor={(draft, setDraft, errors) => (
                  <Field
                    label="Tags"
                    name="tags"
                    value={draft}
                    onValue={setDraft}
                    errors={errors}
                    hint="Separated by commas"
                  />
                )}
              />
              <div class="ticket-field">
                <dt>Type</dt>
                <dd>{type?.name ?? '—'}</dd>
              </div>
              <div class="ticket-field">
                <dt>Created</dt>
                <dd>
                  {formatDateTime(ticket.created_at)} by {userName(userById, ticket.created_by)}
                </dd>
              </div>
              <div class="ticket-field">
                <dt>Updated</dt>
                <dd>
                  {formatDateTime(ticket.updated_at)}
                  {ticket.updated_by !== null && ` by ${userName(userById, ticket.updated_by)}`}
                </dd>
              </div>
            </dl>
          </section>
          {fields.length > 0 && (
            <section class="ticket-panel" aria-labelledby="ticket-custom-heading">
              <h2 id="ticket-custom-heading">{type?.name} fields</h2>
              <dl class="ticket-fields">
                {fields.map((field) => (
                  <InlineField<FieldDraft>
                    key={field.name}
                    label={field.label}
                    canEdit={canEdit}
                    shown={formatCustomValue(field, ticket.custom_fields[field.name])}
                    initial={() => toDraft(field, ticket.custom_fields[field.name])}
                    validate={(draft) => checkCustomField(field, fromDraft(field, draft))}
                    save={(draft) => update({ custom_fields: { [field.name]: fromDraft(field, draft) } })}
                    editor={(draft, setDraft, errors) => (
                      <CustomFieldInput field={field} draft={draft} onDraft={setDraft} errors={errors} />
                    )}
                  />
                ))}
              </dl>
            </section>
          )}
          <Attachments
            ticket={ticket}
            project={project}
            onChanged={() => setHistoryRevision((value) => value + 1)}
          />
          {can('ai.suggest') && (
            <AssistantPanel
              ticket={ticket}
              projectId={project.id}
              onInsertReply={insertReply}
              onChanged={() => {
                fetchTicket(ticket.id, project).then(changed).catch(showError);
                setCommentsRevision((value) => value + 1);
              }}
            />
          )}
        </div>
      </div>
    </article>
  );
}

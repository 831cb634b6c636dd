/**
 * The comment thread, oldest first: internal notes and public replies told apart, each shown from
 * the server's sanitised `content_html` when it has one (the comment service sanitises it with an
 * allow-list on write; nothing else is ever injected as HTML) and as plain text otherwise. The
 * author or a team lead and above edit a comment; the author or an admin delete it (the server
 * checks both again). The composer's text lives with the ticket screen, so the assistant panel can
 * insert a reply into it.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, call, fieldErrorsOf, showError } from '../../api/client';
import type { Project } from '../../projects';
import { can, currentUser } from '../../session';
import { Button } from '../../ui/button';
import { Dialog } from '../../ui/dialog';
import { EmptyState, Loading } from '../../ui/empty-state';
import { FormError, TextAreaField } from '../../ui/field';
import { customerPath, type CommentAuthorship } from '../customer/model';
import { useCustomer } from '../customer/use-customer';
import { CommentMail, ReceivedMail, useTicketMail } from './comment-mail';
import type { OutboundMessage, ReceivedChecks } from './mail-model';
import { consoleCommentHtml, formatDateTime, userName, type Comment, type Ticket, type User } from './model';

const CONTENT_MAX = 50_000;
export const COMPOSER_ID = 'ticket-composer';

/**
 * Sending a comment (an edit or a new one): the content's own checks first, then the request; a 422's
 * field errors are shown together under the text, anything else as a toast.
 */
function useSending() {
  const [errors, setErrors] = useState<string[] | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  async function send(problems: string[], request: () => Promise<void>): Promise<void> {
    setErrors(problems.length > 0 ? problems : undefined);
    if (problems.length > 0) return;
    setBusy(true);
    try {
      await request();
    } catch (error) {
      const fieldErrors = fieldErrorsOf(error);
      if (fieldErrors) setErrors(Object.values(fieldErrors).flat());
      else showError(error);
    } finally {
      setBusy(false);
    }
  }
  return { errors, busy, send };
}

function checkContent(content: string): string[] {
  if (content.trim() === '') return ['Write something first'];
  if ([...content].length > CONTENT_MAX) return [`Content must be at most ${CONTENT_MAX} characters`];
  return [];
}

function CommentBody({ comment, project }: { comment: Comment; project: Project }) {
  if (comment.content_html) {
    // Sanitised by the comment service (allow-listed tags, safe links, images of attachments only):
    // the only HTML shown here; its attachment images are pointed at this host's download path.
    return (
      <div
        class="ticket-comment-body ticket-comment-html"
        dangerouslySetInnerHTML={{ __html: consoleCommentHtml(comment.content_html, project) }}
      />
    );
  }
  return <div class="ticket-comment-body ticket-comment-text">{comment.content}</div>;
}

function CommentItem({
  comment,
  users,
  project,
  mail,
  received,
  onChanged,
  onDelete,
}: {
  comment: Comment;
  users: Map<number, User>;
  project: Project;
  /** The mail this comment produced (the ticket's log, loaded once by the thread). */
  mail: OutboundMessage[] | undefined;
  /** The sender checks of the mail this comment came from, when it came by mail. */
  received: ReceivedChecks | undefined;
  onChanged: (comment: Comment) => void;
  onDelete: (comment: Comment) => void;
}) {
  const me = currentUser.value;
  // A customer's comment (author_type, additive) keeps the spec's user_id but is the customer's.
  const authorship = comment as Comment & CommentAuthorship;
  const byCustomer = authorship.author_type === 'customer';
  const customer = useCustomer(byCustomer ? authorship.customer_id : null);
  const mine = !byCustomer && me?.id === comment.user_id;
  const mayEdit = can('comments.write') && (mine || can('comments.edit_any'));
  const mayDelete = can('comments.write') && (mine || can('comments.delete_any'));
  const [draft, setDraft] = useState<string | null>(null);
  const sending = useSending();
  const { errors, busy } = sending;
  const author = byCustomer ? (customer?.name ?? 'Customer') : userName(users, comment.user_id);
  const kind = comment.is_internal ? 'Internal note' : 'Public reply';

  async function save(event: Event) {
    event.preventDefault();
    if (draft === null) return;
    await sending.send(checkContent(draft), async () => {
      // The edit is plain text: the old HTML rendering would no longer match it, so it is cleared.
      const answer = await call(
        api.PUT('/comments/{id}', {
          params: { path: { id: comment.id }, query: { project_id: project.id } },
          body: { content: draft, content_html: null },
        }),
      );
      setDraft(null);
      onChanged(answer.comment);
    });
  }

  return (
    <li
      class={`ticket-comment ${comment.is_internal ? 'ticket-comment-internal' : 'ticket-comment-public'}`}
      data-comment-id={comment.id}
      aria-label={`${kind} by ${author}`}
    >
      <div class="ticket-comment-head">
        {byCustomer && authorship.customer_id ? (
          <strong>
            <a href={customerPath(authorship.customer_id)}>{author}</a>
          </strong>
        ) : (
          <strong>{author}</strong>
        )}
        {byCustomer && <span class="ticket-comment-kind">Customer</span>}
        <span class="ticket-comment-kind">{kind}</span>
        <time class="muted" dateTime={comment.created_at}>
          {formatDateTime(comment.created_at)}
        </time>
        {comment.updated_at !== comment.created_at && <span class="muted">(edited)</span>}
      </div>
      {draft === null ? (
        <>
          <CommentBody comment={comment} project={project} />
          <ReceivedMail checks={received} label={`Sender checks of comment ${comment.id}`} />
          {!byCustomer && !comment.is_internal && <CommentMail comment={comment} mail={mail} />}
          {(mayEdit || mayDelete) && (
            <div class="ticket-comment-actions">
              {mayEdit && (
                <Button
                  kind="quiet"
                  aria-label={`Edit comment by ${author}`}
                  onClick={() => setDraft(comment.content)}
                >
                  Edit
                </Button>
              )}
              {mayDelete && (
                <Button
                  kind="quiet"
                  aria-label={`Delete comment by ${author}`}
                  onClick={() => onDelete(comment)}
                >
                  Delete
                </Button>
              )}
            </div>
          )}
        </>
      ) : (
        <form
          class="ticket-comment-edit"
          aria-label="Edit comment"
          noValidate
          onSubmit={(event) => void save(event)}
        >
          <TextAreaField label="Comment" value={draft} onValue={setDraft} errors={errors} rows={4} />
          <div class="ticket-inline-edit-actions">
            <Button kind="primary" type="submit" busy={busy}>
              Save comment
            </Button>
            <Button kind="quiet" onClick={() => setDraft(null)}>
              Cancel
            </Button>
          </div>
        </form>
      )}
    </li>
  );
}

function Composer({
  ticket,
  project,
  draft,
  setDraft,
  onPosted,
}: {
  ticket: Ticket;
  project: Project;
  draft: string;
  setDraft: (text: string) => void;
  onPosted: (comment: Comment) => void;
}) {
  const [internal, setInternal] = useState(true);
  const sending = useSending();
  const { errors, busy } = sending;

  async function post(event: Event) {
    event.preventDefault();
    await sending.send(checkContent(draft), async () => {
      const answer = await call(
        api.POST('/tickets/{id}/comments', {
          params: { path: { id: ticket.id }, query: { project_id: project.id } },
          body: { content: draft, is_internal: internal },
        }),
      );
      setDraft('');
      onPosted(answer.comment);
    });
  }

  return (
    <form
      class="form ticket-composer"
      aria-label="Add a comment"
      noValidate
      onSubmit={(event) => void post(event)}
    >
      <fieldset class="ticket-composer-kind">
        <legend>Visibility</legend>
        <label class="ticket-checkbox">
          <input type="radio" name="visibility" checked={internal} onChange={() => setInternal(true)} />
          Internal note (team only)
        </label>
        <label class="ticket-checkbox">
          <input type="radio" name="visibility" checked={!internal} onChange={() => setInternal(false)} />
          Public reply (the customer sees it)
        </label>
      </fieldset>
      <div class="field">
        <label for={COMPOSER_ID}>{internal ? 'Internal note' : 'Public reply'}</label>
        <textarea
          id={COMPOSER_ID}
          rows={5}
          value={draft}
          aria-invalid={errors ? 'true' : undefined}
          aria-describedby={errors ? `${COMPOSER_ID}-errors` : undefined}
          onInput={(event) => setDraft(event.currentTarget.value)}
        />
        {errors && (
          <ul class="field-errors" id={`${COMPOSER_ID}-errors`}>
            {errors.map((message) => (
              <li key={message}>{message}</li>
            ))}
          </ul>
        )}
      </div>
      <div>
        <Button kind="primary" type="submit" busy={busy}>
          {internal ? 'Add internal note' : 'Send public reply'}
        </Button>
      </div>
    </form>
  );
}

export function Comments({
  ticket,
  project,
  users,
  revision,
  draft,
  setDraft,
  onChanged,
}: {
  ticket: Ticket;
  project: Project;
  users: Map<number, User>;
  /** Bumped by the screen when comments may have changed elsewhere (the assistant posted one). */
  revision: number;
  draft: string;
  setDraft: (text: string) => void;
  onChanged: () => void;
}) {
  const [comments, setComments] = useState<Comment[] | null>(null);
  const [deleting, setDeleting] = useState<Comment | null>(null);
  const [deleteError, setDeleteError] = useState<string | null>(null);
  // Reloaded with the thread, and once a reply was posted (its mail is queued then).
  const mail = useTicketMail(ticket, project, `${revision}:${comments?.length ?? 0}`);

  useEffect(() => {
    let current = true;
    call(
      api.GET('/tickets/{id}/comments', {
        params: { path: { id: ticket.id }, query: { project_id: project.id } },
      }),
    )
      .then((answer) => {
        if (current) setComments(answer.comments);
      })
      .catch(showError);
    return () => {
      current = false;
    };
  }, [ticket.id, project.id, revision]);

  function replace(comment: Comment) {
    setComments((list) => list && list.map((item) => (item.id === comment.id ? comment : item)));
    onChanged();
  }

  async function confirmDelete() {
    const comment = deleting;
    if (!comment) return;
    try {
      await call(
        api.DELETE('/comments/{id}', {
          params: { path: { id: comment.id }, query: { project_id: project.id } },
        }),
      );
      setDeleting(null);
      setComments((list) => list && list.filter((item) => item.id !== comment.id));
      onChanged();
    } catch (error) {
      setDeleteError(error instanceof Error ? error.message : String(error));
    }
  }

  return (
    <section class="ticket-section" aria-labelledby="ticket-comments-heading">
      <h2 id="ticket-comments-heading">
        Comments {comments && <span class="muted">({comments.length})</span>}
      </h2>
      <ReceivedMail checks={mail?.opening} label="Sender checks of the mail that opened the ticket" />
      {!comments ? (
        <Loading what="comments" />
      ) : comments.length === 0 ? (
        <EmptyState title="No comments yet." />
      ) : (
        <ol class="ticket-comment-list">
          {comments.map((comment) => (
            <CommentItem
              key={comment.id}
              comment={comment}
              users={users}
              project={project}
              mail={mail?.sent.get(comment.id)}
              received={mail?.received.get(comment.id)}
              onChanged={replace}
              onDelete={(chosen) => {
                setDeleteError(null);
                setDeleting(chosen);
              }}
            />
          ))}
        </ol>
      )}
      {can('comments.write') && (
        <Composer
          ticket={ticket}
          project={project}
          draft={draft}
          setDraft={setDraft}
          onPosted={(comment) => {
            setComments((list) => [...(list ?? []), comment]);
            onChanged();
          }}
        />
      )}
      <Dialog open={deleting !== null} title="Delete this comment?" onClose={() => setDeleting(null)}>
        <p>It is removed for everyone; this cannot be undone.</p>
        <FormError message={deleteError} />
        <div class="dialog-actions">
          <Button kind="danger" onClick={() => void confirmDelete()}>
            Delete comment
          </Button>
          <Button onClick={() => setDeleting(null)}>Keep it</Button>
        </div>
      </Dialog>
    </section>
  );
}

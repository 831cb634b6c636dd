/**
 * The assistant screen (agents and above): search the project's tickets (GET /api/search/tickets,
 * words or a ticket number), ask a question answered from resolved tickets (GET /api/search/ai), and
 * draft a reply for any ticket found with the assistant panel the ticket view shows, into a draft
 * that can be copied or opened in the ticket.
 */
import { useEffect, useId, useState } from 'preact/hooks';
import { api, call, fieldErrorsOf, showError } from '../../api/client';
import type { components, operations } from '../../generated/api';
import { currentProject } from '../../projects';
import { setQuery } from '../../router';
import { Button } from '../../ui/button';
import { EmptyState, Loading } from '../../ui/empty-state';
import { confidenceText } from './format';
import { Pager } from './pager';
import type { ScreenProps } from '../screen';
import { AssistantPanel } from './assistant-panel';
import { SourceList } from './source-list';
import './assistant.css';

type SearchResult = components['schemas']['SearchResult'];
type Pagination = components['schemas']['Pagination'];
type Ticket = components['schemas']['Ticket'];
type Answer = operations['answerQuestion']['responses'][200]['content']['application/json']['data'];

const PER_PAGE = 10;
const REASONS: Record<string, string> = {
  no_confident_match: 'No resolved ticket answers this closely enough.',
  insufficient_history: 'Not enough resolved tickets yet to answer from.',
};

function SearchForm({
  label,
  headingId,
  name,
  initial,
  onSubmit,
  errors,
  minLength,
}: {
  label: string;
  /** The section heading that names the form. */
  headingId: string;
  name: string;
  initial: string;
  onSubmit: (text: string) => void;
  errors: string[] | undefined;
  minLength: number;
}) {
  const id = useId();
  const [text, setText] = useState(initial);
  useEffect(() => setText(initial), [initial]);
  return (
    <form
      class="assistant-form"
      role="search"
      aria-labelledby={headingId}
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit(text.trim());
      }}
    >
      <label for={id}>{label}</label>
      <div class="assistant-form-row">
        <input
          id={id}
          name={name}
          type="search"
          minLength={minLength}
          value={text}
          onInput={(event) => setText(event.currentTarget.value)}
          aria-invalid={errors?.length ? 'true' : undefined}
          aria-describedby={errors?.length ? `${id}-errors` : undefined}
        />
        <Button type="submit" kind="primary">
          {name === 'q' ? 'Search' : 'Ask'}
        </Button>
      </div>
      {errors?.length ? (
        <ul class="field-errors" id={`${id}-errors`}>
          {errors.map((message) => (
            <li key={message}>{message}</li>
          ))}
        </ul>
      ) : null}
    </form>
  );
}

/**
 * An effect's request for the search and ask panes: its answer while the effect is current, else
 * nothing; the query's field errors shown beside the box (the `q` field's first), any other failure
 * as a toast. Returns the effect's cleanup.
 */
function askInEffect<T>(
  request: Promise<T>,
  setAnswer: (answer: T) => void,
  setErrors: (errors: string[] | undefined) => void,
): () => void {
  let current = true;
  request
    .then((answer) => {
      if (!current) return;
      setAnswer(answer);
      setErrors(undefined);
    })
    .catch((error: unknown) => {
      const fieldErrors = fieldErrorsOf(error);
      if (fieldErrors && current) setErrors(fieldErrors.q ?? Object.values(fieldErrors).flat());
      else showError(error);
    });
  return () => {
    current = false;
  };
}

function Search({ projectId, q, page }: { projectId: number; q: string; page: number }) {
  const [results, setResults] = useState<{ results: SearchResult[]; pagination: Pagination } | null>(null);
  const [errors, setErrors] = useState<string[] | undefined>(undefined);
  useEffect(() => {
    setResults(null);
    if (!q) return;
    return askInEffect(
      call(
        api.GET('/search/tickets', {
          params: { query: { q, page, per_page: PER_PAGE, project_id: projectId } },
        }),
      ),
      setResults,
      setErrors,
    );
  }, [projectId, q, page]);

  return (
    <section class="assistant-section" aria-labelledby="assistant-search">
      <h2 id="assistant-search">Search tickets</h2>
      <SearchForm
        label="Words or a ticket number"
        headingId="assistant-search"
        name="q"
        initial={q}
        minLength={1}
        errors={errors}
        onSubmit={(text) => setQuery({ q: text, page: null })}
      />
      {q && !results && !errors && <Loading what="results" />}
      {results && results.results.length === 0 && <EmptyState title={`No ticket matches “${q}”.`} />}
      {results && results.results.length > 0 && (
        <ol class="assistant-results">
          {results.results.map((result) => (
            <li key={result.ticket_id} class="assistant-result">
              <a href={`/tickets/${result.ticket_id}`}>
                {result.ticket_number} {result.title}
              </a>{' '}
              <span class="muted">
                {result.status} · matched in {result.matched_in}
              </span>
              {/* snippet_html is escaped by the server, with only <mark> added (docs/assistant.md). */}
              <p class="assistant-snippet" dangerouslySetInnerHTML={{ __html: result.snippet_html }} />
              <Button kind="quiet" onClick={() => setQuery({ ticket: String(result.ticket_id) })}>
                Draft a reply to {result.ticket_number}
              </Button>
            </li>
          ))}
        </ol>
      )}
      {results && (
        <Pager
          pagination={results.pagination}
          label="Search pages"
          onPage={(next) => setQuery({ page: String(next) })}
        />
      )}
    </section>
  );
}

function Ask({ projectId, question }: { projectId: number; question: string }) {
  const [answer, setAnswer] = useState<Answer | null>(null);
  const [errors, setErrors] = useState<string[] | undefined>(undefined);
  useEffect(() => {
    setAnswer(null);
    if (!question) return;
    return askInEffect(
      call(api.GET('/search/ai', { params: { query: { q: question, project_id: projectId } } })),
      setAnswer,
      setErrors,
    );
  }, [projectId, question]);

  return (
    <section class="assistant-section" aria-labelledby="assistant-ask">
      <h2 id="assistant-ask">Ask a question</h2>
      <SearchForm
        label="Question, in plain words"
        headingId="assistant-ask"
        name="question"
        initial={question}
        minLength={3}
        errors={errors}
        onSubmit={(text) => setQuery({ question: text })}
      />
      {question && !answer && !errors && <Loading what="an answer" />}
      {answer && (
        <div class="assistant-answer" role="status">
          {answer.answer ? (
            <>
              <p class="ai-suggestion-text">{answer.answer}</p>
              <p class="muted">Confidence {confidenceText(answer.confidence, answer.confidence_label)}</p>
            </>
          ) : (
            <p>{REASONS[answer.reason ?? ''] ?? 'No answer found.'}</p>
          )}
          {answer.sources.length > 0 && (
            <>
              <h3>Sources</h3>
              <SourceList sources={answer.sources} />
            </>
          )}
        </div>
      )}
    </section>
  );
}

function Draft({ projectId, ticketId }: { projectId: number; ticketId: number }) {
  const [ticket, setTicket] = useState<Ticket | null>(null);
  const [draft, setDraft] = useState('');
  const [reloads, setReloads] = useState(0);
  const draftId = useId();
  useEffect(() => {
    call(api.GET('/tickets/{id}', { params: { path: { id: ticketId }, query: { project_id: projectId } } }))
      .then((answer) => setTicket(answer.ticket))
      .catch(showError);
  }, [projectId, ticketId, reloads]);

  if (!ticket) return <Loading what="the ticket" />;
  return (
    <section class="assistant-section assistant-draft" aria-labelledby="assistant-draft">
      <h2 id="assistant-draft">
        Reply to <a href={`/tickets/${ticket.id}`}>{ticket.ticket_number}</a> {ticket.title}
      </h2>
      <div class="assistant-draft-layout">
        <div class="field">
          <label for={draftId}>Reply draft</label>
          <textarea
            id={draftId}
            rows={8}
            value={draft}
            onInput={(event) => setDraft(event.currentTarget.value)}
          />
          <p class="field-hint">Send it from the ticket, where you choose internal or public.</p>
          <Button kind="quiet" onClick={() => setQuery({ ticket: null })}>
            Close
          </Button>
        </div>
        <AssistantPanel
          ticket={ticket}
          projectId={projectId}
          onInsertReply={(text) => setDraft((current) => (current.trim() ? `${current}\n\n${text}` : text))}
          onChanged={() => setReloads((count) => count + 1)}
        />
      </div>
    </section>
  );
}

export default function AssistantScreen({ query }: ScreenProps) {
  const project = currentProject.value;
  const q = query.get('q') ?? '';
  const question = query.get('question') ?? '';
  const page = Number(query.get('page') ?? '1') || 1;
  const ticketId = Number(query.get('ticket') ?? '') || null;
  if (!project) return <EmptyState title="No project yet: an administrator creates one." />;
  return (
    <section class="screen assistant-screen">
      <h1>
        Assistant <span class="muted">{project.name}</span>
      </h1>
      {ticketId !== null && <Draft projectId={project.id} ticketId={ticketId} />}
      <div class="assistant-columns">
        <Search projectId={project.id} q={q} page={page} />
        <Ask projectId={project.id} question={question} />
      </div>
    </section>
  );
}

/** The resolved tickets an answer or a suggested reply drew on: number, title, how alike, when resolved. */
import { percent, when, type AiSource } from './format';
import './ai.css';

export function SourceList({ sources }: { sources: readonly AiSource[] }) {
  return (
    <ul class="ai-sources">
      {sources.map((source) => (
        <li key={source.ticket_id}>
          <a href={`/tickets/${source.ticket_id}`}>
            {source.ticket_number} {source.title}
          </a>{' '}
          <span class="muted">
            {percent(source.similarity)} alike
            {source.resolved_at ? `, resolved ${when(source.resolved_at)}` : ''}
          </span>
        </li>
      ))}
    </ul>
  );
}

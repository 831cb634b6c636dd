/** Previous and next page with "page 2 of 7 (134)": for the activity feed and the audit queue. */
import type { components } from '../../generated/api';
import { Button } from '../../ui/button';
import './ai.css';

type Pagination = components['schemas']['Pagination'];

export function Pager({
  pagination,
  label,
  onPage,
}: {
  pagination: Pagination;
  /** What is paged, for screen readers ("Activity pages"). */
  label: string;
  onPage: (page: number) => void;
}) {
  const { page, total_pages: pages, total } = pagination;
  if (pages <= 1) return null;
  return (
    <nav class="ai-pager" aria-label={label}>
      <Button disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </Button>
      <span>
        Page {page} of {pages} <span class="muted">({total})</span>
      </span>
      <Button disabled={page >= pages} onClick={() => onPage(page + 1)}>
        Next
      </Button>
    </nav>
  );
}

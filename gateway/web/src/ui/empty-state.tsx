/** What a screen shows when it has nothing to list, or while it loads. */
import type { ComponentChildren } from 'preact';
import './empty-state.css';

export function EmptyState({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty-state">
      <p class="empty-state-title">{title}</p>
      {children}
    </div>
  );
}

/** Shown while a screen's first request is on its way. */
export function Loading({ what }: { what: string }) {
  return (
    <p class="loading" role="status">
      Loading {what}…
    </p>
  );
}

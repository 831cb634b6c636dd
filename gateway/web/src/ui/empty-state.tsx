/** What a screen shows when it has nothing to list, or is not built yet. */
import type { ComponentChildren } from 'preact';

export function EmptyState({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty-state">
      <p class="empty-state-title">{title}</p>
      {children}
    </div>
  );
}

/** The placeholder of a screen another change will build. */
export function NotBuiltYet({ screen }: { screen: string }) {
  return (
    <section class="screen">
      <h1>{screen}</h1>
      <EmptyState title="Not built yet">
        <p>This screen is coming; the API behind it already works.</p>
      </EmptyState>
    </section>
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

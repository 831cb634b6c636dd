/**
 * A tiny history-API router: the current location as a signal and navigate(); route matching for
 * patterns such as `/tickets/:id` is path-match.ts (pure, unit-tested). The route table is routes.ts.
 */
import { signal } from '@preact/signals';

export interface Location {
  path: string;
  query: URLSearchParams;
}

function readLocation(): Location {
  return { path: window.location.pathname, query: new URLSearchParams(window.location.search) };
}

export const location = signal<Location>(readLocation());

window.addEventListener('popstate', () => {
  location.value = readLocation();
});

/** Goes to `to` (a path with an optional query) without reloading the page. */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (options.replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  location.value = readLocation();
  if (!options.replace) window.scrollTo(0, 0);
}

/** The current path with its query, as a `next` parameter keeps it. */
export function currentTarget(): string {
  return `${window.location.pathname}${window.location.search}`;
}

/** Changes query parameters of the current location (null removes one), replacing the history entry. */
export function setQuery(changes: Record<string, string | null>): void {
  const query = new URLSearchParams(window.location.search);
  for (const [name, value] of Object.entries(changes)) {
    if (value === null || value === '') query.delete(name);
    else query.set(name, value);
  }
  const search = query.toString();
  navigate(`${window.location.pathname}${search ? `?${search}` : ''}`, { replace: true });
}

/**
 * Same-origin links (`<a href="/board">`) navigate without a reload, so screens write plain anchors.
 * Links with a target, a download, a modifier key or another origin keep the browser's behaviour.
 */
document.addEventListener('click', (event) => {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey)
    return;
  const anchor = (event.target as Element | null)?.closest('a');
  if (!anchor || anchor.target || anchor.hasAttribute('download')) return;
  const url = new URL(anchor.href, window.location.href);
  if (url.origin !== window.location.origin || url.pathname.startsWith('/api/')) return;
  event.preventDefault();
  navigate(`${url.pathname}${url.search}`);
});

/**
 * A tiny history-API router: the current location as a signal, navigate(), and route matching for
 * patterns such as `/tickets/:id`. The route table is routes.ts.
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

/** The parameters of `path` under `pattern` (`/tickets/:id`), or null when it does not match. */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const patternParts = pattern.split('/').filter(Boolean);
  const pathParts = path.split('/').filter(Boolean);
  if (patternParts.length !== pathParts.length) return null;
  const params: Record<string, string> = {};
  for (const [index, part] of patternParts.entries()) {
    const actual = pathParts[index]!;
    if (part.startsWith(':')) params[part.slice(1)] = decodeURIComponent(actual);
    else if (part !== actual) return null;
  }
  return params;
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

/** Route matching for the router (pure: no window, so unit tests run it in node). */

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

/** The first of `routes` whose pattern matches `path`, with its parameters; null when none does. */
export function findRoute<Route extends { path: string }>(
  routes: readonly Route[],
  path: string,
): { route: Route; params: Record<string, string> } | null {
  for (const route of routes) {
    const params = matchPath(route.path, path);
    if (params) return { route, params };
  }
  return null;
}

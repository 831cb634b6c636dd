/**
 * `Link` (RFC 8288) to a list's neighbouring pages, from each rel's path and query on the host the
 * request came to (routes/operation.ts AnswerEffects `links`).
 */

export type ListLinks = Partial<Record<'next' | 'prev' | 'first' | 'last', string>>;

/**
 * Above this, `Link` is left out (the body still says where the next page is): the links repeat the
 * request's parameters four times, and a long ignored one (`project` beside a project-scoped key)
 * would otherwise make headers a client refuses to read (undici stops at 16 KiB).
 */
export const MAX_LINK_HEADER_LENGTH = 4_096;

/** The `Link` header of `links` under the host's prefix `baseUrl`; undefined for none or too long. */
export function linkHeader(baseUrl: string, links: ListLinks): string | undefined {
  const value = Object.entries(links)
    .map(([rel, target]) => `<${baseUrl}${target}>; rel="${rel}"`)
    .join(', ');
  return value.length > 0 && value.length <= MAX_LINK_HEADER_LENGTH ? value : undefined;
}

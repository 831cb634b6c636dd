/**
 * How the two polled routes answer (the activity feed's /activity/new and the event stream /events),
 * after GitHub's events API: a weak ETag naming the position the answer reaches, `X-Poll-Interval`
 * seconds to wait before polling again, and 304 without a body when the caller's If-None-Match
 * already names that position, so an idle poll costs one small answer. A cursor older than the
 * retention is 410: what it pointed after is gone, and the caller must start again.
 */

/** Seconds a poller should wait between polls (X-Poll-Interval and `poll_interval_seconds`). */
export const POLL_INTERVAL_SECONDS = 10;

/** `W/"<prefix>-<position>"`: the answer's position, weak because names in it are resolved when read. */
export function pollEtag(prefix: string, position: number): string {
  return `W/"${prefix}-${position}"`;
}

/** A poll's answer: `data` with its ETag (304 when the caller has it already, conditional.ts). */
export function polledAnswer(etag: string, data: unknown) {
  return { data, etag, headers: { 'X-Poll-Interval': String(POLL_INTERVAL_SECONDS) } };
}

/** 410 in the error envelope: the cursor points before what retention kept. */
export function cursorExpiredAnswer(message: string) {
  return { error: { status: 410, message } };
}

/**
 * New activity for every open feed of this browser, from ONE poller: the tabs showing the feed elect
 * a leader by a lease in localStorage (renewed every few seconds, taken over when it lapses, e.g. when
 * the leader's tab closes or sleeps); only the leader polls GET /api/activity/new (every project,
 * with If-None-Match and the server's X-Poll-Interval) and hands each batch to the other tabs over a
 * BroadcastChannel. Each feed picks the entries its own project and filters would list
 * (activity-match.ts), so tabs on different projects share the one poll.
 */
import { signal } from '@preact/signals';
import { api, ApiError, call } from '../../api/client';
import type { components } from '../../generated/api';

export type Activity = components['schemas']['Activity'];
type Listener = (activities: Activity[]) => void;

interface Batch {
  activities: Activity[];
  cursor: string;
}

const LEASE_KEY = 'tix.activity.poll-leader';
const CHANNEL_NAME = 'tix.activity';
const HEARTBEAT_MS = 2_000;
/** A lease not renewed for this long is the leader gone (a closed, frozen or throttled tab). */
const LEASE_MS = 3 * HEARTBEAT_MS;
const DEFAULT_INTERVAL_SECONDS = 10;

const tabId = crypto.randomUUID();
/** Whether this tab is the one polling (shown on the feed, for people and tests). */
export const pollRole = signal<'leader' | 'follower' | 'off'>('off');

const listeners = new Set<Listener>();
let channel: BroadcastChannel | null = null;
let heartbeat: number | undefined;
let nextPoll: number | undefined;
let polling = false;
let cursor: string | undefined;
let etag: string | undefined;
let intervalSeconds = DEFAULT_INTERVAL_SECONDS;

function readLease(): { tab: string; until: number } | null {
  try {
    const value = JSON.parse(window.localStorage.getItem(LEASE_KEY) ?? 'null') as unknown;
    const lease = value as { tab?: unknown; until?: unknown } | null;
    return lease && typeof lease.tab === 'string' && typeof lease.until === 'number'
      ? { tab: lease.tab, until: lease.until }
      : null;
  } catch {
    return null;
  }
}

/** Takes or renews the lease when it is free, lapsed or ours; answers whether this tab leads. */
function claimLease(): boolean {
  const lease = readLease();
  if (lease && lease.tab !== tabId && lease.until > Date.now()) return false;
  try {
    window.localStorage.setItem(LEASE_KEY, JSON.stringify({ tab: tabId, until: Date.now() + LEASE_MS }));
  } catch {
    return true; // No storage (a private window): this tab polls for itself.
  }
  // Two tabs may write at once: the last write wins, and the other steps down on reading it.
  return readLease()?.tab === tabId;
}

function releaseLease(): void {
  try {
    if (readLease()?.tab === tabId) window.localStorage.removeItem(LEASE_KEY);
  } catch {
    // nothing to release
  }
}

function deliver(activities: Activity[]): void {
  if (activities.length === 0) return;
  for (const listener of listeners) listener(activities);
}

function schedulePoll(delayMs: number): void {
  window.clearTimeout(nextPoll);
  nextPoll = window.setTimeout(() => void poll(), delayMs);
}

function intervalFrom(response: Response, body?: { poll_interval_seconds?: number }): number {
  const header = Number(response.headers.get('X-Poll-Interval'));
  const seconds = Number.isFinite(header) && header > 0 ? header : body?.poll_interval_seconds;
  return seconds && seconds > 0 ? seconds : DEFAULT_INTERVAL_SECONDS;
}

async function poll(): Promise<void> {
  if (polling || pollRole.value !== 'leader' || !claimLease()) return;
  polling = true;
  let again = false;
  try {
    const pending = api.GET('/activity/new', {
      params: {
        query: cursor ? { cursor } : {},
        header: etag ? { 'If-None-Match': etag } : {},
      },
    });
    const { response } = await pending;
    if (response.status === 304) {
      intervalSeconds = intervalFrom(response);
      return;
    }
    const batch = await call(pending);
    cursor = batch.cursor;
    etag = response.headers.get('ETag') ?? undefined;
    intervalSeconds = intervalFrom(response, batch);
    again = batch.has_more;
    channel?.postMessage({ activities: batch.activities, cursor: batch.cursor } satisfies Batch);
    deliver(batch.activities);
  } catch (error) {
    // 400 (a cursor this server does not know) or 410 (older than retention): start again from now.
    if (error instanceof ApiError && (error.status === 400 || error.status === 410)) {
      cursor = undefined;
      etag = undefined;
      again = true;
    }
    // Anything else (offline, 5xx) waits for the next interval; a 401 has signed the user out.
  } finally {
    polling = false;
    if (pollRole.value === 'leader') schedulePoll(again ? 0 : intervalSeconds * 1000);
  }
}

function beat(): void {
  const leads = claimLease();
  if (leads && pollRole.value !== 'leader') {
    pollRole.value = 'leader';
    schedulePoll(0);
  } else if (!leads && pollRole.value !== 'follower') {
    pollRole.value = 'follower';
    window.clearTimeout(nextPoll);
  }
}

function onBatch(event: MessageEvent<Batch>): void {
  // Followers keep the leader's cursor, so whoever leads next continues where it stopped.
  cursor = event.data.cursor;
  etag = undefined;
  deliver(event.data.activities);
}

function start(fromCursor: string): void {
  cursor = fromCursor;
  etag = undefined;
  channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(CHANNEL_NAME) : null;
  channel?.addEventListener('message', onBatch);
  window.addEventListener('pagehide', stop);
  heartbeat = window.setInterval(beat, HEARTBEAT_MS);
  beat();
}

function stop(): void {
  window.clearInterval(heartbeat);
  window.clearTimeout(nextPoll);
  window.removeEventListener('pagehide', stop);
  channel?.close();
  channel = null;
  releaseLease();
  pollRole.value = 'off';
}

/**
 * Calls `listener` with each batch of new entries (of every project) after `fromCursor` (the cursor
 * of the feed's first page), until the returned function is called.
 */
export function watchNewActivity(fromCursor: string, listener: Listener): () => void {
  listeners.add(listener);
  if (listeners.size === 1) start(fromCursor);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0) stop();
  };
}

/**
 * Browser sessions on the app host: one store interface, two implementations (this in-memory one
 * for a single gateway without REDIS_URL, and redis-session-store.ts). Expiry slides: every load
 * extends a session's life by the TTL, so an active user stays signed in and an idle one does not.
 */
import { randomBytes } from 'node:crypto';
import type { Role } from '@tix/protos';

export interface SessionData {
  /** The synchronizer CSRF token of this session. */
  csrfToken: string;
  /** Set once the browser signed in. */
  user?: { id: number; role: Role };
  /** ISO time the session was created. */
  createdAt: string;
}

export interface SessionStore {
  /** The session's data, extending its life by the TTL; null when absent or expired. */
  load(id: string): Promise<SessionData | null>;
  /** Creates or replaces a session, alive for the TTL. */
  save(id: string, data: SessionData): Promise<void>;
  destroy(id: string): Promise<void>;
  /**
   * Ends the sessions signed in as `userId` that started before `createdBefore` (deactivation, a
   * role or password change; a session started since, such as the one that changed the password and
   * was renewed, is kept); answers how many ended.
   */
  destroyUserSessions(userId: number, createdBefore: Date): Promise<number>;
  close(): Promise<void>;
}

/** Whether a session started before `time` (a session with an unreadable start counts as older). */
export function startedBefore(data: SessionData, time: Date): boolean {
  const created = Date.parse(data.createdAt);
  return Number.isNaN(created) || created < time.getTime();
}

/** A new random session id (32 bytes, base64url: 43 characters). */
export function newSessionId(): string {
  return randomBytes(32).toString('base64url');
}

/** A new random CSRF token (32 bytes, base64url). */
export function newCsrfToken(): string {
  return randomBytes(32).toString('base64url');
}

/** True for strings shaped like newSessionId's output (anything else is not looked up). */
export function isSessionId(value: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(value);
}

interface MemoryEntry {
  data: SessionData;
  expiresAt: number;
}

/** An in-memory store with sliding TTL and a size bound (the oldest sessions go first). */
export function createMemorySessionStore(options: {
  ttlSeconds: number;
  maxSessions?: number;
  now?: () => number;
}): SessionStore {
  const now = options.now ?? Date.now;
  const maxSessions = options.maxSessions ?? 100_000;
  const ttlMs = options.ttlSeconds * 1000;
  const sessions = new Map<string, MemoryEntry>();

  const sweep = () => {
    const time = now();
    for (const [id, entry] of sessions) if (entry.expiresAt <= time) sessions.delete(id);
  };

  return {
    load(id) {
      const entry = sessions.get(id);
      if (!entry) return Promise.resolve(null);
      if (entry.expiresAt <= now()) {
        sessions.delete(id);
        return Promise.resolve(null);
      }
      entry.expiresAt = now() + ttlMs;
      // Re-insert so Map order stays least-recently-used first for eviction.
      sessions.delete(id);
      sessions.set(id, entry);
      return Promise.resolve(structuredClone(entry.data));
    },
    save(id, data) {
      sessions.delete(id);
      if (sessions.size >= maxSessions) sweep();
      if (sessions.size >= maxSessions) {
        const oldest = sessions.keys().next();
        if (!oldest.done) sessions.delete(oldest.value);
      }
      sessions.set(id, { data: structuredClone(data), expiresAt: now() + ttlMs });
      return Promise.resolve();
    },
    destroy(id) {
      sessions.delete(id);
      return Promise.resolve();
    },
    destroyUserSessions(userId, createdBefore) {
      let ended = 0;
      for (const [id, entry] of sessions) {
        if (entry.data.user?.id === userId && startedBefore(entry.data, createdBefore)) {
          sessions.delete(id);
          ended += 1;
        }
      }
      return Promise.resolve(ended);
    },
    close() {
      sessions.clear();
      return Promise.resolve();
    },
  };
}

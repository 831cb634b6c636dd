/**
 * The IMAP supervisor: for every non-paused IMAP mailbox, connect, fetch every message after
 * last_uid (all of them again when UIDVALIDITY changed), store each (intake.ts) and advance last_uid
 * in the same transaction as its row, then wait with IDLE for new mail. A crash mid-fetch loses
 * nothing: the next start fetches again from last_uid, and the unique index on
 * (mailbox, uidvalidity, uid) keeps it exactly once. Connection failures reconnect with backoff.
 * An XOAUTH2 mailbox's session ends when its access token is due for a refresh (oauth2.ts), and the
 * next one signs in with the refreshed token; the fetch resumes from last_uid as after any reconnect.
 */
import type pg from 'pg';
import type { ImapFlow } from 'imapflow';
import { Backoff, inTransaction, type Logger, type SecretBox } from '@tix/kit';
import { connectionProblem, connectMailbox, type ImapMailboxRow } from './imap-check.js';
import { mailboxTokens, OAuth2RefusedError } from './oauth2.js';
import { storeInbound } from './intake.js';
import type { RawStore } from './raw-store.js';

const IDLE_RECHECK_MS = 60_000;

export interface ImapSupervisorOptions {
  pool: pg.Pool;
  store: RawStore;
  secrets: SecretBox;
  logger: Logger;
  /** How often the mailbox list is re-read (new, paused, resumed mailboxes). */
  rescanMs?: number;
  /** Longest wait between reconnects. */
  maxBackoffMs?: number;
}

export interface ImapSupervisor {
  stop(graceMs: number): Promise<void>;
}

export function startImapSupervisor(options: ImapSupervisorOptions): ImapSupervisor {
  const { pool, store, secrets, logger } = options;
  const rescanMs = options.rescanMs ?? 5_000;
  const maxBackoffMs = options.maxBackoffMs ?? 60_000;
  const tokens = mailboxTokens(pool, secrets);
  const running = new Map<number, { stop(): Promise<void>; nudge(status: string): void }>();
  let stopped = false;

  async function setStatus(id: number, status: string, lastError: string | null) {
    await pool
      .query('UPDATE mailboxes SET status = $2, last_error = $3, updated_at = now() WHERE id = $1', [
        id,
        status,
        lastError,
      ])
      .catch(() => undefined);
  }

  function watch(mailboxId: number) {
    let active = true;
    let client: ImapFlow | null = null;
    let wake: (() => void) | null = null;
    // The status this watcher last wrote, and whether new credentials asked for a new session.
    let written = 'idle';
    let restart = false;
    const report = async (status: string, lastError: string | null) => {
      written = status;
      await setStatus(mailboxId, status, lastError);
    };
    const backoff = new Backoff({ initialMs: 500, maxMs: maxBackoffMs });
    const loop = (async () => {
      while (active) {
        // Set when the access token in use is due for a refresh: reconnect at once with a new one.
        let renew = false;
        try {
          const { rows } = await pool.query<ImapMailboxRow>('SELECT * FROM mailboxes WHERE id = $1', [
            mailboxId,
          ]);
          const row = rows[0];
          if (!row) return;
          const connected = await connectMailbox(row, secrets, tokens, (error: Error) =>
            logger.warn({ err: error, mailboxId }, 'mail: IMAP connection error'),
          );
          client = connected.client;
          const refreshAt = connected.refreshAt;
          const due = () => refreshAt !== null && Date.now() >= refreshAt;
          const lock = await client.getMailboxLock('INBOX');
          try {
            await report('connected', null);
            backoff.reset();
            const current = client;
            const fetchNew = async () => {
              const box = current.mailbox;
              if (!box) return;
              const uidvalidity = Number(box.uidValidity);
              const state = await pool.query<{ last_uid: string; uidvalidity: string | null }>(
                'SELECT last_uid, uidvalidity FROM mailboxes WHERE id = $1',
                [mailboxId],
              );
              let lastUid = Number(state.rows[0]?.last_uid ?? 0);
              if (state.rows[0]?.uidvalidity !== null && Number(state.rows[0]?.uidvalidity) !== uidvalidity)
                lastUid = 0;
              if (box.exists === 0) return;
              const uids = ((await current.search({ uid: `${lastUid + 1}:*` }, { uid: true })) || []).filter(
                (uid) => uid > lastUid,
              );
              for (const uid of uids) {
                if (!active) return;
                const message = await current.fetchOne(String(uid), { source: true }, { uid: true });
                if (!message || !message.source) continue;
                await inTransaction(pool, async (db) => {
                  await storeInbound(db, store, {
                    mailboxId,
                    source: 'imap',
                    raw: message.source!,
                    uid,
                    uidvalidity,
                  });
                  await db.query(
                    'UPDATE mailboxes SET last_uid = GREATEST(CASE WHEN uidvalidity IS DISTINCT FROM $3 THEN 0 ELSE last_uid END, $2), uidvalidity = $3 WHERE id = $1',
                    [mailboxId, uid, uidvalidity],
                  );
                });
              }
            };
            await fetchNew();
            while (active && current.usable && !due()) {
              // imapflow sits in IDLE between commands; the server's EXISTS (new mail) or the
              // connection closing ends the wait, then fetch (which leaves IDLE for the command).
              await new Promise<void>((resolve) => {
                const done = () => {
                  clearTimeout(timer);
                  current.off('exists', done);
                  current.off('close', done);
                  resolve();
                };
                // A re-check now and then, should a server not report EXISTS during IDLE; and the
                // end of the session when its access token is due for a refresh.
                const untilRefresh = refreshAt === null ? IDLE_RECHECK_MS : refreshAt - Date.now();
                const timer = setTimeout(done, Math.max(0, Math.min(IDLE_RECHECK_MS, untilRefresh)));
                current.on('exists', done);
                current.on('close', done);
                current.idle().catch(() => undefined);
              });
              if (active && current.usable) await fetchNew();
            }
            renew = active && current.usable && due();
          } finally {
            lock.release();
          }
        } catch (error) {
          if (!active) return;
          // A session ended for new credentials is no failure (restart reconnects below).
          if (!restart) {
            // A refused refresh (invalid_grant) waits for an admin: the backoff keeps retries rare.
            logger.warn(
              { err: error, mailboxId },
              error instanceof OAuth2RefusedError
                ? 'mail: OAuth2 refresh refused, the mailbox needs new credentials'
                : 'mail: IMAP fetch failed, reconnecting',
            );
            await report('error', connectionProblem(error));
          }
        } finally {
          const old = client;
          client = null;
          if (old) await old.logout().catch(() => old.close());
        }
        if (!active) return;
        if (renew || restart) {
          restart = false;
          continue;
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, backoff.next());
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = null;
      }
    })();
    return {
      /**
       * The row says `idle` while this watcher last wrote something else: UpdateMailbox changed the
       * sign-in. Retry now rather than after the backoff, or end the session signed in the old way.
       */
      nudge(status: string) {
        if (status !== 'idle' || written === 'idle') return;
        written = 'idle';
        restart = true;
        backoff.reset();
        if (wake) wake();
        else client?.close();
      },
      async stop() {
        active = false;
        client?.close();
        wake?.();
        await loop.catch(() => undefined);
      },
    };
  }

  async function rescan() {
    if (stopped) return;
    try {
      const { rows } = await pool.query<{ id: number; status: string }>(
        "SELECT id, status FROM mailboxes WHERE kind = 'imap' AND NOT paused",
      );
      const wanted = new Set(rows.map((row) => row.id));
      for (const row of rows) {
        const watcher = running.get(row.id);
        if (!watcher) running.set(row.id, watch(row.id));
        else watcher.nudge(row.status);
      }
      for (const [id, watcher] of running) {
        if (!wanted.has(id)) {
          running.delete(id);
          await watcher.stop();
        }
      }
    } catch (error) {
      logger.warn({ err: error }, 'mail: cannot list IMAP mailboxes');
    }
  }
  void rescan();
  const timer = setInterval(() => void rescan(), rescanMs);
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await Promise.all([...running.values()].map((watcher) => watcher.stop()));
      running.clear();
    },
  };
}

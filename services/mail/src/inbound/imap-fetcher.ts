/**
 * The IMAP supervisor: for every non-paused IMAP mailbox, connect, fetch every message after
 * last_uid (all of them again when UIDVALIDITY changed), store each (intake.ts) and advance last_uid
 * in the same transaction as its row, then wait with IDLE for new mail. A crash mid-fetch loses
 * nothing: the next start fetches again from last_uid, and the unique index on
 * (mailbox, uidvalidity, uid) keeps it exactly once. Connection failures reconnect with backoff.
 */
import type pg from 'pg';
import { inTransaction, type Logger, type SecretBox } from '@tix/kit';
import { imapClient, type ImapAccount } from './imap-check.js';
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

interface ImapMailboxRow {
  id: number;
  imap_host: string;
  imap_port: number;
  imap_tls: boolean;
  imap_user: string;
  secret: string | null;
  auth: string;
  last_uid: string;
  uidvalidity: string | null;
}

export interface ImapSupervisor {
  stop(graceMs: number): Promise<void>;
}

export function startImapSupervisor(options: ImapSupervisorOptions): ImapSupervisor {
  const { pool, store, secrets, logger } = options;
  const rescanMs = options.rescanMs ?? 5_000;
  const maxBackoffMs = options.maxBackoffMs ?? 60_000;
  const running = new Map<number, { stop(): Promise<void> }>();
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
    let client: ReturnType<typeof imapClient> | null = null;
    const loop = (async () => {
      let backoff = 500;
      while (active) {
        try {
          const { rows } = await pool.query<ImapMailboxRow>('SELECT * FROM mailboxes WHERE id = $1', [
            mailboxId,
          ]);
          const row = rows[0];
          if (!row) return;
          const account: ImapAccount = {
            host: row.imap_host,
            port: row.imap_port,
            tls: row.imap_tls,
            user: row.imap_user,
            auth: row.auth === 'xoauth2' ? 'xoauth2' : 'password',
            secret: row.secret === null ? '' : secrets.open(row.secret),
          };
          client = imapClient(account);
          client.on('error', (error: Error) =>
            logger.warn({ err: error, mailboxId }, 'mail: IMAP connection error'),
          );
          await client.connect();
          const lock = await client.getMailboxLock('INBOX');
          try {
            await setStatus(mailboxId, 'connected', null);
            backoff = 500;
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
            while (active && current.usable) {
              // imapflow sits in IDLE between commands; the server's EXISTS (new mail) or the
              // connection closing ends the wait, then fetch (which leaves IDLE for the command).
              await new Promise<void>((resolve) => {
                const done = () => {
                  clearTimeout(timer);
                  current.off('exists', done);
                  current.off('close', done);
                  resolve();
                };
                // A re-check now and then, should a server not report EXISTS during IDLE.
                const timer = setTimeout(done, IDLE_RECHECK_MS);
                current.on('exists', done);
                current.on('close', done);
                current.idle().catch(() => undefined);
              });
              if (active && current.usable) await fetchNew();
            }
          } finally {
            lock.release();
          }
        } catch (error) {
          if (!active) return;
          logger.warn({ err: error, mailboxId }, 'mail: IMAP fetch failed, reconnecting');
          await setStatus(mailboxId, 'error', (error as Error).message.slice(0, 500));
        } finally {
          const old = client;
          client = null;
          if (old) await old.logout().catch(() => old.close());
        }
        if (!active) return;
        await new Promise((resolve) => setTimeout(resolve, backoff));
        backoff = Math.min(backoff * 2, maxBackoffMs);
      }
    })();
    return {
      async stop() {
        active = false;
        client?.close();
        await loop.catch(() => undefined);
      },
    };
  }

  async function rescan() {
    if (stopped) return;
    try {
      const { rows } = await pool.query<{ id: number }>(
        "SELECT id FROM mailboxes WHERE kind = 'imap' AND NOT paused",
      );
      const wanted = new Set(rows.map((row) => row.id));
      for (const id of wanted) if (!running.has(id)) running.set(id, watch(id));
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

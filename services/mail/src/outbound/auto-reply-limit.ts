/**
 * The per-sender limit on automatic mail (docs/mail.md, "Loop protection"): at most AUTO_REPLY_LIMIT
 * automatic mails to one address per window, across projects. The sender records each automatic
 * mail it sends in auto_reply_log (one row per recipient) and checks the log, under a per-address
 * advisory lock, when it claims an automatic mail; the inbound processor may ask the same question
 * before it queues one (autoReplyAllowed), so that it does not queue what would be suppressed.
 */
import type pg from 'pg';

export const AUTO_REPLY_LIMIT = { max: 1, windowMs: 60 * 60_000 } as const;

type Queryable = Pick<pg.PoolClient, 'query'>;

/** True when every address may receive one more automatic mail now. */
export async function autoReplyAllowed(
  db: Queryable,
  addresses: readonly string[],
  limit: { max: number; windowMs: number } = AUTO_REPLY_LIMIT,
): Promise<boolean> {
  if (addresses.length === 0) return true;
  const { rows } = await db.query<{ address: string; sent: string }>(
    `SELECT address, count(*) AS sent FROM auto_reply_log
      WHERE address = ANY($1::text[]) AND sent_at > now() - make_interval(secs => $2::double precision / 1000)
      GROUP BY address`,
    [addresses.map((a) => a.toLowerCase()), limit.windowMs],
  );
  return rows.every((row) => Number(row.sent) < limit.max);
}

/** Serialises the check-and-record of these addresses until the transaction ends. */
export async function lockAddresses(db: Queryable, addresses: readonly string[]): Promise<void> {
  const sorted = [...new Set(addresses.map((a) => a.toLowerCase()))].sort();
  for (const address of sorted)
    await db.query("SELECT pg_advisory_xact_lock(hashtext('tix-auto-reply:' || $1))", [address]);
}

/** One log row per address: an automatic mail went (or is going) to it now. */
export async function recordAutoReply(db: Queryable, addresses: readonly string[]): Promise<void> {
  if (addresses.length === 0) return;
  await db.query('INSERT INTO auto_reply_log (address) SELECT unnest($1::text[])', [
    [...new Set(addresses.map((a) => a.toLowerCase()))],
  ]);
}

/**
 * The transactional outbox. A service writes its domain events into its own `outbox_events` table in
 * the same transaction as the change (newDomainEvent + outboxInsert, the one outbox writer); the
 * relay publishes them to RabbitMQ with publisher confirms and only then marks them published. A broker
 * outage delays events, never loses them; a crash between publish and mark can only duplicate one
 * batch, which consumers absorb by event id.
 *
 * Table shape (copy into the service's schema.prisma; the migration adds the NOTIFY trigger, see
 * OUTBOX_NOTIFY_TRIGGER_SQL):
 *
 *   model OutboxEvent {
 *     seq         BigInt    @id @default(autoincrement())
 *     id          String    @unique @db.Uuid
 *     eventType   String    @map("event_type") @db.VarChar(100)
 *     payload     Json
 *     createdAt   DateTime  @default(now()) @map("created_at") @db.Timestamptz(3)
 *     publishedAt DateTime? @map("published_at") @db.Timestamptz(3)
 *     attempts    Int       @default(0)
 *     lastError   String?   @map("last_error")
 *     @@index([publishedAt, seq])
 *     @@map("outbox_events")
 *   }
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { DomainEvent, EventActor, EventType, FieldChange } from '@tix/protos';
import { Backoff } from '../backoff.js';
import { withConnection } from '../db/pool.js';
import type { Logger } from '../logger.js';
import { outboxMetrics } from '../metrics.js';
import { connectBroker, type OutgoingMessage } from './broker.js';

/** The channel a NOTIFY trigger on outbox_events signals, so the relay wakes without polling. */
export const OUTBOX_CHANNEL = 'outbox_events';

/** Migration SQL that makes every insert into outbox_events wake the relay. */
export const OUTBOX_NOTIFY_TRIGGER_SQL = `
CREATE OR REPLACE FUNCTION outbox_events_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('${OUTBOX_CHANNEL}', '');
  RETURN NULL;
END $$;
CREATE TRIGGER outbox_events_notify AFTER INSERT ON "outbox_events"
  FOR EACH STATEMENT EXECUTE FUNCTION outbox_events_notify();
`;

/** Where an event comes from, and (envelope v1.1) who made the change and what it altered. */
export interface EventOrigin {
  source: string;
  projectId?: number;
  occurredAt?: Date;
  /** Who made the change (actorOf the call's principal). */
  actor?: EventActor;
  /** The changed fields by public name. */
  changes?: Record<string, FieldChange>;
  /** ticket.created: the fields the server defaulted. */
  defaultedFields?: readonly string[];
  /** Ticket events: every type the write emitted. */
  writeTypes?: readonly EventType[];
}

/** A domain event without its data: what newDomainEvent puts around the resource. */
export type EventEnvelope = Omit<DomainEvent<never>, 'data'>;

/** The envelope of a domain event with a fresh id (newDomainEvent without the data). */
export function newEventEnvelope(type: EventType, origin: EventOrigin): EventEnvelope {
  return {
    id: randomUUID(),
    type,
    occurred_at: (origin.occurredAt ?? new Date()).toISOString(),
    source: origin.source,
    ...(origin.projectId === undefined ? {} : { project_id: origin.projectId }),
    ...(origin.actor === undefined ? {} : { actor: origin.actor }),
    ...(origin.changes === undefined ? {} : { changes: origin.changes }),
    ...(origin.defaultedFields === undefined ? {} : { defaulted_fields: [...origin.defaultedFields] }),
    ...(origin.writeTypes === undefined ? {} : { write_types: [...origin.writeTypes] }),
  };
}

/**
 * Builds a domain event with a fresh id. `data` is the resource as the public API returns it; the
 * v1.1 envelope fields appear only when given, so `data` (what webhooks deliver) never changes.
 */
export function newDomainEvent<Data extends object>(
  type: EventType,
  data: Data,
  origin: EventOrigin,
): DomainEvent<Data> {
  return { ...newEventEnvelope(type, origin), data };
}

/** Parameterised SQL that inserts events into outbox_events (for services writing with pg directly). */
export function outboxInsert(events: readonly DomainEvent<object>[]): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const rows = events.map((event) => {
    values.push(event.id, event.type, JSON.stringify(event));
    const n = values.length;
    return `($${n - 2}::uuid, $${n - 1}, $${n}::jsonb)`;
  });
  return { text: `INSERT INTO outbox_events (id, event_type, payload) VALUES ${rows.join(', ')}`, values };
}

export interface OutboxRelayOptions {
  /** The service's own database (where outbox_events lives). */
  connectionString: string;
  amqpUrl: string;
  logger: Logger;
  /** Events published per transaction. */
  batchSize?: number;
  /** Fallback poll interval when no NOTIFY arrives (ms). */
  pollIntervalMs?: number;
  /** Published events older than this are deleted (ms). */
  retentionMs?: number;
}

export interface OutboxRelay {
  /** Events not yet published. */
  backlog(): Promise<number>;
  /** True while connected to the broker. */
  isConnected(): boolean;
  /** Publishes everything pending now; resolves with how many were published (for tests and shutdown). */
  drain(): Promise<number>;
  stop(): Promise<void>;
}

interface OutboxRow {
  seq: string;
  id: string;
  event_type: string;
  payload: DomainEvent;
}

/** One outbox row as a message: routing key = event type, messageId = event id (consumers dedupe by it). */
function eventMessage(row: OutboxRow): OutgoingMessage {
  return {
    routingKey: row.event_type,
    content: Buffer.from(JSON.stringify(row.payload)),
    properties: {
      persistent: true,
      messageId: row.id,
      type: row.event_type,
      contentType: 'application/json',
      timestamp: Math.floor(Date.parse(row.payload.occurred_at) / 1000),
    },
  };
}

/** Starts relaying outbox_events to RabbitMQ; runs until stop(). */
export function startOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const { logger } = options;
  const batchSize = options.batchSize ?? 200;
  const pollIntervalMs = options.pollIntervalMs ?? 1_000;
  const retentionMs = options.retentionMs ?? 7 * 24 * 3600_000;
  const pool = new pg.Pool({ connectionString: options.connectionString, max: 2 });
  pool.on('error', (error) => logger.warn({ err: error }, 'outbox relay: idle database connection failed'));
  const countBacklog = async (): Promise<number> => {
    const { rows } = await pool.query<{ count: string }>(
      'SELECT count(*) FROM outbox_events WHERE published_at IS NULL',
    );
    return Number(rows[0]?.count ?? 0);
  };
  // tix_outbox_backlog counts at scrape time, so the relay loop pays nothing for it.
  const metrics = outboxMetrics();
  const unwatchBacklog = metrics.watchBacklog(countBacklog);

  let listener: pg.Client | undefined;
  let stopped = false;
  let wake: (() => void) | undefined;
  // Set by NOTIFY (and by a reconnect); checked before sleeping so a wake-up during a drain is never missed.
  let notified = false;
  const wakeUp = () => {
    notified = true;
    wake?.();
  };
  const broker = connectBroker({
    url: options.amqpUrl,
    logger,
    name: 'outbox relay',
    // Back from an outage: publish the backlog now, not after the relay's own retry delay.
    onConnectionChange: (connected) => {
      if (connected) wakeUp();
    },
  });
  const publisher = broker.publisher();
  // Paces retries after a failed drain (broker or database down); the broker reconnects on its own.
  const retryBackoff = new Backoff();
  let lastPrune = 0;
  let running: Promise<number> | undefined;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (notified || stopped) return resolve();
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  async function ensureListener(): Promise<void> {
    if (listener) return;
    const client = new pg.Client({ connectionString: options.connectionString });
    client.on('error', (error) => {
      logger.warn({ err: error }, 'outbox relay: LISTEN connection lost; polling until it is back');
      listener = undefined;
    });
    client.on('notification', wakeUp);
    await client.connect();
    await client.query(`LISTEN ${OUTBOX_CHANNEL}`);
    listener = client;
  }

  /** Publishes one batch inside a transaction that holds the rows (SKIP LOCKED lets replicas share work). */
  async function publishBatch(): Promise<number> {
    // Fails fast while the broker is unreachable, before any row is locked or charged an attempt.
    await publisher.ready();
    // Held across the broker's confirms: withConnection keeps a connection lost meanwhile from
    // crashing the process.
    return withConnection(pool, async (client) => {
      try {
        await client.query('BEGIN');
        const { rows } = await client.query<OutboxRow>(
          `SELECT seq, id, event_type, payload FROM outbox_events
            WHERE published_at IS NULL ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED`,
          [batchSize],
        );
        if (rows.length === 0) {
          await client.query('COMMIT');
          return 0;
        }
        try {
          await publisher.publish(rows.map(eventMessage));
        } catch (error) {
          await client.query('ROLLBACK');
          await pool
            .query(
              'UPDATE outbox_events SET attempts = attempts + 1, last_error = $2 WHERE seq = ANY($1::bigint[])',
              [rows.map((row) => row.seq), String((error as Error).message).slice(0, 500)],
            )
            .catch(() => undefined);
          throw error;
        }
        await client.query('UPDATE outbox_events SET published_at = now() WHERE seq = ANY($1::bigint[])', [
          rows.map((row) => row.seq),
        ]);
        await client.query('COMMIT');
        metrics.published.inc(rows.length);
        return rows.length;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  async function drainAll(): Promise<number> {
    let total = 0;
    for (;;) {
      const published = await publishBatch();
      total += published;
      if (published < batchSize) return total;
    }
  }

  async function prune(): Promise<void> {
    if (Date.now() - lastPrune < 3600_000) return;
    lastPrune = Date.now();
    const { rowCount } = await pool.query(
      "DELETE FROM outbox_events WHERE published_at < now() - ($1::bigint * interval '1 millisecond')",
      [retentionMs],
    );
    if (rowCount) logger.info({ deleted: rowCount }, 'outbox relay: pruned published events');
  }

  const drain = (): Promise<number> => {
    running ??= drainAll().finally(() => {
      running = undefined;
    });
    return running;
  };

  const loop = (async () => {
    let outageLogged = false;
    while (!stopped) {
      try {
        await ensureListener().catch((error: unknown) =>
          logger.debug({ err: error }, 'outbox relay: LISTEN unavailable'),
        );
        notified = false;
        const published = await drain();
        if (published > 0) logger.debug({ published }, 'outbox relay: published');
        if (outageLogged) logger.info('outbox relay: publishing again');
        outageLogged = false;
        retryBackoff.reset();
        await prune();
        if (!stopped) await sleep(pollIntervalMs);
      } catch (error) {
        metrics.failures.inc();
        if (!outageLogged)
          logger.warn(
            { err: error },
            'outbox relay: cannot publish; events stay in the outbox and are retried',
          );
        outageLogged = true;
        if (!stopped) await sleep(retryBackoff.next());
      }
    }
  })();

  return {
    backlog: countBacklog,
    isConnected: () => broker.isConnected(),
    drain,
    async stop() {
      stopped = true;
      wake?.();
      await loop;
      unwatchBacklog();
      await listener?.end().catch(() => undefined);
      await broker.close();
      await pool.end();
    },
  };
}

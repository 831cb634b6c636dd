/**
 * Wake-ups from other replicas: the deliveries table's insert trigger (migration *_delivery_queue)
 * notifies DELIVERIES_CHANNEL whenever deliveries are queued, and every replica's workers LISTEN
 * on it. A lost connection is re-established; meanwhile the workers' poll covers the gap.
 */
import pg from 'pg';
import type { Logger } from '@tix/kit';

/** The channel the deliveries table's insert trigger notifies. */
export const DELIVERIES_CHANNEL = 'webhook_deliveries';

/** LISTEN on DELIVERIES_CHANNEL, reconnecting after a failure; close() ends it. */
export function listenForDeliveries(
  connectionString: string,
  onNotify: () => void,
  logger: Logger,
): { close(): Promise<void> } {
  let client: pg.Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  const scheduleRetry = () => {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, 1_000);
  };
  const connect = async () => {
    const next = new pg.Client({ connectionString });
    next.on('error', (error) => {
      logger.debug({ err: error }, 'delivery LISTEN connection lost; polling until it is back');
      if (client === next) client = undefined;
      void next.end().catch(() => undefined);
      scheduleRetry();
    });
    next.on('notification', onNotify);
    try {
      await next.connect();
      await next.query(`LISTEN ${DELIVERIES_CHANNEL}`);
      if (closed) {
        await next.end();
        return;
      }
      client = next;
      onNotify(); // anything queued while we were not listening
    } catch (error) {
      logger.debug({ err: error }, 'cannot LISTEN for deliveries; polling until it works');
      await next.end().catch(() => undefined);
      scheduleRetry();
    }
  };
  void connect();
  return {
    async close() {
      closed = true;
      clearTimeout(retry);
      await client?.end().catch(() => undefined);
    },
  };
}

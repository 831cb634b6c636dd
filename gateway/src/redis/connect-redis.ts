/**
 * The gateway's one Redis connection (REDIS_URL), shared by the session store and the limits (rate
 * limits, idempotency, quotas). Commands fail fast while Redis is unreachable (no offline queue:
 * session routes answer 503, limits fall back to the process), the client reconnects in the
 * background with the kit's backoff, and an outage is logged once, not once per attempt.
 *
 * One client for both is safe: every command either sends is a self-contained request and reply
 * (GETEX, SET, DEL, EVALSHA of atomic Lua scripts); none changes the connection's state (no SELECT,
 * MULTI/WATCH, SUBSCRIBE or blocking pop), so their commands interleave on one pipelined socket
 * without affecting each other. A command the limits give up on after their 500 ms timeout is only
 * abandoned by its caller; the socket is not reset under the sessions. Both want the same
 * behaviour while Redis is down, and one socket per replica instead of two halves the connections.
 */
import { createClient } from 'redis';
import { backoffDelay, type Logger } from '@tix/kit';

function newClient(url: string) {
  return createClient({
    url,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: 2_000,
      reconnectStrategy: (retries: number) => backoffDelay(retries),
    },
  });
}

export type RedisClient = ReturnType<typeof newClient>;

export interface ConnectRedisOptions {
  url: string;
  logger: Logger;
  /** How long start-up waits for the first connection before going on without it (ms). */
  startupWaitMs?: number;
}

/** Creates the client and waits up to `startupWaitMs` for the first connection (then goes on without). */
export async function connectRedis(options: ConnectRedisOptions): Promise<RedisClient> {
  const { logger } = options;
  const client = newClient(options.url);
  let state: 'starting' | 'up' | 'down' = 'starting';
  // node-redis emits 'error' for every failed reconnect attempt: warn when an outage starts only.
  client.on('error', (error: Error) => {
    if (state === 'up') logger.warn({ err: error }, 'redis: connection lost; reconnecting in the background');
    else logger.debug({ err: error }, 'redis: still unreachable');
    state = 'down';
  });
  client.on('ready', () => {
    if (state === 'down') logger.info('redis: connected again');
    state = 'up';
  });
  // Redis being down must not stop the gateway (the API host does not need it): wait briefly for
  // the first connection, then keep reconnecting in the background.
  const firstConnection = client.connect().then(
    () => true,
    () => false,
  );
  const connected = await Promise.race([
    firstConnection,
    new Promise<false>((resolve) => setTimeout(() => resolve(false), options.startupWaitMs ?? 2_000).unref()),
  ]);
  if (!connected) {
    state = 'down';
    logger.warn('redis: not reachable yet; session routes answer 503 and limits run in process until it is');
  }
  return client;
}

/** Closes the client whatever state it is in. */
export async function closeRedis(client: RedisClient): Promise<void> {
  if (client.isReady) await client.close();
  else if (client.isOpen) client.destroy();
}

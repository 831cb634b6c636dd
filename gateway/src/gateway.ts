/**
 * Starting and stopping the whole gateway from a config: service clients, the API key cache and its
 * revocation feed, the project cache, the session store, one app per listener. Stopping is graceful:
 * stop accepting, let in-flight requests finish within the grace period (then cut the rest), and
 * close the feed, the session store and the clients.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@tix/kit';
import { createApp, type AppDeps } from './app.js';
import { createApiKeyAuthenticator } from './auth/api-key-authenticator.js';
import { forgetUser } from './auth/forget-user.js';
import { startRevocationListener } from './auth/revocation-listener.js';
import type { GatewayConfig } from './config.js';
import type { HostRole } from './http/request-context.js';
import { createGatewayLimits } from './limits/index.js';
import { createMailTransport } from './mail/mail-transport.js';
import { createPasswordResetMailer } from './mail/password-reset-mail.js';
import { createProjectResolver } from './projects/project-resolver.js';
import { closeRedis, connectRedis, type RedisClient } from './redis/connect-redis.js';
import { closeServiceClients, createServiceClients } from './services.js';
import { createRedisSessionStore } from './sessions/redis-session-store.js';
import { createMemorySessionStore, type SessionStore } from './sessions/session-store.js';

export interface Listener {
  /** null: one listener serving both roles, told apart by Host. */
  role: HostRole | null;
  port: number;
}

export interface RunningGateway {
  /** The bound listeners (ports resolved when 0 was asked). */
  listeners: Listener[];
  stop(): Promise<void>;
}

/** The listeners a config asks for: two ports -> one per role; one shared port -> one listener. */
export function planListeners(config: Pick<GatewayConfig, 'apiPort' | 'appPort'>): Listener[] {
  return config.apiPort === config.appPort
    ? [{ role: null, port: config.apiPort }]
    : [
        { role: 'api', port: config.apiPort },
        { role: 'app', port: config.appPort },
      ];
}

function listen(server: http.Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Starts the gateway described by `config`; resolves once every listener is bound. */
export async function startGateway(config: GatewayConfig, logger: Logger): Promise<RunningGateway> {
  const services = createServiceClients(config.serviceAddresses, config.serviceDeadlineMs, {
    breaker: config.serviceBreaker,
    logger,
  });
  const apiKeys = createApiKeyAuthenticator({ lookup: services.lookup, ttlMs: config.authCacheTtlMs });
  const projects = createProjectResolver({ lookup: services.lookup, ttlMs: config.projectCacheTtlMs });
  // One Redis client for sessions and limits (why that is safe: redis/connect-redis.ts).
  let redis: RedisClient | undefined;
  try {
    redis = config.redisUrl ? await connectRedis({ url: config.redisUrl, logger }) : undefined;
  } catch (error) {
    closeServiceClients(services);
    throw error;
  }
  const store: SessionStore = redis
    ? createRedisSessionStore({ client: redis, ttlSeconds: config.sessionTtlSeconds })
    : createMemorySessionStore({ ttlSeconds: config.sessionTtlSeconds });
  // Rate limits, quotas, idempotency: in Redis when REDIS_URL is set (fail open while it is down).
  const limits = createGatewayLimits({
    config: config.limits,
    redis,
    logger,
    // A JSON request ends within a service deadline or two: a claim a minute older lost its gateway.
    claimTtlMs: 60_000 + config.serviceDeadlineMs,
  });
  const revocations = startRevocationListener({
    amqpUrl: config.amqpUrl,
    logger,
    onRevoked: async (revocation) => {
      if (revocation.kind === 'api_key') {
        apiKeys.evictKey(revocation.keyId);
        return;
      }
      // With Redis the gateway that made the change ended the sessions already; the memory store is
      // this gateway's own. A store outage leaves them to their idle timeout (logged).
      await forgetUser({ apiKeys, sessions: store }, revocation.userId, revocation.endedAt).catch(
        (error: unknown) =>
          logger.warn(
            { err: error, user_id: revocation.userId },
            "revocation feed: could not end the user's sessions",
          ),
      );
    },
    onConnectionChange: (connected) => apiKeys.setRevocationFeedConnected(connected),
  });

  const passwordResetMail = createPasswordResetMailer(
    createMailTransport(config.mail, logger),
    config.appUrl,
  );
  if (passwordResetMail.transport === 'none') {
    logger.error(
      'SMTP_URL is not set: password reset links are not mailed (forgot-password answers as usual)',
    );
  } else if (passwordResetMail.transport === 'folder') {
    logger.info({ mail_dir: config.mail.dir }, 'no SMTP_URL: mail is written to MAIL_DIR');
  }

  let shuttingDown = false;
  const deps: Omit<AppDeps, 'listenerRole'> = {
    apiHosts: config.apiHosts,
    appHosts: config.appHosts,
    cors: config.cors,
    bodyLimitBytes: config.bodyLimitBytes,
    attachments: config.attachments,
    readinessTimeoutMs: config.readinessTimeoutMs,
    logger,
    services,
    apiKeys,
    projects,
    sessions: { store, secureCookie: config.production },
    isShuttingDown: () => shuttingDown,
    limits,
    passwordResetMail,
  };

  const servers: http.Server[] = [];
  const listeners: Listener[] = [];
  const closeDependencies = async () => {
    // Reset mails still being sent need the lookup client: before the clients close.
    await passwordResetMail.close();
    await revocations.stop();
    await store
      .close()
      .catch((error: unknown) => logger.warn({ err: error }, 'closing the session store failed'));
    await limits
      .close()
      .catch((error: unknown) => logger.warn({ err: error }, 'closing the limits store failed'));
    if (redis)
      await closeRedis(redis).catch((error: unknown) => logger.warn({ err: error }, 'closing redis failed'));
    closeServiceClients(services);
  };
  try {
    for (const planned of planListeners(config)) {
      const server = http.createServer(createApp({ ...deps, listenerRole: planned.role }));
      // Slow or idle clients must not hold sockets forever. Node has no per-route request timeout, so
      // the whole-request limit must let an attachment upload finish; a stalled one is still cut by
      // the idle timeout, and headers must arrive quickly whatever the route.
      server.requestTimeout = Math.max(30_000, config.attachments.transferDeadlineMs);
      server.timeout = 30_000;
      server.headersTimeout = 10_000;
      server.keepAliveTimeout = 5_000;
      servers.push(server);
      listeners.push({ role: planned.role, port: await listen(server, config.host, planned.port) });
    }
  } catch (error) {
    for (const server of servers) server.close();
    await closeDependencies();
    throw error;
  }
  logger.info({ host: config.host, listeners }, 'gateway listening');

  let stopping: Promise<void> | undefined;
  return {
    listeners,
    stop() {
      stopping ??= (async () => {
        shuttingDown = true;
        const force = setTimeout(() => {
          logger.warn({ graceMs: config.shutdownGraceMs }, 'grace period over; closing open connections');
          for (const server of servers) server.closeAllConnections();
        }, config.shutdownGraceMs);
        // Keep-alive connections whose last request finishes during the drain become idle only
        // then: close them as they do, instead of waiting for their keep-alive timeout.
        const closeIdle = setInterval(() => {
          for (const server of servers) server.closeIdleConnections();
        }, 50);
        await Promise.all(
          servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
        );
        clearTimeout(force);
        clearInterval(closeIdle);
        await closeDependencies();
        logger.info('gateway stopped');
      })();
      return stopping;
    },
  };
}

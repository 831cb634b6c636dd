/**
 * Probes, on both host roles and any Host header (orchestrators probe by IP), without auth:
 * GET /healthz says the process is alive (no dependencies); GET /readyz asks every deployed
 * service's grpc.health.v1 in parallel and answers 200 only when all of them serve (503 otherwise,
 * and while the gateway is shutting down). Both answers also show each client's circuit breaker
 * state; an open breaker alone does not make the gateway unready (the health checks decide).
 */
import { Router } from 'express';
import { AppError, type BreakerState } from '@tix/kit';
import { SERVICE_NAMES, type ServiceName } from '@tix/protos';
import { sendData, sendError } from '../http/envelope.js';
import { defineRoute } from '../http/routing.js';
import type { LimitsBackend } from '../limits/index.js';
import type { ServiceClients } from '../services.js';

export type ServiceReadiness = 'serving' | 'unreachable' | 'not_deployed';

export interface ReadinessReport {
  ready: boolean;
  services: Record<ServiceName, ServiceReadiness>;
  breakers: Record<ServiceName, BreakerState | 'not_deployed'>;
}

/** Checks every deployed service's health in parallel, each bounded by `timeoutMs`. */
export async function checkReadiness(clients: ServiceClients, timeoutMs: number): Promise<ReadinessReport> {
  const states = await Promise.all(
    SERVICE_NAMES.map(async (name): Promise<[ServiceName, ServiceReadiness]> => {
      const client = clients[name];
      if (!client) return [name, 'not_deployed'];
      return [name, (await client.checkHealth(timeoutMs)) ? 'serving' : 'unreachable'];
    }),
  );
  const services = Object.fromEntries(states) as Record<ServiceName, ServiceReadiness>;
  const breakers = Object.fromEntries(
    SERVICE_NAMES.map((name) => [name, clients[name]?.breakerState() ?? 'not_deployed']),
  ) as ReadinessReport['breakers'];
  return { ready: states.every(([, state]) => state !== 'unreachable'), services, breakers };
}

export interface HealthRouteDeps {
  services: ServiceClients;
  readinessTimeoutMs: number;
  isShuttingDown: () => boolean;
  /** Where rate limits live (`rate_limits` in /readyz; a degraded store never makes it fail). */
  limits?: { backend(): LimitsBackend };
}

/** The /healthz and /readyz routes. */
export function healthRoutes(deps: HealthRouteDeps): Router {
  const router = Router();
  // Probes arriving together share one round of health checks.
  let pending: Promise<ReadinessReport> | undefined;

  defineRoute(router, '/healthz', {
    get: [(_request, response) => sendData(response, { status: 'alive' })],
  });
  defineRoute(router, '/readyz', {
    get: [
      async (_request, response) => {
        if (deps.isShuttingDown()) {
          sendError(response, AppError.unavailable('Not ready: shutting down'), {
            data: { status: 'shutting_down' },
          });
          return;
        }
        pending ??= checkReadiness(deps.services, deps.readinessTimeoutMs).finally(() => {
          pending = undefined;
        });
        const report = await pending;
        // Only on gateways with limits wired (a test app without them shows no such field).
        const limitsDetail = deps.limits ? { rate_limits: deps.limits.backend() } : {};
        if (report.ready) {
          sendData(response, {
            status: 'ready',
            services: report.services,
            breakers: report.breakers,
            ...limitsDetail,
          });
          return;
        }
        const problems = SERVICE_NAMES.filter((name) => report.services[name] === 'unreachable');
        sendError(
          response,
          AppError.unavailable(`Not ready: ${problems.map((name) => `${name} unreachable`).join(', ')}`),
          {
            data: {
              status: 'not_ready',
              services: report.services,
              breakers: report.breakers,
              ...limitsDetail,
            },
          },
        );
      },
    ],
  });
  return router;
}

/**
 * Prometheus metrics of one process: a registry with Node's default process metrics and a `service`
 * label on every series (the same name the logs carry), get-or-create helpers so that modules define
 * their metrics where they are used, the fleet-wide metrics the kit itself records (gRPC server and
 * client, outbox relay, circuit breakers), and a small HTTP server that serves GET /metrics on its own
 * port, never on a public listener.
 *
 * Names start with `tix_`, durations are in seconds. Label values are bounded: RPC names, gRPC status
 * names, route patterns, fixed outcome words; never ids or raw URLs.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { status as GrpcStatus } from '@grpc/grpc-js';
import {
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  Registry,
  type CounterConfiguration,
  type GaugeConfiguration,
  type HistogramConfiguration,
} from 'prom-client';
import { z } from 'zod';
import type { FleetProcessName } from '@tix/protos';
import type { Logger } from './logger.js';

/** The registry of this process: everything /metrics shows. */
export const metricsRegistry = new Registry();

/**
 * METRICS_PORT (`fallback`: the process's defaultMetricsPort in the fleet map): a port, or 0 to
 * serve no /metrics at all (the process still counts, cheaply).
 */
export const metricsPortSchema = (fallback: number) =>
  z.coerce
    .number()
    .int()
    .min(0)
    .max(65535)
    .default(fallback)
    .transform((port) => (port === 0 ? null : port));

/** Latency buckets (seconds) for calls and requests: 5 ms to 10 s. */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

let processMetricsFor: string | undefined;

/**
 * Labels every series with `service` and starts Node's default metrics (CPU, memory, event loop lag,
 * GC, handles). Once per process; main.ts calls it (tests leave it alone, so their registry stays small).
 */
export function initProcessMetrics(service: string): void {
  if (processMetricsFor !== undefined) return;
  processMetricsFor = service;
  metricsRegistry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: metricsRegistry });
  // The local launcher restarts a crashed process and tells it how often it did so (Kubernetes
  // counts restarts itself: kube_pod_container_status_restarts_total).
  const restarts = Number(process.env.TIX_RESTART_COUNT ?? 0);
  defineGauge({
    name: 'tix_process_restarts',
    help: 'Times the local launcher restarted this process after a crash (TIX_RESTART_COUNT)',
  }).set(Number.isSafeInteger(restarts) && restarts >= 0 ? restarts : 0);
}

/** The counter named `config.name`, created on first use (modules and tests may ask for it twice). */
export function defineCounter<L extends string>(config: CounterConfiguration<L>): Counter<L> {
  const existing = metricsRegistry.getSingleMetric(config.name);
  if (existing) return existing as Counter<L>;
  return new Counter({ ...config, registers: [metricsRegistry] });
}

/** The gauge named `config.name`, created on first use. */
export function defineGauge<L extends string>(config: GaugeConfiguration<L>): Gauge<L> {
  const existing = metricsRegistry.getSingleMetric(config.name);
  if (existing) return existing as Gauge<L>;
  return new Gauge({ ...config, registers: [metricsRegistry] });
}

/** The histogram named `config.name`, created on first use. */
export function defineHistogram<L extends string>(config: HistogramConfiguration<L>): Histogram<L> {
  const existing = metricsRegistry.getSingleMetric(config.name);
  if (existing) return existing as Histogram<L>;
  return new Histogram({ ...config, registers: [metricsRegistry] });
}

/** Seconds since `startedAt` (a process.hrtime.bigint() reading). */
export function secondsSince(startedAt: bigint): number {
  return Number(process.hrtime.bigint() - startedAt) / 1e9;
}

/** "NOT_FOUND" for 5: status names read better on a dashboard than numbers. */
export function grpcStatusName(code: number): string {
  return GrpcStatus[code] ?? String(code);
}

// ---- gRPC -----------------------------------------------------------------------------------------

/**
 * Children of labelled metrics, cached: `labels()` hashes its arguments on every call, and these are
 * recorded on every RPC.
 */
function childCache<T>(make: (key: string[]) => T): (...key: string[]) => T {
  const children = new Map<string, T>();
  return (...key) => {
    const id = key.join('\u0000');
    let child = children.get(id);
    if (child === undefined) {
      child = make(key);
      children.set(id, child);
    }
    return child;
  };
}

let serverCalls:
  | {
      handled: (method: string, code: string) => { inc(): void };
      seconds: (method: string) => { observe(value: number): void };
    }
  | undefined;

/** Records one call this process's gRPC server finished (handlers.ts calls it for every RPC). */
export function recordGrpcServerCall(method: string, code: number, seconds: number): void {
  if (!serverCalls) {
    const handled = defineCounter({
      name: 'tix_grpc_server_handled_total',
      help: 'gRPC calls this server finished, by RPC and status code.',
      labelNames: ['method', 'code'] as const,
    });
    const handling = defineHistogram({
      name: 'tix_grpc_server_handling_seconds',
      help: 'Time from a gRPC call arriving to its reply, by RPC.',
      labelNames: ['method'] as const,
      buckets: LATENCY_BUCKETS,
    });
    serverCalls = {
      handled: childCache(([m, c]) => handled.labels(m!, c!)),
      seconds: childCache(([m]) => handling.labels(m!)),
    };
  }
  serverCalls.handled(method, grpcStatusName(code)).inc();
  serverCalls.seconds(method).observe(seconds);
}

let clientCalls:
  | {
      calls: (target: string, method: string, code: string) => { inc(): void };
      seconds: (target: string, method: string) => { observe(value: number): void };
    }
  | undefined;

/**
 * Records one call this process made to service `target` (client.ts). The label is `target_service`
 * because `service` already names the calling process on every series.
 */
export function recordGrpcClientCall(target: string, method: string, code: number, seconds: number): void {
  if (!clientCalls) {
    const calls = defineCounter({
      name: 'tix_grpc_client_calls_total',
      help: 'gRPC calls this process made, by called service, RPC and status code.',
      labelNames: ['target_service', 'method', 'code'] as const,
    });
    const latency = defineHistogram({
      name: 'tix_grpc_client_call_seconds',
      help: 'Time from sending a gRPC call to its reply (or failure), by called service and RPC.',
      labelNames: ['target_service', 'method'] as const,
      buckets: LATENCY_BUCKETS,
    });
    clientCalls = {
      calls: childCache(([t, m, c]) => calls.labels(t!, m!, c!)),
      seconds: childCache(([t, m]) => latency.labels(t!, m!)),
    };
  }
  clientCalls.calls(target, method, grpcStatusName(code)).inc();
  clientCalls.seconds(target, method).observe(seconds);
}

// ---- circuit breakers ------------------------------------------------------------------------------

/** Same words as grpc/breaker.ts's BreakerState (kept apart so metrics need not import the breaker). */
type CircuitState = 'closed' | 'half_open' | 'open';
export const BREAKER_STATE_VALUES: Record<CircuitState, number> = { closed: 0, half_open: 1, open: 2 };

/**
 * Sets `tix_circuit_breaker_state{target_service}` (0 closed, 1 half open, 2 open). The breaker
 * around a service client calls it when created ('closed') and on every transition (opossum's
 * 'open', 'halfOpen' and 'close' events).
 */
export function recordBreakerState(service: string, state: CircuitState): void {
  defineGauge({
    name: 'tix_circuit_breaker_state',
    help: 'Circuit breaker in front of a called service: 0 closed, 1 half open, 2 open.',
    labelNames: ['target_service'] as const,
  }).set({ target_service: service }, BREAKER_STATE_VALUES[state]);
}

// ---- outbox ------------------------------------------------------------------------------------

/** Counts unpublished outbox rows; each running relay registers one (a process usually has one). */
export type BacklogSource = () => Promise<number>;
const backlogSources = new Set<BacklogSource>();
let lastBacklog = 0;

/** The outbox metrics; the backlog gauge is measured when scraped (one indexed count per relay). */
export function outboxMetrics(): {
  published: Counter;
  failures: Counter;
  watchBacklog(source: BacklogSource): () => void;
} {
  defineGauge({
    name: 'tix_outbox_backlog',
    help: 'Domain events written to the outbox and not yet published to RabbitMQ (measured at scrape).',
    async collect() {
      if (backlogSources.size === 0) return;
      try {
        const counts = await Promise.all([...backlogSources].map((count) => count()));
        lastBacklog = counts.reduce((sum, count) => sum + count, 0);
      } catch {
        // The database is unreachable: keep the last value rather than fail the whole scrape.
      }
      this.set(lastBacklog);
    },
  });
  return {
    published: defineCounter({
      name: 'tix_outbox_published_total',
      help: 'Domain events the outbox relay published with a broker confirm.',
    }),
    failures: defineCounter({
      name: 'tix_outbox_publish_failures_total',
      help: 'Outbox batches whose publish failed (broker down or refusing); their events stay and are retried.',
    }),
    watchBacklog(source) {
      backlogSources.add(source);
      return () => backlogSources.delete(source);
    },
  };
}

// ---- durable timers ----------------------------------------------------------------------------

/** Counts due and dead-lettered timers; each running timer worker registers one. */
export type TimerCountSource = () => Promise<{ due: number; dead: number }>;
const timerSources = new Set<TimerCountSource>();
let lastTimerCounts = { due: 0, dead: 0 };
let timerMeasure: { at: number; done: Promise<void> } | undefined;

/** Lateness buckets (seconds): a timer fired 10 ms to 5 min after its instant. */
export const TIMER_LATENESS_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/** The timer worker's metrics (timers/worker.ts); the gauges are measured when scraped. */
export function timerMetrics(): {
  fired: Counter;
  failures: Counter;
  deadLettered: Counter;
  lateness: Histogram;
  watchCounts(source: TimerCountSource): () => void;
} {
  // Both gauges are collected in one scrape: one count (per second) serves both.
  const measure = (): Promise<void> => {
    if (timerSources.size === 0) return Promise.resolve();
    if (timerMeasure && Date.now() - timerMeasure.at < 1_000) return timerMeasure.done;
    const done = (async () => {
      try {
        const counts = await Promise.all([...timerSources].map((count) => count()));
        lastTimerCounts = counts.reduce((sum, c) => ({ due: sum.due + c.due, dead: sum.dead + c.dead }), {
          due: 0,
          dead: 0,
        });
      } catch {
        // The database is unreachable: keep the last values rather than fail the whole scrape.
      }
    })();
    timerMeasure = { at: Date.now(), done };
    return done;
  };
  defineGauge({
    name: 'tix_timers_due',
    help: 'Durable timers whose instant has passed and that have not fired yet (measured at scrape).',
    async collect() {
      await measure();
      this.set(lastTimerCounts.due);
    },
  });
  defineGauge({
    name: 'tix_timers_dead',
    help: 'Durable timers given up after their last attempt, kept with their last error (measured at scrape).',
    async collect() {
      await measure();
      this.set(lastTimerCounts.dead);
    },
  });
  return {
    fired: defineCounter({
      name: 'tix_timers_fired_total',
      help: 'Durable timers fired: their handler succeeded and the timer was deleted in one commit.',
    }),
    failures: defineCounter({
      name: 'tix_timer_failures_total',
      help: 'Durable timer handler attempts that threw or timed out (the timer is retried with backoff).',
    }),
    deadLettered: defineCounter({
      name: 'tix_timers_dead_lettered_total',
      help: 'Durable timers given up after their last attempt (kept, flagged with dead_at).',
    }),
    lateness: defineHistogram({
      name: 'tix_timer_lateness_seconds',
      help: "Time from a durable timer's instant to the commit that fired it.",
      buckets: TIMER_LATENESS_BUCKETS,
    }),
    watchCounts(source) {
      timerSources.add(source);
      return () => timerSources.delete(source);
    },
  };
}

// ---- the /metrics endpoint ----------------------------------------------------------------------------

export interface MetricsServer {
  host: string;
  /** The bound port (useful when started on port 0). */
  port: number;
  close(): Promise<void>;
}

export interface StartMetricsServerOptions {
  host: string;
  /** 0 binds any free port. */
  port: number;
  registry?: Registry;
}

/** Serves GET /metrics (Prometheus text format) and nothing else on host:port. */
export async function startMetricsServer(options: StartMetricsServerOptions): Promise<MetricsServer> {
  const registry = options.registry ?? metricsRegistry;
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      response
        .writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' })
        .end('Not found: try /metrics\n');
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' });
      response.end('Method not allowed\n');
      return;
    }
    registry.metrics().then(
      (text) => {
        response.writeHead(200, { 'Content-Type': registry.contentType });
        response.end(request.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        response.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
        response.end(`Cannot collect metrics: ${(error as Error).message}\n`);
      },
    );
  });
  server.headersTimeout = 5_000;
  server.requestTimeout = 10_000;
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
  let closing: Promise<void> | undefined;
  return {
    host: options.host,
    port,
    close() {
      // Prometheus keeps its connection alive between scrapes: close it rather than wait for it.
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/**
 * What main.ts does for metrics: label the process, then serve /metrics unless METRICS_PORT is 0.
 * A port that cannot be bound is logged, not fatal: metrics help operate a service and must not take
 * it down (Prometheus then reports the target down, which is alerted on).
 */
export async function startProcessMetrics(options: {
  service: FleetProcessName;
  host: string;
  port: number | null;
  logger: Logger;
}): Promise<MetricsServer | null> {
  initProcessMetrics(options.service);
  if (options.port === null) {
    options.logger.info('metrics endpoint disabled (METRICS_PORT=0)');
    return null;
  }
  try {
    const server = await startMetricsServer({ host: options.host, port: options.port });
    options.logger.info({ host: server.host, port: server.port }, 'metrics listening on /metrics');
    return server;
  } catch (error) {
    options.logger.error(
      { err: error, host: options.host, port: options.port },
      'cannot serve /metrics; running without it',
    );
    return null;
  }
}

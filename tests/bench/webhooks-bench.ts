/**
 * `pnpm bench --only webhooks`: the webhook path end to end (docs/benchmarks.md, "Webhooks"). The
 * fleet runs on free ports (fresh databases and vhost, as the main bench); a local receiver stands
 * in for the integrator.
 * 1. Latency: one subscription to ticket.created; tickets are created through the gateway one at a
 *    time, and each measures from sending the API request to the receiver getting the delivery
 *    (gateway -> ticket service -> outbox NOTIFY -> relay -> RabbitMQ -> consumer -> fan-out ->
 *    worker -> POST). Targets: p50 < 25 ms, p99 < 100 ms.
 * 2. Throughput: ten subscriptions to ticket.updated on the receiver. Events come from bulk updates
 *    through the gateway (one API write = one ticket.updated per ticket; creating tickets one by one
 *    cannot produce events fast enough on a small machine to load the webhook service).
 *    - sustained: `--rate` events/s (x10 deliveries) for `--duration` seconds; deliveries per second
 *      at the receiver over the load window (the first second left out), and how long the last
 *      deliveries lagged behind the load (near zero when the rate is sustainable);
 *    - capacity: a burst of `--burst` events written as fast as the API takes them, then the
 *      delivery rate from the first to the last delivery (the service working through a backlog).
 *    Every expected delivery must arrive exactly once. Target: >= 1,000 deliveries/s.
 *
 *   pnpm bench --only webhooks [--latency-samples 500] [--rate 150] [--duration 10] [--burst 2000]
 *                              [--subscriptions 10] [--log-level error]
 *                              [--out tests/bench/results/webhooks-latest.json]
 */
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startBenchFleet, teardownOnSignal, type BenchEnvironment } from './environment.js';
import {
  BULK_SIZE,
  measureCapacity,
  measureLatency,
  measureSustained,
  type WebhookApi,
} from './webhooks-measure.js';
import { startBenchReceiver, type BenchReceiver } from './webhooks-receiver.js';
import { readBenchCommandLine, type BenchRunOptions } from './command-line.js';

export const WEBHOOK_TARGETS = { p50Ms: 25, p99Ms: 100, deliveriesPerSecond: 1_000 } as const;

interface WebhookBenchOptions extends BenchRunOptions {
  latencySamples: number;
  warmup: number;
  duration: number;
  rate: number;
  burst: number;
  subscriptions: number;
}

/** Reads this bench's command line; throws a usage message naming the bad option. */
export function parseWebhookOptions(argv: string[]): WebhookBenchOptions {
  const args = readBenchCommandLine(argv, {
    integers: {
      'latency-samples': 500,
      warmup: 50,
      duration: 10,
      rate: 150,
      burst: 2_000,
      subscriptions: 10,
    },
    results: 'webhooks-latest.json',
  });
  return {
    latencySamples: args.integer['latency-samples'],
    warmup: args.integer.warmup,
    duration: args.integer.duration,
    rate: args.integer.rate,
    burst: args.integer.burst,
    subscriptions: args.integer.subscriptions,
    logLevel: args.logLevel,
    out: args.out,
  };
}

function log(message: string): void {
  process.stderr.write(`[bench webhooks] ${message}\n`);
}

interface Api extends WebhookApi {
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
}

function apiOf(environment: BenchEnvironment): Api {
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${environment.fleetUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${environment.apiKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as any };
  };
  return {
    call,
    async createTicket(title) {
      const created = await call('POST', '/v1/tickets', { ticket_type_id: environment.ticketTypeId, title });
      if (created.status !== 201)
        throw new Error(`ticket create answered ${created.status}: ${JSON.stringify(created.body)}`);
      return created.body.data.ticket.id as number;
    },
    async bulkPriority(ids, priority) {
      const updated = await call('POST', '/v1/tickets/bulk-update', { ticket_ids: ids, priority });
      if (updated.status !== 200)
        throw new Error(`bulk update answered ${updated.status}: ${JSON.stringify(updated.body)}`);
      return updated.body.data.success_count as number;
    },
  };
}

async function subscribe(
  api: Api,
  receiver: BenchReceiver,
  environment: BenchEnvironment,
  name: string,
  event: 'ticket.created' | 'ticket.updated',
) {
  const created = await api.call('POST', '/v1/webhooks', {
    url: `${receiver.url}/${name}`,
    events: [event],
    project_id: environment.project.id,
  });
  if (created.status !== 201)
    throw new Error(`webhook create answered ${created.status}: ${JSON.stringify(created.body)}`);
  receiver.secrets.set(`/${name}`, created.body.data.webhook.secret);
  return created.body.data.webhook.id as number;
}

/** Runs the webhook bench and prints / writes its figures. */
export async function runWebhookBench(argv: string[]): Promise<void> {
  const options = parseWebhookOptions(argv);
  const startedAt = new Date();
  const teardown = teardownOnSignal(log);
  try {
    log('starting the fleet');
    const environment = await startBenchFleet(teardown, options.logLevel);
    const receiver = await startBenchReceiver();
    teardown.add('stop the receiver', () => receiver.close());
    const api = apiOf(environment);

    log(`latency: ${options.warmup} warm-up + ${options.latencySamples} sequential creates`);
    const hook = await subscribe(api, receiver, environment, 'latency', 'ticket.created');
    const latency = await measureLatency(api, receiver, options);
    log(
      `latency p50 ${latency.p50Ms} ms, p99 ${latency.p99Ms} ms (API create alone p50 ${latency.apiCreateP50Ms} ms)`,
    );
    await api.call('DELETE', `/v1/webhooks/${hook}`);

    for (let i = 0; i < options.subscriptions; i += 1) {
      await subscribe(api, receiver, environment, `sub${i}`, 'ticket.updated');
    }
    const tickets: number[] = [];
    for (let i = 0; i < BULK_SIZE; i += 1) tickets.push(await api.createTicket(`Throughput ${i}`));
    log(
      `sustained: ${options.rate} events/s x ${options.subscriptions} subscriptions for ${options.duration} s`,
    );
    const sustained = await measureSustained(api, receiver, tickets, options);
    log(
      `${sustained.deliveriesPerSecondDuringLoad} deliveries/s during load, last delivery ` +
        `${sustained.lagAfterLoadMs} ms after it, ${sustained.missing} missing, ${sustained.duplicates} duplicates`,
    );
    log(`capacity: a burst of ${options.burst} events x ${options.subscriptions} subscriptions`);
    const webhooksUrl = environment.databaseUrls.find((url) => url.endsWith('tix_webhooks'));
    if (!webhooksUrl) throw new Error('the fleet has no webhook database');
    const webhooksDb = new pg.Pool({ connectionString: webhooksUrl, max: 1 });
    teardown.add('close the webhook database pool', () => webhooksDb.end());
    const capacity = await measureCapacity(api, receiver, tickets, options, webhooksDb);
    log(
      `${capacity.deliveriesPerSecond} deliveries/s through the backlog (fan-out of the burst took ` +
        `${capacity.fanOutSpanMs} ms), ` +
        `${capacity.missing} missing, ${capacity.duplicates} duplicates`,
    );

    const signatures = receiver.checked();
    const result = {
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? 'unknown', node: process.version },
      options: { ...options, out: undefined },
      targets: WEBHOOK_TARGETS,
      latency,
      sustained,
      capacity,
      signatures,
      met: {
        p50: latency.p50Ms < WEBHOOK_TARGETS.p50Ms,
        p99: latency.p99Ms < WEBHOOK_TARGETS.p99Ms,
        sustained:
          sustained.deliveriesPerSecondDuringLoad >= WEBHOOK_TARGETS.deliveriesPerSecond &&
          sustained.lagAfterLoadMs < 1_000,
        capacity: capacity.deliveriesPerSecond >= WEBHOOK_TARGETS.deliveriesPerSecond,
      },
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    await mkdir(path.dirname(options.out), { recursive: true });
    await writeFile(options.out, `${JSON.stringify(result, null, 2)}\n`);
    log(`wrote ${options.out}`);
    if (sustained.missing + capacity.missing > 0 || signatures.invalid > 0) process.exitCode = 1;
  } finally {
    log('cleaning up');
    await teardown.run();
  }
}

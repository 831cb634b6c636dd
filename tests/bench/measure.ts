/**
 * One measurement = one autocannon run of one operation against one target (the fleet through the
 * gateway, or the Express + pg baseline). Both targets serve the same /v1 paths with the same Bearer
 * key header, so the request plan below is shared and the comparison is like for like.
 */
import { randomInt } from 'node:crypto';
import autocannon from 'autocannon';
import { TICKET_PRIORITIES } from '@tix/protos';
import { cpuUse, type CpuByGroup, type CpuSnapshot, type CpuUse } from './cpu-usage.js';

export const OPERATIONS = [
  'get',
  'list',
  'page-deep',
  'cursor-deep',
  'status',
  'assignee',
  'tag',
  'q-rare',
  'q-common',
  'create',
  'board',
  'board-filter',
  'bulk',
] as const;
export type Operation = (typeof OPERATIONS)[number];

/** Operations the baseline has no route for (it lists by offset only): measured on the fleet alone. */
export const FLEET_ONLY: readonly Operation[] = ['cursor-deep'];

/** Operations that write: the data is put back (and the fleet's outbox drained) after each run. */
export const WRITES: readonly Operation[] = ['create', 'bulk'];

/** Tickets per bulk update (the spec's maximum). */
export const BULK_SIZE = 100;

export type TargetName = 'fleet' | 'baseline';

export interface Target {
  name: TargetName;
  /** Origin, e.g. http://127.0.0.1:8080 (paths start with /v1). */
  url: string;
  apiKey: string;
}

/** What the request plans need to know about the seeded data. */
export interface Workload {
  ticketTypeId: number;
  /** Seeded ticket ids are exactly firstId..lastId (one bulk insert into a fresh table). */
  firstId: number;
  lastId: number;
  /** List requests ask for a random page in 1..listPages (per_page 50). */
  listPages: number;
  /** The deep page (2,000, or the last page when the project has fewer) read by page-deep/cursor-deep. */
  deepPage: number;
  /** The fleet's `next_cursor` that lists deepPage (walked once before the runs); '' when not measured. */
  deepCursor: string;
  /** Filter values of the scale scenarios: a status slug, an assignee's user id, a tag, two words. */
  status: string;
  assigneeId: number;
  tag: string;
  rareWord: string;
  commonWord: string;
}

export const LIST_PER_PAGE = 50;

export interface Sample {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Responses counted (any status). */
  responses: number;
  non2xx: number;
  /** Connection errors and timeouts. */
  errors: number;
  /** Count per HTTP status of the non-2xx answers, for the report. */
  failedStatuses: Record<string, number>;
  /** Mean bytes per answer, headers included (autocannon's throughput over the responses). */
  bytesPerResponse?: number;
  /** Where the CPU went (Linux only). */
  cpu?: CpuUse;
}

export interface MeasureOptions {
  connections: number;
  durationSeconds: number;
  /** Set by the orchestrator so Ctrl-C can stop the run in progress. */
  onStart?: (stop: () => void) => void;
  /** Takes a CPU snapshot (cpu-usage.ts); called right before and right after the run. */
  cpuSnapshot?: () => Promise<CpuSnapshot | undefined>;
}

/** A create body nobody has sent before (the counter alone makes it unique within this process). */
let createCounter = 0;
function createBody(workload: Workload): string {
  createCounter += 1;
  return JSON.stringify({
    ticket_type_id: workload.ticketTypeId,
    title: `Bench ticket ${createCounter} ${randomInt(1_000_000_000)}`,
    description: `Created by pnpm bench (request ${createCounter}).`,
    priority: TICKET_PRIORITIES[createCounter % TICKET_PRIORITIES.length],
    tags: ['bench'],
  });
}

/** A block of BULK_SIZE consecutive seeded ids: concurrent bulk updates share a block or none. */
function bulkBody(workload: Workload): string {
  const blocks = Math.max(1, Math.floor((workload.lastId - workload.firstId + 1) / BULK_SIZE));
  const start = workload.firstId + randomInt(blocks) * BULK_SIZE;
  const count = Math.min(BULK_SIZE, workload.lastId - start + 1);
  return JSON.stringify({
    ticket_ids: Array.from({ length: count }, (_, index) => start + index),
    priority: TICKET_PRIORITIES[randomInt(TICKET_PRIORITIES.length)],
  });
}

/** The GET path of each read that always asks for the same thing. */
export function fixedPath(operation: Operation, workload: Workload): string | undefined {
  const list = `/v1/tickets?per_page=${LIST_PER_PAGE}`;
  switch (operation) {
    case 'page-deep':
      return `${list}&page=${workload.deepPage}`;
    case 'cursor-deep':
      return `${list}&cursor=${encodeURIComponent(workload.deepCursor)}`;
    case 'status':
      return `${list}&status=${encodeURIComponent(workload.status)}`;
    case 'assignee':
      return `${list}&assignee=${workload.assigneeId}`;
    case 'tag':
      return `${list}&tag=${encodeURIComponent(workload.tag)}`;
    case 'q-rare':
      return `/v1/tickets?q=${encodeURIComponent(workload.rareWord)}`;
    case 'q-common':
      return `/v1/tickets?q=${encodeURIComponent(workload.commonWord)}`;
    case 'board':
      return '/v1/board';
    case 'board-filter':
      return `/v1/board?assignee=${workload.assigneeId}`;
    default:
      return undefined;
  }
}

/**
 * The autocannon request sequence of one operation. `setupRequest` runs before every request, so
 * gets and lists pick a fresh random id/page and creates send a fresh body each time.
 */
export function requestPlan(operation: Operation, workload: Workload): autocannon.Request[] {
  switch (operation) {
    case 'get':
      return [
        {
          method: 'GET',
          setupRequest: (request) => ({
            ...request,
            path: `/v1/tickets/${randomInt(workload.firstId, workload.lastId + 1)}`,
          }),
        },
      ];
    case 'list':
      return [
        {
          method: 'GET',
          setupRequest: (request) => ({
            ...request,
            path: `/v1/tickets?page=${randomInt(1, workload.listPages + 1)}&per_page=${LIST_PER_PAGE}`,
          }),
        },
      ];
    case 'create':
      return [
        {
          method: 'POST',
          path: '/v1/tickets',
          setupRequest: (request) => ({ ...request, body: createBody(workload) }),
        },
      ];
    case 'bulk':
      return [
        {
          method: 'POST',
          path: '/v1/tickets/bulk-update',
          setupRequest: (request) => ({ ...request, body: bulkBody(workload) }),
        },
      ];
    default:
      return [{ method: 'GET', path: fixedPath(operation, workload)! }];
  }
}

/** Runs one autocannon measurement and reduces it to the figures the report shows. */
export async function measure(
  target: Target,
  operation: Operation,
  workload: Workload,
  options: MeasureOptions,
): Promise<Sample> {
  const cpuBefore = await options.cpuSnapshot?.();
  // Without a callback autocannon returns its Instance made thenable (the types only say Promise).
  const instance = autocannon({
    url: target.url,
    connections: options.connections,
    duration: options.durationSeconds,
    timeout: 30,
    headers: { authorization: `Bearer ${target.apiKey}`, 'content-type': 'application/json' },
    requests: requestPlan(operation, workload),
  }) as Promise<autocannon.Result> & autocannon.Instance;
  options.onStart?.(() => instance.stop());
  const result = await instance;
  const cpuAfter = await options.cpuSnapshot?.();
  const failedStatuses: Record<string, number> = {};
  for (const [status, stats] of Object.entries(result.statusCodeStats ?? {})) {
    if (!status.startsWith('2') && stats.count) failedStatuses[status] = stats.count;
  }
  const responses = result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx'];
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    responses,
    non2xx: result.non2xx,
    errors: result.errors,
    failedStatuses,
    bytesPerResponse: responses > 0 ? result.throughput.total / responses : 0,
    ...(cpuBefore && cpuAfter ? { cpu: cpuUse(cpuBefore, cpuAfter, responses) } : {}),
  };
}

/** The median of a non-empty list (mean of the two middle values for an even count). */
export function median(values: number[]): number {
  if (values.length === 0) throw new Error('median of nothing');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export interface Summary {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Totals over all rounds (must be 0). */
  non2xx: number;
  errors: number;
  failedStatuses: Record<string, number>;
  /** Median bytes per answer. */
  bytesPerResponse: number;
  /** Median CPU ms per request of each process group, and median machine busy share. */
  cpu?: { perRequestMs: CpuByGroup; machineBusy: number };
  samples: Sample[];
}

function medianCpu(samples: Sample[]): Summary['cpu'] {
  const uses = samples.flatMap((sample) => (sample.cpu ? [sample.cpu] : []));
  if (uses.length === 0) return undefined;
  const groups = new Set(uses.flatMap((use) => Object.keys(use.perRequestMs)));
  const perRequestMs: CpuByGroup = {};
  for (const group of groups) perRequestMs[group] = median(uses.map((use) => use.perRequestMs[group] ?? 0));
  return { perRequestMs, machineBusy: median(uses.map((use) => use.machineBusy)) };
}

/** Medians of req/s, p50 and p99 over the rounds; failure counts are summed, never medianed away. */
export function summarize(samples: Sample[]): Summary {
  const failedStatuses: Record<string, number> = {};
  for (const sample of samples) {
    for (const [status, count] of Object.entries(sample.failedStatuses)) {
      failedStatuses[status] = (failedStatuses[status] ?? 0) + count;
    }
  }
  const cpu = medianCpu(samples);
  return {
    requestsPerSecond: median(samples.map((sample) => sample.requestsPerSecond)),
    p50Ms: median(samples.map((sample) => sample.p50Ms)),
    p99Ms: median(samples.map((sample) => sample.p99Ms)),
    bytesPerResponse: median(samples.map((sample) => sample.bytesPerResponse ?? 0)),
    non2xx: samples.reduce((sum, sample) => sum + sample.non2xx, 0),
    errors: samples.reduce((sum, sample) => sum + sample.errors, 0),
    failedStatuses,
    ...(cpu ? { cpu } : {}),
    samples,
  };
}

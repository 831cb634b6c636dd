/**
 * Before anything is timed: one request of each operation to each target, which must answer 2xx, and
 * the fleet's and the baseline's JSON must have the same shape (same keys at every level that
 * matters), so the bench compares the same work. Differences become report warnings; a target that
 * cannot answer at all stops the bench with a message saying what is missing.
 */
import {
  BULK_SIZE,
  FLEET_ONLY,
  fixedPath,
  LIST_PER_PAGE,
  type Operation,
  type Target,
  type Workload,
} from './measure.js';

interface Probe {
  status: number;
  body: any;
}

async function probe(target: Target, operation: Operation, workload: Workload): Promise<Probe> {
  const headers = { authorization: `Bearer ${target.apiKey}`, 'content-type': 'application/json' };
  const writes: Partial<Record<Operation, [string, RequestInit]>> = {
    get: [`/v1/tickets/${workload.lastId}`, { headers }],
    list: [`/v1/tickets?page=1&per_page=${LIST_PER_PAGE}`, { headers }],
    create: [
      '/v1/tickets',
      {
        method: 'POST',
        headers,
        body: JSON.stringify({ ticket_type_id: workload.ticketTypeId, title: 'Bench shape check' }),
      },
    ],
    bulk: [
      '/v1/tickets/bulk-update',
      {
        method: 'POST',
        headers,
        body: JSON.stringify({
          ticket_ids: Array.from({ length: BULK_SIZE }, (_, index) => workload.firstId + index),
          priority: 'medium',
        }),
      },
    ],
  };
  const [path, init] = writes[operation] ?? [fixedPath(operation, workload)!, { headers }];
  const response = await fetch(`${target.url}${path}`, { ...init, signal: AbortSignal.timeout(30_000) });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: response.status, body };
}

/** Sorted key list of an object ('' for anything else), for shape comparison. */
function keysOf(value: unknown): string {
  return value && typeof value === 'object' && !Array.isArray(value)
    ? Object.keys(value).sort().join(',')
    : '';
}

/** The shapes that must agree: envelope, data, one ticket, and pagination / lane keys. */
function shape(operation: Operation, body: any): Record<string, string> {
  const data = body?.data;
  const board = operation === 'board' || operation === 'board-filter';
  const ticket = Array.isArray(data?.tickets)
    ? data.tickets[0]
    : board
      ? Object.values((data?.lanes ?? {}) as Record<string, unknown[]>).find((lane) => lane.length > 0)?.[0]
      : data?.ticket;
  return {
    envelope: keysOf(body),
    data: keysOf(data),
    ticket: keysOf(ticket),
    ...(data?.pagination ? { pagination: keysOf(data.pagination) } : {}),
    ...(board ? { lanes: keysOf(data?.lanes), counts: keysOf(data?.counts) } : {}),
  };
}

/**
 * Probes every operation on every target; throws when one does not answer 2xx (naming the route
 * when the gateway says it has none), returns warnings for shape differences.
 */
export async function checkShapes(
  targets: Target[],
  operations: readonly Operation[],
  workload: Workload,
): Promise<string[]> {
  const warnings: string[] = [];
  for (const operation of operations) {
    const shapes = new Map<string, Record<string, string>>();
    for (const target of targets) {
      if (FLEET_ONLY.includes(operation) && target.name !== 'fleet') continue;
      const { status, body } = await probe(target, operation, workload);
      if (status < 200 || status > 299) {
        const message = JSON.stringify(body).slice(0, 300);
        const missingRoute = /Route \w+ \S+ not found/.test(message);
        throw new Error(
          missingRoute
            ? `the gateway has no ticket routes yet (${operation} answered ${status} ${message}); ` +
                'run `pnpm bench --baseline-only` to measure the baseline alone'
            : `${operation} on ${target.name} answered ${status}: ${message}`,
        );
      }
      shapes.set(target.name, shape(operation, body));
    }
    const [first, second] = [...shapes.entries()];
    if (first && second) {
      for (const [part, keys] of Object.entries(first[1])) {
        if (second[1][part] !== keys) {
          warnings.push(
            `${operation}: ${part} differs: ${first[0]} [${keys}] vs ${second[0]} [${second[1][part]}]`,
          );
        }
      }
    }
  }
  return warnings;
}

/**
 * What a person reads at the end of `pnpm bench` (one table per operation, then the low-concurrency
 * latency check), and the machine-readable JSON written beside it.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Operation, Summary, TargetName } from './measure.js';

/**
 * The targets (docs/benchmarks.md, "The targets"): fleet req/s as a share of the baseline's for
 * get, list, create and board, and the fleet's p99 at low concurrency for list and board.
 */
export const RATIO_TARGETS: Partial<Record<Operation, number>> = {
  get: 0.65,
  list: 0.6,
  create: 0.4,
  board: 1.5,
};
export const LOW_CONCURRENCY_P99_TARGET_MS = 25;

export const OPERATION_TITLES: Record<Operation, string> = {
  get: 'get one ticket   GET /v1/tickets/{id}',
  list: 'list 50          GET /v1/tickets?page=N&per_page=50',
  'page-deep': 'deep page        GET /v1/tickets?per_page=50&page=<deep page> (offset)',
  'cursor-deep': 'deep page        GET /v1/tickets?per_page=50&cursor=<its cursor> (fleet only)',
  status: 'list by status   GET /v1/tickets?per_page=50&status=<slug>',
  assignee: 'list by assignee GET /v1/tickets?per_page=50&assignee=<id>',
  tag: 'list by tag      GET /v1/tickets?per_page=50&tag=<common tag>',
  'q-rare': 'search rare word GET /v1/tickets?q=<rare word> (every match)',
  'q-common': 'search common    GET /v1/tickets?q=<common word> (every match)',
  create: 'create           POST /v1/tickets',
  board: 'board            GET /v1/board',
  'board-filter': 'board filtered   GET /v1/board?assignee=<id>',
  bulk: 'bulk update 100  POST /v1/tickets/bulk-update (priority)',
};

export type PerTarget = Partial<Record<TargetName, Summary>>;

export interface BenchResult {
  startedAt: string;
  finishedAt: string;
  machine: {
    cpus: number;
    cpuModel: string;
    memoryGiB: number;
    node: string;
    platform: string;
    postgres: string;
  };
  options: Record<string, unknown>;
  seeding: {
    tickets: number;
    milliseconds: number;
    ticketsPerSecond: number;
    /** Projects the tickets are spread over; the first is the measured one. */
    projects?: number;
    /** Tickets of the measured project, and the deep page the scale scenarios read. */
    projectTickets?: number;
    deepPage?: number;
    /** How long walking the fleet's cursor to the deep page took (ms), once before the runs. */
    cursorWalkMs?: number;
  };
  /** Main pass (options.connections). */
  results: Partial<Record<Operation, PerTarget>>;
  /** Low-concurrency pass (options.lowConnections), list and board only. */
  lowConcurrency: Partial<Record<Operation, PerTarget>>;
  /** Anything the reader must know (non-2xx answers, skipped targets). */
  warnings: string[];
}

/** The machine facts the report and docs/benchmarks.md show. */
export function describeMachine(postgresVersion: string): BenchResult['machine'] {
  return {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model.trim() ?? 'unknown',
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    postgres: postgresVersion,
  };
}

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const decimal = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1, minimumFractionDigits: 1 });

function percent(value: number): string {
  return `${Math.round(value * 100)}%`;
}

/** fleet req/s divided by baseline req/s, when both ran. */
export function ratio(perTarget: PerTarget | undefined): number | undefined {
  const fleet = perTarget?.fleet;
  const baseline = perTarget?.baseline;
  if (!fleet || !baseline || baseline.requestsPerSecond === 0) return undefined;
  return fleet.requestsPerSecond / baseline.requestsPerSecond;
}

function row(cells: string[], widths: number[]): string {
  return cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
}

function targetRows(perTarget: PerTarget): string[] {
  const widths = [10, 10, 9, 9, 10, 9];
  const lines = [row(['', 'req/s', 'p50 ms', 'p99 ms', 'KiB/answer', 'non-2xx'], widths)];
  for (const name of ['fleet', 'baseline'] as const) {
    const summary = perTarget[name];
    if (!summary) continue;
    const failures = summary.non2xx + summary.errors;
    lines.push(
      row(
        [
          name,
          integer.format(summary.requestsPerSecond),
          decimal.format(summary.p50Ms),
          decimal.format(summary.p99Ms),
          decimal.format((summary.bytesPerResponse ?? 0) / 1024),
          failures === 0 ? '0' : `${failures} !`,
        ],
        widths,
      ),
    );
  }
  return lines;
}

/** Process groups as the report names them. */
const GROUP_LABELS: Record<string, string> = { bench: 'autocannon' };

/** `gateway 0.61 · tickets 0.40 · ... (machine 99% busy)`: CPU ms per request, largest first. */
function cpuLine(summary: Summary): string | undefined {
  if (!summary.cpu) return undefined;
  const parts = Object.entries(summary.cpu.perRequestMs)
    .filter(([, ms]) => ms >= 0.005)
    .sort((a, b) => b[1] - a[1])
    .map(([group, ms]) => `${GROUP_LABELS[group] ?? group} ${ms.toFixed(2)}`);
  return `${parts.join(' · ')}  (machine ${percent(summary.cpu.machineBusy)} busy)`;
}

function cpuRows(perTarget: PerTarget): string[] {
  const lines: string[] = [];
  for (const name of ['fleet', 'baseline'] as const) {
    const summary = perTarget[name];
    const line = summary && cpuLine(summary);
    if (line) lines.push(`${lines.length === 0 ? 'CPU ms/request' : ''.padEnd(14)}  ${name}: ${line}`);
  }
  return lines;
}

/** The report as text: one block per operation, then the low-concurrency p99 check. */
export function formatReport(result: BenchResult): string {
  const options = result.options;
  const lines: string[] = [];
  lines.push('');
  lines.push(
    `Seeded ${integer.format(result.seeding.tickets)} tickets in ${decimal.format(
      result.seeding.milliseconds / 1000,
    )} s (${integer.format(result.seeding.ticketsPerSecond)} tickets/s).`,
  );
  if (result.seeding.projects !== undefined) {
    lines.push(
      `Spread over ${result.seeding.projects} project(s); the measured one has ` +
        `${integer.format(result.seeding.projectTickets ?? 0)} tickets, deep page ${result.seeding.deepPage}. ` +
        'The baseline reads the same database, so both sides are measured on the same seeded data.',
    );
  }
  if (result.seeding.cursorWalkMs !== undefined) {
    lines.push(
      `Walking the fleet's cursor to the deep page took ${decimal.format(result.seeding.cursorWalkMs / 1000)} s.`,
    );
  }
  lines.push(
    `Medians of ${String(options.rounds)} interleaved rounds x ${String(options.duration)} s, ` +
      `${String(options.connections)} connections. Machine: ${result.machine.cpus} x ${result.machine.cpuModel}, ` +
      `${result.machine.memoryGiB} GiB, Node ${result.machine.node}, ${result.machine.postgres}.`,
  );
  lines.push(
    options.baselinePrepared
      ? 'Baseline: Express + pg with named (prepared) statements, as the ticket service sends its SQL.'
      : 'Baseline: Express + pg with plain parameterised queries (--baseline-prepared: named statements).',
  );
  for (const [operation, perTarget] of Object.entries(result.results) as [Operation, PerTarget][]) {
    lines.push('');
    lines.push(OPERATION_TITLES[operation]);
    lines.push(...targetRows(perTarget).map((line) => `  ${line}`));
    // The baseline has no cursor: the fleet's cursor page is set against the baseline's offset page.
    const offsetBaseline = result.results['page-deep']?.baseline;
    if (operation === 'cursor-deep' && perTarget.fleet && offsetBaseline) {
      lines.push(
        `  fleet cursor / baseline offset req/s: ${percent(ratio({ fleet: perTarget.fleet, baseline: offsetBaseline })!)}`,
      );
    }
    const value = ratio(perTarget);
    if (value !== undefined) {
      const target = RATIO_TARGETS[operation];
      const verdict =
        target === undefined
          ? '(no target)'
          : `(target >= ${percent(target)}: ${value >= target ? 'met' : 'NOT met'})`;
      lines.push(`  fleet/baseline req/s: ${percent(value)} ${verdict}`);
    }
    lines.push(...cpuRows(perTarget).map((line) => `  ${line}`));
  }
  const low = Object.entries(result.lowConcurrency) as [Operation, PerTarget][];
  if (low.length > 0) {
    lines.push('');
    lines.push(
      `p99 at ${String(options.lowConnections)} connections (target: fleet p99 < ${LOW_CONCURRENCY_P99_TARGET_MS} ms)`,
    );
    for (const [operation, perTarget] of low) {
      lines.push(`  ${OPERATION_TITLES[operation]}`);
      lines.push(...targetRows(perTarget).map((line) => `    ${line}`));
      const fleet = perTarget.fleet;
      if (fleet) {
        const met = fleet.p99Ms < LOW_CONCURRENCY_P99_TARGET_MS;
        lines.push(`    fleet p99 ${decimal.format(fleet.p99Ms)} ms: ${met ? 'met' : 'NOT met'}`);
      }
    }
  }
  if (result.warnings.length > 0) {
    lines.push('');
    lines.push('Warnings:');
    lines.push(...result.warnings.map((warning) => `  - ${warning}`));
  }
  lines.push('');
  return lines.join('\n');
}

/** Failures a reader must see: any non-2xx answer or connection error in any round. */
export function failureWarnings(pass: string, results: Partial<Record<Operation, PerTarget>>): string[] {
  const warnings: string[] = [];
  for (const [operation, perTarget] of Object.entries(results) as [Operation, PerTarget][]) {
    for (const [name, summary] of Object.entries(perTarget) as [TargetName, Summary][]) {
      if (summary.non2xx > 0 || summary.errors > 0) {
        warnings.push(
          `${pass} ${operation} on ${name}: ${summary.non2xx} non-2xx answers ` +
            `(${JSON.stringify(summary.failedStatuses)}), ${summary.errors} connection errors/timeouts`,
        );
      }
      // A run in which nothing came back (every request still pending at its end) failed too.
      const silent = summary.samples.filter((sample) => sample.responses === 0).length;
      if (silent > 0) {
        warnings.push(
          `${pass} ${operation} on ${name}: no answer at all in ${silent} run(s) (counted as non-2xx)`,
        );
      }
    }
  }
  return warnings;
}

/** Writes the JSON result (creating the folder) and returns its path. */
export async function writeResult(result: BenchResult, file: string): Promise<string> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(result, null, 2)}\n`);
  return file;
}

/**
 * Where a run's CPU went, per process group, read from Linux /proc (elsewhere every figure is
 * absent): the fleet's processes and the baseline (this process's descendants, told apart by their
 * entry file), this process (autocannon: the load generator), and the PostgreSQL backends serving
 * the bench's databases (from pg_stat_activity). Divided by the responses of the run this gives CPU
 * milliseconds per request, the figure that explains a throughput gap on a CPU-bound machine.
 * Backends that start and end within a run are missed; clock ticks are 10 ms, ample over seconds.
 */
import { readdir, readFile } from 'node:fs/promises';
import os from 'node:os';

/** CPU milliseconds (user + system) per group. */
export type CpuByGroup = Record<string, number>;

export interface CpuSnapshot {
  byGroup: CpuByGroup;
  /** CPU milliseconds of each PostgreSQL backend serving the bench's databases. */
  postgresByPid: Map<number, number>;
  /** Whole machine, from /proc/stat: busy and total milliseconds across all CPUs. */
  machineBusyMs: number;
  machineTotalMs: number;
}

/** Clock ticks per second of /proc's times (USER_HZ, 100 on Linux). */
const TICK_MS = 10;

const ENTRY_GROUPS: [RegExp, (match: RegExpExecArray) => string][] = [
  [/\/gateway\/src\/main\.ts/, () => 'gateway'],
  [/\/services\/([a-z-]+)\/src\/main\.ts/, (match) => match[1]!],
  [/\/tests\/bench\/baseline-process\.ts/, () => 'baseline'],
  [/\/deploy\/local\/src\/s3-server\.ts/, () => 's3'],
];

interface ProcessInfo {
  pid: number;
  ppid: number;
  cpuMs: number;
}

async function readProcess(pid: number): Promise<ProcessInfo | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name, which may itself contain spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ppid = Number(fields[1]);
    const ticks = Number(fields[11]) + Number(fields[12]);
    return { pid, ppid, cpuMs: ticks * TICK_MS };
  } catch {
    return undefined; // gone meanwhile
  }
}

async function groupOf(pid: number): Promise<string | undefined> {
  try {
    const cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).replace(/\0/g, ' ');
    for (const [pattern, name] of ENTRY_GROUPS) {
      const match = pattern.exec(cmdline);
      if (match) return name(match);
    }
  } catch {
    // gone meanwhile
  }
  return undefined;
}

async function machineTimes(): Promise<{ busyMs: number; totalMs: number }> {
  const line = (await readFile('/proc/stat', 'utf8')).split('\n')[0]!;
  const ticks = line.trim().split(/\s+/).slice(1).map(Number);
  const total = ticks.reduce((sum, value) => sum + value, 0);
  const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0); // idle + iowait
  return { busyMs: (total - idle) * TICK_MS, totalMs: total * TICK_MS };
}

/**
 * CPU time so far of each group: `bench` (this process), the groups of its descendants, and
 * `postgres` (the backends whose pids are given). Undefined where /proc does not exist.
 */
export async function cpuSnapshot(postgresPids: readonly number[]): Promise<CpuSnapshot | undefined> {
  if (os.platform() !== 'linux') return undefined;
  const entries = await readdir('/proc').catch(() => []);
  const processes = (
    await Promise.all(
      entries.filter((name) => /^[0-9]+$/.test(name)).map((name) => readProcess(Number(name))),
    )
  ).filter((info): info is ProcessInfo => info !== undefined);
  const byPid = new Map(processes.map((info) => [info.pid, info]));
  const isDescendant = (info: ProcessInfo) => {
    for (let parent = byPid.get(info.ppid); parent; parent = byPid.get(parent.ppid)) {
      if (parent.pid === process.pid) return true;
    }
    return false;
  };
  const byGroup: CpuByGroup = { bench: byPid.get(process.pid)?.cpuMs ?? 0 };
  for (const info of processes) {
    if (!isDescendant(info)) continue;
    const group = await groupOf(info.pid);
    if (group) byGroup[group] = (byGroup[group] ?? 0) + info.cpuMs;
  }
  const postgresByPid = new Map<number, number>();
  for (const pid of postgresPids) {
    const info = byPid.get(pid);
    if (info) postgresByPid.set(pid, info.cpuMs);
  }
  const machine = await machineTimes();
  return { byGroup, postgresByPid, machineBusyMs: machine.busyMs, machineTotalMs: machine.totalMs };
}

export interface CpuUse {
  /** CPU milliseconds per response, per group (groups that used none are left out). */
  perRequestMs: CpuByGroup;
  /** Share of the whole machine's CPU that was busy during the run (0..1). */
  machineBusy: number;
}

/**
 * What happened between two snapshots, per response. A backend first seen in `after` was opened
 * during the run (pools grow under load), so all of its time counts.
 */
export function cpuUse(before: CpuSnapshot, after: CpuSnapshot, responses: number): CpuUse {
  const used: CpuByGroup = {};
  for (const [group, ms] of Object.entries(after.byGroup)) used[group] = ms - (before.byGroup[group] ?? 0);
  used.postgres = 0;
  for (const [pid, ms] of after.postgresByPid) used.postgres += ms - (before.postgresByPid.get(pid) ?? 0);
  const perRequestMs: CpuByGroup = {};
  for (const [group, ms] of Object.entries(used)) {
    if (ms > 0 && responses > 0) perRequestMs[group] = ms / responses;
  }
  const total = after.machineTotalMs - before.machineTotalMs;
  return {
    perRequestMs,
    machineBusy: total > 0 ? (after.machineBusyMs - before.machineBusyMs) / total : 0,
  };
}

/**
 * Waits until the servers (every group but this process) use less than 10% of one CPU over a
 * quarter second, or `timeoutMs` passes: requests a run abandoned at its end are still being served
 * for a moment, and must not be billed to the next run. Without /proc it waits one second.
 */
export async function waitUntilQuiet(
  snapshot: () => Promise<CpuSnapshot | undefined>,
  timeoutMs = 10_000,
): Promise<{ waitedMs: number; quiet: boolean }> {
  const windowMs = 250;
  const started = Date.now();
  const deadline = started + timeoutMs;
  let before = await snapshot();
  if (!before) {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    return { waitedMs: Date.now() - started, quiet: true };
  }
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    const after = await snapshot();
    if (!after) break;
    const { perRequestMs } = cpuUse(before, after, 1);
    const serversMs = Object.entries(perRequestMs)
      .filter(([group]) => group !== 'bench')
      .reduce((sum, [, ms]) => sum + ms, 0);
    if (serversMs < windowMs * 0.1) return { waitedMs: Date.now() - started, quiet: true };
    before = after;
  }
  return { waitedMs: Date.now() - started, quiet: false };
}

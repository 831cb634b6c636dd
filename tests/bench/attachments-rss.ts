/**
 * Memory of other processes, from /proc (Linux): which process listens on a TCP port (so the bench
 * finds the gateway and the attachment service the launcher started), and its resident set size
 * (VmRSS) sampled every 20 ms with the peak kept.
 */
import { readdir, readFile, readlink } from 'node:fs/promises';

/** VmRSS of `pid` in bytes; undefined when the process is gone. */
export async function residentBytes(pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Socket inodes listening on `port` (IPv4 and IPv6). */
async function listeningInodes(port: number): Promise<Set<string>> {
  const inodes = new Set<string>();
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(table, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address is "ADDR:PORT"; st 0A is LISTEN; the inode is the 10th field.
      if (fields.length > 9 && fields[1]!.endsWith(`:${hexPort}`) && fields[3] === '0A')
        inodes.add(fields[9]!);
    }
  }
  return inodes;
}

/** The process listening on TCP `port` on this machine; throws when none is found. */
export async function pidListeningOn(port: number): Promise<number> {
  const inodes = await listeningInodes(port);
  if (inodes.size > 0) {
    for (const entry of await readdir('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const fds = await readdir(`/proc/${entry}/fd`).catch(() => [] as string[]);
      for (const fd of fds) {
        const target = await readlink(`/proc/${entry}/fd/${fd}`).catch(() => '');
        const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
        if (inode && inodes.has(inode)) return Number(entry);
      }
    }
  }
  throw new Error(`no process found listening on port ${port}`);
}

export interface RssSampler {
  /** The highest RSS seen since start (or the last reset), in bytes. */
  peak(): number;
  /** The most recent sample, in bytes. */
  last(): number;
  reset(): void;
  stop(): void;
}

/** Samples `pid`'s VmRSS every `intervalMs` (default 20 ms) until stop(). */
export function sampleRss(pid: number, intervalMs = 20): RssSampler {
  let peak = 0;
  let last = 0;
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    void residentBytes(pid).then((bytes) => {
      busy = false;
      if (bytes === undefined) return;
      last = bytes;
      peak = Math.max(peak, bytes);
    });
  }, intervalMs);
  return {
    peak: () => peak,
    last: () => last,
    reset() {
      peak = last;
    },
    stop: () => clearInterval(timer),
  };
}

/** The median VmRSS of `pid` over `durationMs` (sampled every 20 ms): its idle level. */
export async function idleRss(pid: number, durationMs = 1_000): Promise<number> {
  const samples: number[] = [];
  const deadline = Date.now() + durationMs;
  while (Date.now() < deadline) {
    const bytes = await residentBytes(pid);
    if (bytes !== undefined) samples.push(bytes);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)] ?? 0;
}

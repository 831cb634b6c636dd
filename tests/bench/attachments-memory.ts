/**
 * `pnpm bench --only uploads`: memory of the attachment path under load (docs/benchmarks.md). The
 * fleet is started on free ports (fresh databases, vhost and S3 folder); after 50 small round
 * trips, the idle RSS of the gateway and of the attachment service is taken (and again after
 * `--warmup` sequential full-size round trips, reported beside it), then ten 20 MB uploads run in
 * parallel, then ten parallel downloads of them, while each process's VmRSS is sampled every 20 ms.
 * The target: each process's peak stays less than 50 MB above its idle RSS (files stream through;
 * nothing holds one whole). Every download is checked byte for byte (SHA-256).
 *
 *   pnpm bench --only uploads [--files 10] [--size-mb 20] [--budget-mb 50] [--warmup 1]
 *                             [--log-level error] [--out tests/bench/results/attachments-latest.json]
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sampleRss, type RssSampler } from './attachments-rss.js';
import { downloadOnce, idleOf, startWorld, uploadOnce } from './attachments-world.js';
import { teardownOnSignal } from './environment.js';
import { readBenchCommandLine, type BenchRunOptions } from './command-line.js';

const MB = 1024 * 1024;
/** 64 KiB uploads and downloads before the idle RSS is taken. */
const SMALL_WARMUP_ROUND_TRIPS = 50;

interface UploadsBenchOptions extends BenchRunOptions {
  files: number;
  sizeMb: number;
  budgetMb: number;
  warmup: number;
}

/** Reads this bench's command line; throws a usage message naming the bad option. */
export function parseUploadsOptions(argv: string[]): UploadsBenchOptions {
  const args = readBenchCommandLine(argv, {
    integers: { warmup: 1, files: 10, 'size-mb': 20, 'budget-mb': 50 },
    results: 'attachments-latest.json',
  });
  return {
    files: args.integer.files,
    sizeMb: args.integer['size-mb'],
    budgetMb: args.integer['budget-mb'],
    warmup: args.integer.warmup,
    logLevel: args.logLevel,
    out: args.out,
  };
}

function log(message: string): void {
  process.stderr.write(`[bench uploads] ${message}\n`);
}

const mb = (bytes: number) => Math.round((bytes / MB) * 10) / 10;

interface PhaseFigures {
  peakBytes: number;
  growthBytes: number;
}

/** Runs `work` while sampling both processes; returns each one's peak and growth over `idle`. */
async function measurePhase(
  samplers: Record<'gateway' | 'attachments', RssSampler>,
  idle: Record<'gateway' | 'attachments', number>,
  work: () => Promise<void>,
): Promise<Record<'gateway' | 'attachments', PhaseFigures>> {
  samplers.gateway.reset();
  samplers.attachments.reset();
  await work();
  await new Promise((resolve) => setTimeout(resolve, 100));
  const figures = (name: 'gateway' | 'attachments') => ({
    peakBytes: samplers[name].peak(),
    growthBytes: samplers[name].peak() - idle[name],
  });
  return { gateway: figures('gateway'), attachments: figures('attachments') };
}

/** The bench (see the file header). */
export async function runUploadsBench(argv: string[]): Promise<void> {
  const options = parseUploadsOptions(argv);
  const teardown = teardownOnSignal();
  try {
    log('starting the fleet');
    const world = await startWorld(teardown, options.logLevel);
    const size = options.sizeMb * MB;
    const payload = randomBytes(size);
    // A whole 1x1 PNG first, so that the type is recognised (random bytes follow).
    Buffer.from(
      '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a0d6b5e70000000049454e44ae426082',
      'hex',
    ).copy(payload);
    const expected = createHash('sha256').update(payload).digest('hex');
    const file = new Blob([payload], { type: 'image/png' });

    // The idle level the target is measured against: after small round trips (code loaded and
    // compiled, connections open, as in a server that has been serving), before any large transfer.
    log('warming up with small files');
    const small = new Blob([payload.subarray(0, 64 * 1024)], { type: 'image/png' });
    for (let i = 0; i < SMALL_WARMUP_ROUND_TRIPS; i += 1) {
      await downloadOnce(world, await uploadOnce(world, small, 'warmup.png'));
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const idle = await idleOf(world);
    log(`idle RSS: gateway ${mb(idle.gateway)} MB, attachments ${mb(idle.attachments)} MB`);

    // Then sequential full-size round trips (one at a time): what a process keeps after its first
    // large transfers (JIT-compiled code, grown heap and allocator pools) is reported separately.
    for (let i = 0; i < options.warmup; i += 1) {
      const hash = await downloadOnce(world, await uploadOnce(world, file, 'warmup.png'));
      if (hash !== expected) throw new Error('a warm-up download differs from what was uploaded');
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const warmIdle = options.warmup > 0 ? await idleOf(world) : idle;
    if (options.warmup > 0) {
      log(
        `after ${options.warmup} sequential round trip(s): gateway ${mb(warmIdle.gateway)} MB, attachments ${mb(warmIdle.attachments)} MB`,
      );
    }

    const samplers = {
      gateway: sampleRss(world.pids.gateway),
      attachments: sampleRss(world.pids.attachments),
    };
    teardown.add('stop sampling', () => {
      samplers.gateway.stop();
      samplers.attachments.stop();
      return Promise.resolve();
    });

    const ids: number[] = [];
    let startedAt = Date.now();
    const uploads = await measurePhase(samplers, idle, async () => {
      ids.push(
        ...(await Promise.all(
          Array.from({ length: options.files }, (_, i) => uploadOnce(world, file, `bench-${i}.png`)),
        )),
      );
    });
    const uploadSeconds = (Date.now() - startedAt) / 1000;
    log(`${options.files} uploads of ${options.sizeMb} MB in ${uploadSeconds.toFixed(1)} s`);

    startedAt = Date.now();
    let hashes: string[] = [];
    const downloads = await measurePhase(samplers, idle, async () => {
      hashes = await Promise.all(ids.map((id) => downloadOnce(world, id)));
    });
    const downloadSeconds = (Date.now() - startedAt) / 1000;
    log(`${ids.length} downloads in ${downloadSeconds.toFixed(1)} s`);
    samplers.gateway.stop();
    samplers.attachments.stop();

    const corrupt = hashes.filter((hash) => hash !== expected).length;
    const budget = options.budgetMb * MB;
    const rows = (['gateway', 'attachments'] as const).map((name) => {
      const growth = Math.max(uploads[name].growthBytes, downloads[name].growthBytes);
      return {
        process: name,
        pid: world.pids[name],
        idle_mb: mb(idle[name]),
        idle_after_warmup_mb: mb(warmIdle[name]),
        upload_peak_mb: mb(uploads[name].peakBytes),
        download_peak_mb: mb(downloads[name].peakBytes),
        growth_over_idle_mb: mb(growth),
        growth_over_warm_idle_mb: mb(
          Math.max(uploads[name].peakBytes, downloads[name].peakBytes) - warmIdle[name],
        ),
        within_budget: growth < budget,
      };
    });
    const lines = [
      `Attachment memory: ${options.files} parallel ${options.sizeMb} MB uploads, then ${ids.length} parallel downloads`,
      `(VmRSS sampled every 20 ms; target: peak < idle + ${options.budgetMb} MB per process; idle = after ` +
        `${SMALL_WARMUP_ROUND_TRIPS}`,
      ` 64 KiB round trips; "warm idle" = after ${options.warmup} more sequential ${options.sizeMb} MB round trip(s))`,
      '',
      'process       idle   warm idle   upload peak   download peak   growth over idle (warm idle)   within budget',
      ...rows.map(
        (row) =>
          `${row.process.padEnd(12)} ${String(row.idle_mb).padStart(6)}   ${String(row.idle_after_warmup_mb).padStart(9)}   ` +
          `${String(row.upload_peak_mb).padStart(11)}   ${String(row.download_peak_mb).padStart(13)}   ` +
          `${`+${row.growth_over_idle_mb} (+${row.growth_over_warm_idle_mb})`.padEnd(29)}  ${row.within_budget ? 'yes' : 'NO'}`,
      ),
      '(MB)',
      '',
      `uploads ${uploadSeconds.toFixed(1)} s, downloads ${downloadSeconds.toFixed(1)} s; ` +
        `${ids.length - corrupt}/${ids.length} downloads byte-identical`,
      '',
    ];
    process.stdout.write(lines.join('\n'));
    await mkdir(path.dirname(options.out), { recursive: true });
    await writeFile(
      options.out,
      `${JSON.stringify(
        {
          finishedAt: new Date().toISOString(),
          machine: { cpus: os.cpus().length, totalMemoryMb: mb(os.totalmem()), node: process.version },
          options: { ...options, out: undefined },
          uploadSeconds,
          downloadSeconds,
          corruptDownloads: corrupt,
          processes: rows,
        },
        null,
        2,
      )}\n`,
    );
    log(`wrote ${options.out}`);
    if (corrupt > 0 || rows.some((row) => !row.within_budget)) process.exitCode = 1;
  } finally {
    log('cleaning up');
    await teardown.run();
  }
}

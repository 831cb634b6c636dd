/**
 * The gateway bench's compression scenario (`pnpm bench --only gateway`): what gzip and brotli cost
 * the gateway on the ticket list, against the uncompressed answer measured in the same run. For each
 * page size (1 to 100 tickets, so from under a kilobyte to tens of kilobytes of JSON), autocannon
 * lists the page without Accept-Encoding, with `gzip` and with `br`, the three interleaved per round
 * (their order rotating). Reported per size and coding: median req/s, the gateway process's CPU
 * milliseconds per request (from /proc: its user + system time over the run, every thread, so the
 * compressor's work on libuv's pool counts), the body's bytes on the wire, and each as a ratio
 * against identity. Beside it, the compressor alone: each page's body compressed over and over with
 * the gateway's own one-call compression (compressWhole, what sendData's answers take), CPU
 * microseconds per body from process.cpuUsage,
 * a figure a busy machine disturbs far less than throughput. The extra CPU per request against the
 * bytes saved is what the threshold is chosen from (gateway/src/http/compression.ts,
 * docs/decisions.md).
 */
import http from 'node:http';
import { readFile } from 'node:fs/promises';
import autocannon from 'autocannon';
import { compressWhole, type Coding } from '../../gateway/src/http/compression.js';
import { median } from './measure.js';

export const CODINGS = ['identity', 'gzip', 'br'] as const;
export type BenchCoding = (typeof CODINGS)[number];
export const DEFAULT_PAGE_SIZES = [1, 2, 5, 20, 100];

const SENTENCES = [
  'The nightly export stops at about half of the rows with a timeout.',
  'They attached the log from the last run and ask whether the fix ships this week.',
  'Password reset mails arrive after twenty minutes, long after the link expired.',
  'The invoice for October shows the old VAT number although it was changed in September.',
  'Uploading a scanned contract of 18 MB fails with "file too large" in the mobile app.',
  'Since the update the dashboard chart shows no data for the last seven days.',
  'A webhook to our CRM is retried every minute and each retry creates a duplicate contact.',
  'Two agents were assigned the same ticket and both answered the customer.',
  'The account was locked after three attempts although the limit is said to be five.',
  'Searching for an order number with a dash finds nothing; without the dash it works.',
];

/** A ticket's description as support tickets read: a few different sentences and its own numbers. */
function description(index: number): string {
  const pick = (offset: number) => SENTENCES[(index * 7 + offset * 3) % SENTENCES.length]!;
  return `Customer ${1000 + index * 37} (order ${index * 7919}): ${pick(0)} ${pick(1)} ${pick(2)}`;
}

/** Files `count` tickets through the gateway (ten at a time) so that a page of 100 exists. */
export async function seedListTickets(url: string, apiKey: string, ticketTypeId: number, count: number) {
  for (let start = 0; start < count; start += 10) {
    await Promise.all(
      Array.from({ length: Math.min(10, count - start) }, async (_, offset) => {
        const response = await fetch(`${url}/v1/tickets`, {
          method: 'POST',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            ticket_type_id: ticketTypeId,
            title: `Export stops halfway (${start + offset})`,
            description: description(start + offset),
            priority: ['low', 'medium', 'high'][(start + offset) % 3],
          }),
        });
        if (response.status !== 201)
          throw new Error(`seeding a ticket: ${response.status} ${await response.text()}`);
      }),
    );
  }
}

/** CPU milliseconds (user + system, all threads) of process `pid` so far, from /proc; undefined elsewhere. */
async function processCpuMs(pid: number): Promise<number | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** Downloads `url` uncompressed. */
async function identityBody(url: string, headers: Record<string, string>): Promise<Buffer> {
  const response = await fetch(url, { headers: { ...headers, 'accept-encoding': 'identity' } });
  if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
  return Buffer.from(await response.arrayBuffer());
}

export interface CompressorCost {
  pageSize: number;
  identityBytes: number;
  coding: Coding;
  compressedBytes: number;
  /** CPU microseconds per body (this process, every thread: the compressor runs on libuv's pool). */
  cpuMicroseconds: number;
}

/** Compresses `body` as the gateway does for about `seconds` of CPU; CPU µs per body. */
async function timeCompressor(body: Buffer, coding: Coding, seconds: number) {
  let compressedBytes = 0;
  let runs = 0;
  const start = process.cpuUsage();
  const used = () => {
    const { user, system } = process.cpuUsage(start);
    return user + system;
  };
  while (used() < seconds * 1_000_000 || runs < 20) {
    compressedBytes = (await compressWhole(coding, body)).byteLength;
    runs += 1;
  }
  return { compressedBytes, cpuMicroseconds: used() / runs };
}

/** The compressor alone on each page's body: median of `rounds` timings of about a second each. */
export async function measureCompressorCost(options: {
  url: string;
  apiKey: string;
  pageSizes: number[];
  rounds: number;
}): Promise<CompressorCost[]> {
  const costs: CompressorCost[] = [];
  for (const size of options.pageSizes) {
    const body = await identityBody(`${options.url}/v1/tickets?per_page=${size}`, {
      authorization: `Bearer ${options.apiKey}`,
    });
    for (const coding of ['gzip', 'br'] as const) {
      const timings = [];
      for (let round = 0; round < options.rounds; round += 1)
        timings.push(await timeCompressor(body, coding, 1));
      costs.push({
        pageSize: size,
        identityBytes: body.length,
        coding,
        compressedBytes: timings[0]!.compressedBytes,
        cpuMicroseconds: median(timings.map((timing) => timing.cpuMicroseconds)),
      });
    }
  }
  return costs;
}

/** The compressor's cost as a Markdown table. */
export function formatCompressorTable(costs: CompressorCost[]): string {
  const lines = [
    '| Tickets | Identity bytes | Coding | Compressed bytes | Saved bytes | Compressor CPU µs/body | µs per KB saved |',
    '| ---: | ---: | --- | ---: | ---: | ---: | ---: |',
  ];
  for (const cost of costs) {
    const saved = cost.identityBytes - cost.compressedBytes;
    lines.push(
      `| ${cost.pageSize} | ${cost.identityBytes} | ${cost.coding} | ${cost.compressedBytes} | ${saved} | ` +
        `${Math.round(cost.cpuMicroseconds)} | ${saved > 0 ? (cost.cpuMicroseconds / (saved / 1024)).toFixed(1) : '-'} |`,
    );
  }
  return lines.join('\n');
}

/** The body's size on the wire (as sent: node:http does not decode) and its Content-Encoding. */
function wireBytes(url: string, headers: Record<string, string>): Promise<{ bytes: number; coding: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (response) => {
        let bytes = 0;
        response.on('data', (chunk: Buffer) => (bytes += chunk.length));
        response.on('end', () => {
          if (response.statusCode !== 200) reject(new Error(`${url}: ${response.statusCode}`));
          else resolve({ bytes, coding: response.headers['content-encoding'] ?? 'identity' });
        });
      })
      .on('error', reject);
  });
}

interface CompressionSample {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Gateway CPU per response; undefined without /proc. */
  gatewayCpuMs: number | undefined;
  failures: number;
}

export interface CompressionFigures {
  pageSize: number;
  coding: BenchCoding;
  wireBytes: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  gatewayCpuMsPerRequest: number | undefined;
  /** Against identity at the same page size, in the same run. */
  bytesRatio: number;
  requestsPerSecondRatio: number;
  gatewayCpuRatio: number | undefined;
  /** Gateway CPU microseconds per request beyond identity's. */
  extraCpuMicroseconds: number | undefined;
  failures: number;
}

function headersFor(coding: BenchCoding, apiKey: string): Record<string, string> {
  return {
    authorization: `Bearer ${apiKey}`,
    ...(coding === 'identity' ? {} : { 'accept-encoding': coding }),
  };
}

async function measureOnce(
  url: string,
  pid: number,
  path: string,
  headers: Record<string, string>,
  options: { connections: number; duration: number },
): Promise<CompressionSample> {
  const before = await processCpuMs(pid);
  const result = await (autocannon({
    url: `${url}${path}`,
    connections: options.connections,
    duration: options.duration,
    timeout: 30,
    headers,
  }) as Promise<autocannon.Result> & autocannon.Instance);
  const after = await processCpuMs(pid);
  const responses = result.requests.total;
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    gatewayCpuMs:
      before !== undefined && after !== undefined && responses > 0 ? (after - before) / responses : undefined,
    failures: result.non2xx + result.errors,
  };
}

/**
 * Runs the scenario against one gateway (`url`, process `pid`) whose project already holds at least
 * max(pageSizes) tickets; returns the figures per page size and coding, and the raw samples.
 */
export async function runCompressionScenario(options: {
  url: string;
  pid: number;
  apiKey: string;
  pageSizes: number[];
  rounds: number;
  duration: number;
  warmup: number;
  connections: number;
  log: (message: string) => void;
}): Promise<{ figures: CompressionFigures[]; samples: Record<string, CompressionSample[]> }> {
  const path = (size: number) => `/v1/tickets?per_page=${size}`;
  const bytes = new Map<string, number>();
  for (const size of options.pageSizes) {
    for (const coding of CODINGS) {
      const wire = await wireBytes(`${options.url}${path(size)}`, headersFor(coding, options.apiKey));
      bytes.set(`${size}/${coding}`, wire.bytes);
      options.log(`compression ${size} tickets ${coding}: ${wire.bytes} bytes on the wire (${wire.coding})`);
    }
  }
  if (options.warmup > 0) {
    for (const coding of CODINGS) {
      await measureOnce(options.url, options.pid, path(100), headersFor(coding, options.apiKey), {
        connections: options.connections,
        duration: options.warmup,
      });
    }
  }
  const samples: Record<string, CompressionSample[]> = {};
  for (let round = 1; round <= options.rounds; round += 1) {
    for (const size of options.pageSizes) {
      // The codings' order rotates each round, so no one of them always follows another.
      const order = CODINGS.map((_, index) => CODINGS[(index + round) % CODINGS.length]!);
      for (const coding of order) {
        const sample = await measureOnce(
          options.url,
          options.pid,
          path(size),
          headersFor(coding, options.apiKey),
          {
            connections: options.connections,
            duration: options.duration,
          },
        );
        (samples[`${size}/${coding}`] ??= []).push(sample);
        options.log(
          `compression round ${round} ${String(size).padStart(3)} tickets ${coding.padEnd(8)} ` +
            `${Math.round(sample.requestsPerSecond)} req/s, gateway ` +
            `${sample.gatewayCpuMs === undefined ? '?' : sample.gatewayCpuMs.toFixed(3)} ms CPU/req, ` +
            `p50 ${sample.p50Ms} ms` +
            (sample.failures > 0 ? `, ${sample.failures} FAILED` : ''),
        );
        // Requests abandoned at the run's end must not be billed to the next one.
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  }
  const figures: CompressionFigures[] = [];
  for (const size of options.pageSizes) {
    const of = (coding: BenchCoding) => {
      const list = samples[`${size}/${coding}`]!;
      const cpu = list.map((sample) => sample.gatewayCpuMs);
      return {
        requestsPerSecond: median(list.map((sample) => sample.requestsPerSecond)),
        p50Ms: median(list.map((sample) => sample.p50Ms)),
        p99Ms: median(list.map((sample) => sample.p99Ms)),
        cpu: cpu.every((value) => value !== undefined) ? median(cpu) : undefined,
        failures: list.reduce((sum, sample) => sum + sample.failures, 0),
      };
    };
    const identity = of('identity');
    for (const coding of CODINGS) {
      const figure = of(coding);
      const wire = bytes.get(`${size}/${coding}`)!;
      figures.push({
        pageSize: size,
        coding,
        wireBytes: wire,
        requestsPerSecond: Math.round(figure.requestsPerSecond),
        p50Ms: figure.p50Ms,
        p99Ms: figure.p99Ms,
        gatewayCpuMsPerRequest: figure.cpu,
        bytesRatio: wire / bytes.get(`${size}/identity`)!,
        requestsPerSecondRatio: figure.requestsPerSecond / identity.requestsPerSecond,
        gatewayCpuRatio:
          figure.cpu !== undefined && identity.cpu !== undefined ? figure.cpu / identity.cpu : undefined,
        extraCpuMicroseconds:
          figure.cpu !== undefined && identity.cpu !== undefined
            ? (figure.cpu - identity.cpu) * 1000
            : undefined,
        failures: figure.failures,
      });
    }
  }
  return { figures, samples };
}

/** The scenario's figures as a Markdown table. */
export function formatCompressionTable(figures: CompressionFigures[]): string {
  const percent = (value: number | undefined) => (value === undefined ? '?' : `${(value * 100).toFixed(1)}%`);
  const lines = [
    '| Tickets | Coding | Bytes on the wire | vs identity | req/s | vs identity | gateway CPU ms/req | vs identity | extra CPU µs/req | p50/p99 ms |',
    '| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const figure of figures) {
    lines.push(
      `| ${figure.pageSize} | ${figure.coding} | ${figure.wireBytes} | ${percent(figure.bytesRatio)} | ` +
        `${figure.requestsPerSecond} | ${percent(figure.requestsPerSecondRatio)} | ` +
        `${figure.gatewayCpuMsPerRequest === undefined ? '?' : figure.gatewayCpuMsPerRequest.toFixed(3)} | ` +
        `${percent(figure.gatewayCpuRatio)} | ` +
        `${figure.extraCpuMicroseconds === undefined ? '?' : Math.round(figure.extraCpuMicroseconds)} | ` +
        `${figure.p50Ms} / ${figure.p99Ms} |`,
    );
  }
  return lines.join('\n');
}

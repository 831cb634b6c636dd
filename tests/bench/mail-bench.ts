/**
 * `pnpm bench --only mail`: inbound mail to ticket, end to end through the fleet (docs/benchmarks.md,
 * "Mail"). The fleet runs on free ports (fresh databases and vhost, as the main bench), its SMTP
 * listener on a free loopback port; a private dovecot stands in for the customer's IMAP server.
 * 1. SMTP latency: messages sent one at a time to `<slug>@tix.localhost`; each measures from the
 *    start of the SMTP transaction to the ticket being listed by GET /v1/tickets (listener -> object
 *    store + inbound_messages -> processor -> ticket service). Target: p95 < 1 s.
 * 2. IMAP latency: messages APPENDed one at a time to the dovecot inbox an IMAP mailbox of the
 *    project fetches (IDLE); each measures from the APPEND to the ticket being listed. Target:
 *    p95 < 5 s.
 * 3. Throughput: a burst of messages over several SMTP connections at once; messages per second
 *    from the first send to the last ticket listed. Every message must become exactly one ticket.
 * Latency is what a customer sees (until an agent can see the ticket), polled every 10 ms, so each
 * figure includes up to 10 ms of polling.
 *
 *   pnpm bench --only mail [--smtp-samples 100] [--imap-samples 30] [--burst 300]
 *                          [--connections 4] [--warmup 5] [--log-level error]
 *                          [--out tests/bench/results/mail-latest.json]
 */
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import nodemailer from 'nodemailer';
import { createServiceClient } from '@tix/kit';
import { freePort } from '@tix/kit/testing';
import { startTestDovecot } from '@tix/mail-service/testing';
import { serviceAddressVariable } from '@tix/protos';
import { readBenchCommandLine, type BenchRunOptions } from './command-line.js';
import { startBenchFleet, teardownOnSignal, type BenchEnvironment } from './environment.js';

export const MAIL_TARGETS = { smtpP95Ms: 1_000, imapP95Ms: 5_000 } as const;
const DOMAIN = 'tix.localhost';
const POLL_MS = 10;
const TIMEOUT_MS = 60_000;

interface MailBenchOptions extends BenchRunOptions {
  smtpSamples: number;
  imapSamples: number;
  burst: number;
  connections: number;
  warmup: number;
}

export function parseMailOptions(argv: string[]): MailBenchOptions {
  const args = readBenchCommandLine(argv, {
    integers: { 'smtp-samples': 100, 'imap-samples': 30, burst: 300, connections: 4, warmup: 5 },
    results: 'mail-latest.json',
  });
  return {
    smtpSamples: args.integer['smtp-samples'],
    imapSamples: args.integer['imap-samples'],
    burst: args.integer.burst,
    connections: args.integer.connections,
    warmup: args.integer.warmup,
    logLevel: args.logLevel,
    out: args.out,
  };
}

function log(message: string): void {
  process.stderr.write(`[bench mail] ${message}\n`);
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function summary(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    samples: sorted.length,
    p50Ms: Math.round(percentile(sorted, 50)),
    p95Ms: Math.round(percentile(sorted, 95)),
    p99Ms: Math.round(percentile(sorted, 99)),
    maxMs: Math.round(sorted.at(-1) ?? 0),
  };
}

function rawMessage(from: string, to: string, subject: string): Buffer {
  const id = `<${randomBytes(8).toString('hex')}@bench.example>`;
  return Buffer.from(
    [
      `From: Bench Customer <${from}>`,
      `To: ${to}`,
      `Subject: ${subject}`,
      `Message-ID: ${id}`,
      `Date: ${new Date().toUTCString()}`,
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=utf-8',
      '',
      `Hello, this is ${subject}.`,
      '',
    ].join('\r\n'),
  );
}

/** The titles of the project's tickets, newest first (up to `perPage`), and how many there are. */
async function listTickets(environment: BenchEnvironment, perPage: number) {
  const response = await fetch(`${environment.fleetUrl}/v1/tickets?per_page=${perPage}&sort=-created_at`, {
    headers: { authorization: `Bearer ${environment.apiKey}` },
  });
  if (response.status !== 200) throw new Error(`GET /v1/tickets answered ${response.status}`);
  const body = (await response.json()) as {
    data: { tickets: { title: string }[]; pagination: { total: number } };
  };
  return { titles: body.data.tickets.map((ticket) => ticket.title), total: body.data.pagination.total };
}

/** Resolves once a ticket titled `subject` is listed; its time in ms since `startedAt`. */
async function untilListed(
  environment: BenchEnvironment,
  subject: string,
  startedAt: number,
): Promise<number> {
  const deadline = startedAt + TIMEOUT_MS;
  for (;;) {
    const { titles } = await listTickets(environment, 5);
    if (titles.includes(subject)) return performance.now() - startedAt;
    if (performance.now() > deadline) throw new Error(`no ticket for "${subject}" after ${TIMEOUT_MS} ms`);
    await delay(POLL_MS);
  }
}

/** Runs the mail bench and prints / writes its figures. */
export async function runMailBench(argv: string[]): Promise<void> {
  const options = parseMailOptions(argv);
  const startedAt = new Date();
  const teardown = teardownOnSignal(log);
  try {
    const smtpPort = await freePort();
    log('starting the fleet');
    const environment = await startBenchFleet(teardown, options.logLevel, {
      MAIL_SMTP_PORT: String(smtpPort),
    });
    const address = `${environment.project.slug}@${DOMAIN}`;
    const transport = nodemailer.createTransport({
      host: '127.0.0.1',
      port: smtpPort,
      ignoreTLS: true,
      pool: true,
      maxConnections: options.connections,
      maxMessages: Infinity,
    });
    teardown.add('close the SMTP client', () => Promise.resolve(transport.close()));
    const send = (subject: string) =>
      transport.sendMail({
        envelope: { from: 'customer@bench.example', to: address },
        raw: rawMessage('customer@bench.example', address, subject),
      });
    let baseline = (await listTickets(environment, 1)).total;

    log(`SMTP latency: ${options.warmup} warm-up + ${options.smtpSamples} sequential messages`);
    const smtp: number[] = [];
    for (let i = 0; i < options.warmup + options.smtpSamples; i += 1) {
      const subject = `SMTP latency ${i} ${randomBytes(3).toString('hex')}`;
      const began = performance.now();
      await send(subject);
      const elapsed = await untilListed(environment, subject, began);
      if (i >= options.warmup) smtp.push(elapsed);
    }
    const smtpLatency = summary(smtp);
    log(`SMTP p50 ${smtpLatency.p50Ms} ms, p95 ${smtpLatency.p95Ms} ms`);

    log('IMAP latency: a private dovecot, an IMAP mailbox of the project');
    const dovecot = await startTestDovecot();
    teardown.add('stop dovecot', () => dovecot.stop());
    const mail = createServiceClient('mail', environment.fleetEnv![serviceAddressVariable('mail')]!, {
      deadlineMs: 10_000,
    });
    teardown.add('close the mail client', () => Promise.resolve(mail.close()));
    const imapAddress = `inbox-${randomBytes(3).toString('hex')}@bench.example`;
    await mail.CreateMailbox(
      {
        project_id: environment.project.id,
        kind: 'imap',
        address: imapAddress,
        imap_host: dovecot.host,
        imap_port: dovecot.port,
        imap_tls: false,
        imap_user: dovecot.user,
        auth: 'password',
        secret: dovecot.password,
        default_ticket_type_id: environment.ticketTypeId,
      },
      {},
    );
    const appender = await dovecot.client();
    teardown.add('log out of dovecot', () => appender.logout().catch(() => undefined));
    const imap: number[] = [];
    for (let i = 0; i < Math.min(options.warmup, 2) + options.imapSamples; i += 1) {
      const subject = `IMAP latency ${i} ${randomBytes(3).toString('hex')}`;
      const began = performance.now();
      await appender.append('INBOX', rawMessage('customer@bench.example', imapAddress, subject));
      const elapsed = await untilListed(environment, subject, began);
      if (i >= Math.min(options.warmup, 2)) imap.push(elapsed);
    }
    const imapLatency = summary(imap);
    log(`IMAP p50 ${imapLatency.p50Ms} ms, p95 ${imapLatency.p95Ms} ms`);

    log(`throughput: a burst of ${options.burst} messages over ${options.connections} SMTP connections`);
    baseline = (await listTickets(environment, 1)).total;
    const burstStarted = performance.now();
    const sends: Promise<unknown>[] = [];
    for (let i = 0; i < options.burst; i += 1)
      sends.push(send(`Burst ${i} ${randomBytes(3).toString('hex')}`));
    await Promise.all(sends);
    const acceptedMs = performance.now() - burstStarted;
    let total = baseline;
    while (total < baseline + options.burst) {
      if (performance.now() - burstStarted > TIMEOUT_MS * 5)
        throw new Error(
          `only ${total - baseline} of ${options.burst} burst tickets after ${TIMEOUT_MS * 5} ms`,
        );
      await delay(50);
      total = (await listTickets(environment, 1)).total;
    }
    const burstMs = performance.now() - burstStarted;
    await delay(1_000);
    const extra = (await listTickets(environment, 1)).total - (baseline + options.burst);
    const throughput = {
      messages: options.burst,
      acceptedPerSecond: Math.round((options.burst / acceptedMs) * 1000),
      processedPerSecond: Math.round((options.burst / burstMs) * 1000),
      duplicates: extra,
    };
    log(
      `${throughput.acceptedPerSecond} messages/s accepted over SMTP, ${throughput.processedPerSecond} ` +
        `messages/s to tickets, ${extra} duplicates`,
    );

    const result = {
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? 'unknown', node: process.version },
      options: { ...options, out: undefined },
      targets: MAIL_TARGETS,
      smtpLatency,
      imapLatency,
      throughput,
      met: {
        smtp: smtpLatency.p95Ms < MAIL_TARGETS.smtpP95Ms,
        imap: imapLatency.p95Ms < MAIL_TARGETS.imapP95Ms,
        exactlyOnce: extra === 0,
      },
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    await mkdir(path.dirname(options.out), { recursive: true });
    await writeFile(options.out, `${JSON.stringify(result, null, 2)}\n`);
    log(`wrote ${options.out}`);
    if (extra !== 0) process.exitCode = 1;
  } finally {
    log('cleaning up');
    await teardown.run();
  }
}

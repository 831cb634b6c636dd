/**
 * Exactly once through a crash: MAIL_TEST_IMAP_COUNT messages (default 200; `pnpm bench` runs the
 * full 1,000) wait in a real dovecot; the mail service runs as its own process (src/main.ts) with
 * real peers, is SIGKILLed while it fetches and processes, and is started again on the same
 * database. Every message becomes exactly one ticket: none lost, none duplicated.
 */
import { expect } from 'chai';
import pg from 'pg';
import { createServiceClient, type ServiceClient } from '@tix/kit';
import {
  eventually,
  freePort,
  mainProcessStores,
  startMainProcess,
  type TestProcess,
} from '@tix/kit/testing';
import { MAIL_MIGRATIONS_DIR, startTestDovecot, type TestDovecot } from '../../src/testing.js';
import { startMailPeers } from '../support/peers.js';

const COUNT = Number(process.env.MAIL_TEST_IMAP_COUNT ?? 200);

describe(`mail: ${COUNT} IMAP messages to tickets across a SIGKILL of the service`, function () {
  this.timeout(300_000);
  const stores = mainProcessStores('mail_kill', MAIL_MIGRATIONS_DIR);
  const stops: (() => Promise<unknown>)[] = [];
  let dovecot: TestDovecot;
  let env: NodeJS.ProcessEnv;
  let tickets: ServiceClient<'tickets'>;
  let projectId: number;
  let main: TestProcess | undefined;
  let db: pg.Pool;

  before(async () => {
    const peers = await startMailPeers({
      label: 'mail_kill',
      project: { name: 'Help', slug: 'help', prefix: 'HLP' },
    });
    stops.push(() => peers.stop());
    projectId = peers.projectId;
    const { s3 } = peers;
    dovecot = await startTestDovecot();
    stops.push(() => dovecot.stop());
    tickets = createServiceClient('tickets', peers.ticketsAddress, { deadlineMs: 10_000 });
    db = new pg.Pool({ connectionString: stores.database.url, max: 2 });
    // The stores' own after hook drops the database first; idle connections then end with an error.
    db.on('error', () => undefined);
    env = {
      MAIL_DATABASE_URL: stores.database.url,
      AMQP_URL: stores.vhost.url,
      LOOKUP_SERVICE_ADDR: peers.lookupAddress,
      TICKETS_SERVICE_ADDR: peers.ticketsAddress,
      COMMENTS_SERVICE_ADDR: peers.commentsAddress,
      CUSTOMERS_SERVICE_ADDR: peers.customersAddress,
      ATTACHMENTS_SERVICE_ADDR: peers.attachmentsAddress,
      S3_ENDPOINT: s3.config.endpoint,
      S3_ACCESS_KEY: s3.config.accessKey,
      S3_SECRET_KEY: s3.config.secretKey,
      MAIL_SMTP_PORT: String(await freePort()),
      GRPC_PORT: String(await freePort()),
      METRICS_PORT: '0',
    };
    // The messages wait in the mailbox before the service first looks.
    const messages = Array.from({ length: COUNT }, (_, i) =>
      Buffer.from(
        [
          `From: Customer ${i} <customer-${i}@example.com>`,
          'To: help@example.com',
          `Subject: Kill test ${i}`,
          `Message-ID: <kill-${i}@example.com>`,
          'Date: Thu, 03 Dec 2026 12:00:00 +0000',
          '',
          `Message number ${i}.`,
          '',
        ].join('\r\n'),
      ),
    );
    await dovecot.append(messages);
  });

  after(async () => {
    await main?.kill();
    tickets?.close();
    await db?.end();
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  });

  async function ticketTotal(): Promise<number> {
    const principal = { kind: 'api_key' as const, user_id: 1, role: 'admin' as const, scopes: [] };
    const page = await tickets.ListTickets(
      { project_id: projectId, page: { page: 1, per_page: 1 }, sort: '+id' },
      { principal },
    );
    return page.pagination?.total ?? 0;
  }

  it('loses none and duplicates none', async () => {
    main = startMainProcess(import.meta.url, env);
    const mail = createServiceClient('mail', `127.0.0.1:${env.GRPC_PORT}`, { deadlineMs: 10_000 });
    try {
      // Serving first (the process is starting), then the mailbox once.
      await eventually(() => mail.ListMailboxes({ project_id: 0 }), 30_000);
      await mail.CreateMailbox({
        project_id: projectId,
        kind: 'imap',
        address: 'help@example.com',
        imap_host: dovecot.host,
        imap_port: dovecot.port,
        imap_tls: false,
        imap_user: dovecot.user,
        auth: 'password',
        secret: dovecot.password,
        default_ticket_type_id: 0,
      });
    } finally {
      mail.close();
    }
    // Killed while it fetches and processes: some tickets exist, not all.
    await eventually(async () => expect(await ticketTotal()).to.be.greaterThan(0), 60_000);
    await main.kill();
    const atKill = await ticketTotal();
    const { rows: pending } = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM inbound_messages WHERE state IN ('received', 'processing')",
    );
    main = startMainProcess(import.meta.url, { ...env, MAIL_PROCESSING_LEASE_MS: '1000' });
    await eventually(async () => expect(await ticketTotal()).to.equal(COUNT), 240_000);
    // A message's ticket exists before its final transaction marks it processed: wait for that too.
    const states = async () =>
      (
        await db.query<{ state: string; n: number; tickets: number }>(
          `SELECT state, count(*)::int AS n, count(DISTINCT outcome->>'ticket_id')::int AS tickets
             FROM inbound_messages GROUP BY state`,
        )
      ).rows;
    await eventually(async () => expect(await states()).to.have.lengthOf(1), 30_000);
    expect(await states()).to.deep.equal([{ state: 'processed', n: COUNT, tickets: COUNT }]);
    // Still exactly COUNT a moment later: no late duplicate from a reclaimed attempt.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await ticketTotal()).to.equal(COUNT);
    expect(atKill, `killed with ${pending[0]!.n} messages pending`).to.be.below(COUNT);
    await main.stop();
  });
});

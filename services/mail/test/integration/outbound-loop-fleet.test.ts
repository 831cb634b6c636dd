/**
 * The loop test of issue 28's done list through the real pieces: two Tix installations (two mail
 * services, each with its own database, sharing lookup, tickets, comments, customers and
 * attachments) whose projects alpha and beta acknowledge new requests, and a relay over TCP that
 * hands each mail to the installation its recipient belongs to, through that mail service's SMTP
 * listener. Every hop is real: SMTP in, the inbound processor (threading, the acknowledgement),
 * the outbox, the sender, SMTP out. Run twice: with a relay that keeps every header, and one that
 * strips Auto-Submitted and X-Auto-Response-Suppress (only threading and the per-sender limit are
 * left to stop the loop). Either way each side sends at most one automatic mail.
 */
import { expect } from 'chai';
import nodemailer from 'nodemailer';
import pg from 'pg';
import { createServiceClient, type ServiceClient } from '@tix/kit';
import { eventually } from '@tix/kit/testing';
import {
  startTestAttachmentServer,
  startTestS3Server,
  type TestAttachmentServer,
  type TestS3Server,
} from '@tix/attachment-service/testing';
import { startTestCommentServer, type TestCommentServer } from '@tix/comment-service/testing';
import { startTestCustomerServer, type TestCustomerServer } from '@tix/customer-service/testing';
import { startTestLookupServer, type TestLookupServer } from '@tix/lookup-service/testing';
import { startTestTicketServer, type TestTicketServer } from '@tix/ticket-service/testing';
import { startTestMailServer, type TestMailServer } from '../../src/testing.js';
import { startTestRelay, type RelayedMail, type TestRelay } from './outbound-support.js';

const ALPHA = 'alpha@tix.localhost';
const BETA = 'beta@tix.localhost';

describe('two Tix installations acknowledging each other (the whole mail path)', function () {
  this.timeout(120_000);
  let lookupServer: TestLookupServer;
  let ticketServer: TestTicketServer;
  let commentServer: TestCommentServer;
  let customerServer: TestCustomerServer;
  let s3: TestS3Server;
  let attachmentServer: TestAttachmentServer;
  let projects: { alpha: number; beta: number };

  before(async () => {
    lookupServer = await startTestLookupServer({ label: 'mail_loop_fleet_lookup' });
    const directory = createServiceClient('lookup', lookupServer.address, { deadlineMs: 10_000 });
    const alpha = await directory.CreateProject({
      name: 'Alpha',
      slug: 'alpha',
      prefix: 'ALP',
      description: '',
      statuses: [],
    });
    const beta = await directory.CreateProject({
      name: 'Beta',
      slug: 'beta',
      prefix: 'BET',
      description: '',
      statuses: [],
    });
    for (const project of [alpha, beta])
      await directory.CreateTicketType({
        project_id: project.id,
        name: 'Request',
        slug: 'request',
        description: '',
        is_default: true,
        field_schema_json: '',
      });
    directory.close();
    projects = { alpha: alpha.id, beta: beta.id };
    ticketServer = await startTestTicketServer({
      lookupAddress: lookupServer.address,
      label: 'mail_loop_fleet_tickets',
    });
    commentServer = await startTestCommentServer({
      ticketsAddress: ticketServer.address,
      label: 'mail_loop_fleet_comments',
    });
    customerServer = await startTestCustomerServer({ label: 'mail_loop_fleet_customers' });
    s3 = await startTestS3Server();
    attachmentServer = await startTestAttachmentServer({
      ticketsAddress: ticketServer.address,
      s3,
      label: 'mail_loop_fleet_attachments',
    });
  });
  after(async () => {
    await attachmentServer?.stop();
    await s3?.stop();
    await customerServer?.stop();
    await commentServer?.stop();
    await ticketServer?.stop();
    await lookupServer?.stop();
  });

  async function exchange(stripHeaders: boolean) {
    const installations: { mail: TestMailServer; db: pg.Pool; client: ServiceClient<'mail'> }[] = [];
    const route = new Map<string, number>();
    const forward = async (relayed: RelayedMail) => {
      for (const to of relayed.envelopeTo) {
        const port = route.get(to);
        if (port === undefined) continue;
        const raw = stripHeaders
          ? relayed.raw.replace(/^(Auto-Submitted|X-Auto-Response-Suppress):.*\r?\n/gim, '')
          : relayed.raw;
        const transport = nodemailer.createTransport({
          host: '127.0.0.1',
          port,
          secure: false,
          ignoreTLS: true,
        });
        await transport.sendMail({ envelope: { from: relayed.envelopeFrom ?? '', to: [to] }, raw });
        transport.close();
      }
    };
    const relay: TestRelay = await startTestRelay(forward);
    try {
      for (const [address, projectId] of [
        [ALPHA, projects.alpha],
        [BETA, projects.beta],
      ] as const) {
        const mail = await startTestMailServer({
          lookupAddress: lookupServer.address,
          ticketsAddress: ticketServer.address,
          commentsAddress: commentServer.address,
          customersAddress: customerServer.address,
          attachmentsAddress: attachmentServer.address,
          store: s3.config,
          outbound: { smtpUrl: `smtp://127.0.0.1:${relay.port}` },
          sender: { pollIntervalMs: 50, retryDelay: () => 100 },
        });
        const client = createServiceClient('mail', mail.address, { deadlineMs: 10_000 });
        await client.UpdateProjectMailSettings({ project_id: projectId, acknowledge: true });
        installations.push({ mail, db: new pg.Pool({ connectionString: mail.databaseUrl, max: 2 }), client });
        route.set(address, mail.smtpPort);
      }
      // A person at beta writes to alpha from beta's own address (a misconfigured forward, or a test).
      const sender = nodemailer.createTransport({
        host: '127.0.0.1',
        port: route.get(ALPHA)!,
        secure: false,
        ignoreTLS: true,
      });
      await sender.sendMail({
        from: `Beta <${BETA}>`,
        to: ALPHA,
        subject: 'Hello alpha',
        text: 'Are you there?',
      });
      sender.close();

      // Quiet: every inbound message processed, nothing queued or sending, the relay's count stable.
      let last = -1;
      await eventually(
        async () => {
          let busy = 0;
          for (const { db } of installations) {
            const inbound = await db.query(
              "SELECT count(*)::int AS n FROM inbound_messages WHERE state IN ('received', 'processing')",
            );
            const outbound = await db.query(
              "SELECT count(*)::int AS n FROM outbound_messages WHERE state IN ('queued', 'sending')",
            );
            busy += inbound.rows[0].n + outbound.rows[0].n;
          }
          const stable = busy === 0 && relay.received.length === last && last > 0;
          last = relay.received.length;
          return stable;
        },
        40_000,
        1_000,
      );
      // Only automatic mail crosses the relay (the first message went straight to alpha's listener).
      const automaticFrom = (address: string) =>
        relay.received.filter((m) => m.envelopeFrom === address).length;
      expect(relay.received.every((m) => /^Auto-Submitted: auto-replied$/im.test(m.raw))).to.equal(true);
      const inbound = await Promise.all(
        installations.map(
          async ({ db }) => (await db.query('SELECT outcome FROM inbound_messages ORDER BY id')).rows,
        ),
      );
      return {
        alpha: automaticFrom(ALPHA),
        beta: automaticFrom(BETA),
        total: relay.received.length,
        inbound,
      };
    } finally {
      for (const { db, client, mail } of installations) {
        client.close();
        await db.end();
        await mail.stop();
      }
      await relay.close();
    }
  }

  it('with the headers intact: alpha acknowledges once, beta answers nothing', async () => {
    const result = await exchange(false);
    expect(result.alpha, JSON.stringify(result.inbound)).to.equal(1);
    expect(result.beta, JSON.stringify(result.inbound)).to.equal(0);
    expect(result.total).to.equal(1);
  });

  it('with a relay stripping Auto-Submitted: still at most one automatic mail each', async () => {
    const result = await exchange(true);
    expect(result.alpha, JSON.stringify(result.inbound)).to.be.at.most(1);
    expect(result.beta, JSON.stringify(result.inbound)).to.be.at.most(1);
    expect(result.total).to.be.at.most(2);
  });
});

/**
 * The loop test of issue 28's done list: two Tix projects whose acknowledgements answer each other
 * exchange at most one automatic mail each. Real sender, real relay over TCP; every mail the relay
 * receives for a project address is handed to `acknowledge`, which stands in for the inbound
 * processor's acknowledgement step (h/inbound): it queues an automatic reply when mayAutoReply
 * allows, exactly as the processor must. The sender adds Auto-Submitted and the per-sender limit.
 * Two runs: a relay that keeps the headers, and one that strips Auto-Submitted and
 * X-Auto-Response-Suppress (so only the per-sender limit stops the loop).
 */
import { expect } from 'chai';
import pg from 'pg';
import { eventually } from '@tix/kit/testing';
import { isRefusal, mayAutoReply, parseInbound } from '@tix/threading';
import { startTestS3Server, type TestS3Server } from '@tix/attachment-service/testing';
import { startTestLookupServer, type TestLookupServer } from '@tix/lookup-service/testing';
import { startTestMailServer, type TestMailServer } from '../../src/testing.js';
import { startTestRelay, type RelayedMail, type TestRelay } from './outbound-support.js';

const PROJECTS = ['alpha@tix.localhost', 'beta@tix.localhost'];

describe('two projects acknowledging each other', function () {
  this.timeout(60_000);
  let lookup: TestLookupServer;
  let s3: TestS3Server;

  before(async () => {
    lookup = await startTestLookupServer({ label: 'mail_loop_lookup' });
    s3 = await startTestS3Server();
  });
  after(async () => {
    await s3?.stop();
    await lookup?.stop();
  });

  async function exchange(stripHeaders: boolean) {
    let db: pg.Pool | undefined;
    let mail: TestMailServer | undefined;
    let handled = 0;
    /** The inbound processor's acknowledgement step, for mail arriving at one project's address. */
    const acknowledge = async (relayed: RelayedMail) => {
      const project = relayed.envelopeTo.find((to) => PROJECTS.includes(to));
      if (!project || !db) return;
      const raw = stripHeaders
        ? relayed.raw.replace(/^(Auto-Submitted|X-Auto-Response-Suppress):.*\r?\n/gim, '')
        : relayed.raw;
      const parsed = await parseInbound(Buffer.from(raw));
      handled += 1;
      if (isRefusal(parsed) || !parsed.from || !mayAutoReply(parsed)) return;
      await db.query(
        `INSERT INTO outbound_messages (kind, project_id, message_id, from_address, to_addresses, subject, text, automatic)
         VALUES ('acknowledgement', $1, $2, $3, $4, $5, 'We received your request.', true)`,
        [
          project === PROJECTS[0] ? 1 : 2,
          `<tix.ack.${Math.random().toString(16).slice(2)}@tix.localhost>`,
          project,
          [parsed.from.address],
          `We received your request: ${parsed.subject}`,
        ],
      );
    };
    const relay: TestRelay = await startTestRelay(acknowledge);
    try {
      mail = await startTestMailServer({
        lookupAddress: lookup.address,
        store: s3.config,
        outbound: { smtpUrl: `smtp://127.0.0.1:${relay.port}` },
        sender: { pollIntervalMs: 50, retryDelay: () => 100 },
      });
      db = new pg.Pool({ connectionString: mail.databaseUrl, max: 2 });
      // A person at beta writes to alpha (or beta's address is in alpha's From by mistake): alpha acknowledges.
      await acknowledge({
        envelopeFrom: PROJECTS[1],
        envelopeTo: [PROJECTS[0]!],
        raw: `From: Beta <${PROJECTS[1]}>\r\nTo: ${PROJECTS[0]}\r\nSubject: Hello\r\nMessage-ID: <start@example.com>\r\n\r\nHi\r\n`,
        parsed: null as never,
      });
      // Quiet: nothing queued or sending, and the relay's count stable for a while.
      let last = -1;
      await eventually(
        async () => {
          const { rows } = await db!.query(
            "SELECT count(*)::int AS n FROM outbound_messages WHERE state IN ('queued', 'sending')",
          );
          const stable = relay.received.length === last && rows[0].n === 0;
          last = relay.received.length;
          return stable;
        },
        20_000,
        700,
      );
      const { rows } = await db.query<{ from_address: string; state: string }>(
        'SELECT from_address, state FROM outbound_messages WHERE automatic ORDER BY id',
      );
      const sentBy = (project: string) => relay.received.filter((m) => m.envelopeFrom === project).length;
      return { rows, alpha: sentBy(PROJECTS[0]!), beta: sentBy(PROJECTS[1]!), handled };
    } finally {
      await db?.end();
      await mail?.stop();
      await relay.close();
    }
  }

  it('with Auto-Submitted intact: alpha sends one acknowledgement, beta answers none', async () => {
    const result = await exchange(false);
    expect(result.alpha).to.equal(1);
    expect(result.beta).to.equal(0);
    expect(result.rows.map((row) => row.state)).to.deep.equal(['sent']);
  });

  it('with a relay stripping the automatic-mail headers: the per-sender limit stops it at one each', async () => {
    const result = await exchange(true);
    expect(result.alpha).to.be.at.most(1);
    expect(result.beta).to.be.at.most(1);
    expect(result.rows.filter((row) => row.state === 'sent')).to.have.length(2);
    expect(result.rows.filter((row) => row.state === 'suppressed')).to.have.length(1);
  });
});

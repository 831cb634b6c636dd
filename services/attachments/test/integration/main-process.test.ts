/**
 * The service process (src/main.ts) as the launcher runs it: it waits for a store that starts after
 * it, creates the bucket, serves uploads with the ticket service behind it, relays attachment.created
 * to RabbitMQ, and stops cleanly on SIGTERM; a bad configuration stops it at once (exit 78).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { createServiceClient } from '@tix/kit';
import { eventually, exerciseMainProcess, expectConfigRefused, mainProcessStores } from '@tix/kit/testing';
import type { Principal } from '@tix/protos';
import { startTestLookupServer, type TestLookupServer } from '@tix/lookup-service/testing';
import { startTestTicketServer, type TestTicketServer } from '@tix/ticket-service/testing';
import { ATTACHMENTS_MIGRATIONS_DIR } from '../../src/server.js';
import { startTestS3Server, type TestS3Server } from '../../src/testing.js';
import { PNG_BYTES, upload } from './support.js';

describe('attachments: the service process (src/main.ts)', function () {
  this.timeout(90_000);
  const stores = mainProcessStores('attachments_main', ATTACHMENTS_MIGRATIONS_DIR);
  let lookup: TestLookupServer;
  let tickets: TestTicketServer;
  let s3: TestS3Server;
  let spoolDir: string;

  before(async () => {
    lookup = await startTestLookupServer({ label: 'attachments_main_lookup' });
    tickets = await startTestTicketServer({
      lookupAddress: lookup.address,
      label: 'attachments_main_tickets',
    });
    s3 = await startTestS3Server({ bucket: 'main-process-bucket' });
    spoolDir = await mkdtemp(path.join(os.tmpdir(), 'tix-test-spool-'));
  });
  after(async () => {
    await s3.restore().catch(() => undefined);
    await s3.stop();
    await tickets.stop();
    await lookup.stop();
    await rm(spoolDir, { recursive: true, force: true });
  });

  it('waits for the store, creates its bucket, serves uploads, relays the event and stops on SIGTERM', async () => {
    // The store is "not up yet" when the process starts, as under the launcher.
    await s3.cut();
    await exerciseMainProcess(
      import.meta.url,
      'attachments',
      {
        ATTACHMENTS_DATABASE_URL: stores.database.url,
        AMQP_URL: stores.vhost.url,
        TICKETS_SERVICE_ADDR: tickets.address,
        S3_ENDPOINT: s3.config.endpoint,
        S3_ACCESS_KEY: s3.config.accessKey,
        S3_SECRET_KEY: s3.config.secretKey,
        S3_BUCKET: s3.config.bucket,
        ATTACHMENT_SPOOL_DIR: spoolDir,
      },
      { databaseUrl: stores.database.url, relayed: ['attachment.created'], wait: false },
      async (client) => {
        const lookupClient = createServiceClient('lookup', lookup.address, { deadlineMs: 5_000 });
        const ticketClient = createServiceClient('tickets', tickets.address, { deadlineMs: 5_000 });
        try {
          await new Promise((resolve) => setTimeout(resolve, 500));
          expect(await client.checkHealth(300)).to.equal(false);
          await s3.restore();
          await eventually(() => client.checkHealth(), 20_000);

          const demo = await lookupClient.SeedDemo({});
          const project = demo.projects.find((p) => p.slug === 'platform')!;
          const type = demo.ticket_types.find((t) => t.slug === 'task')!;
          const user = demo.users[0]!;
          const principal: Principal = { kind: 'api_key', user_id: user.id, role: 'admin', scopes: [] };
          const ticket = await ticketClient.CreateTicket(
            { project_id: project.id, ticket_type_id: type.id, title: 'From main', custom_fields_json: '' },
            { principal },
          );
          const created = await upload({ client }, { principal }, PNG_BYTES, {
            projectId: project.id,
            ticketId: ticket.id,
            filename: 'main.png',
          });
          expect(created).to.deep.include({
            ticket_id: ticket.id,
            mime_type: 'image/png',
            original_filename: 'main.png',
          });
          expect(await s3.objectKeys()).to.have.length(1);
        } finally {
          lookupClient.close();
          ticketClient.close();
        }
      },
    );
  });

  it('refuses to start with a bad configuration, naming the variables (exit 78)', async () => {
    await expectConfigRefused(
      import.meta.url,
      {
        GRPC_PORT: 'x',
        TICKETS_SERVICE_ADDR: 'none',
        ATTACHMENT_ALLOWED_TYPES: 'image/png,text/html',
        ATTACHMENT_MAX_BYTES: '0',
      },
      ['GRPC_PORT', 'TICKETS_SERVICE_ADDR', '"text/html" can never be allowed', 'ATTACHMENT_MAX_BYTES'],
    );
  });
});

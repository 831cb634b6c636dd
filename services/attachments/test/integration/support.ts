/**
 * A real fleet slice per test file: lookup (demo data), tickets, an embedded S3 store behind a
 * cuttable proxy, and the attachment service, each on a fresh database and a free port; typed
 * clients, SQL on the attachment database, and helpers for the two streaming RPCs.
 */
import net from 'node:net';
import { expect } from 'chai';
import pg from 'pg';
import { createServiceClient, fromGrpcError, type OutgoingContext, type ServiceClient } from '@tix/kit';
import { startTestService } from '@tix/kit/testing';
import type { attachment, lookup, Principal } from '@tix/protos';
import { startTestLookupServer, type TestLookupServer } from '@tix/lookup-service/testing';
import { startTestTicketServer, type TestTicketServer } from '@tix/ticket-service/testing';
import { DEFAULT_UPLOAD_POLICY, type UploadPolicy } from '../../src/config.js';
import { attachmentService } from '../../src/server.js';
import type { ObjectStore } from '@tix/kit';
import {
  CHUNK_BYTES,
  startTestAttachmentServer,
  startTestS3Server,
  type TestAttachmentServer,
  type TestS3Server,
} from '../../src/testing.js';

export { refusalOf } from '@tix/kit/testing';

export interface DemoData {
  support: lookup.Project__Output;
  platform: lookup.Project__Output;
  /** A type without required fields in each project (question, task). */
  ticketTypeId: Record<'support' | 'platform', number>;
  users: Record<'admin' | 'agent', lookup.User__Output>;
}

export interface AttachmentFixture {
  lookupServer: TestLookupServer;
  ticketServer: TestTicketServer;
  s3: TestS3Server;
  server: TestAttachmentServer;
  client: ServiceClient<'attachments'>;
  tickets: ServiceClient<'tickets'>;
  /** SQL on the attachment database. */
  sql: pg.Pool;
  demo: DemoData;
  /** Call context of the demo agent's API key. */
  agent: OutgoingContext;
  /** A fresh live ticket in `project` (default support). */
  createTicket(project?: 'support' | 'platform'): Promise<number>;
  stop(): Promise<void>;
}

/** Starts the fixture; call stop() in `after`. */
export async function startAttachmentFixture(
  options: { uploads?: Partial<UploadPolicy>; sweepIntervalMs?: number } = {},
): Promise<AttachmentFixture> {
  const lookupServer = await startTestLookupServer({ label: 'attachments_lookup' });
  const ticketServer = await startTestTicketServer({
    lookupAddress: lookupServer.address,
    label: 'attachments_tickets',
  });
  const s3 = await startTestS3Server();
  const server = await startTestAttachmentServer({
    ticketsAddress: ticketServer.address,
    s3,
    ...(options.uploads ? { uploads: options.uploads } : {}),
    ...(options.sweepIntervalMs ? { sweepIntervalMs: options.sweepIntervalMs } : {}),
  });
  const lookupClient = createServiceClient('lookup', lookupServer.address, { deadlineMs: 10_000 });
  const seeded = await lookupClient.SeedDemo({});
  lookupClient.close();
  const project = (slug: string) => seeded.projects.find((p) => p.slug === slug)!;
  const typeId = (projectId: number, slug: string) =>
    seeded.ticket_types.find((t) => t.slug === slug && t.project_id === projectId)!.id;
  const user = (email: string) => seeded.users.find((u) => u.email === email)!;
  const support = project('support');
  const platform = project('platform');
  const demo: DemoData = {
    support,
    platform,
    ticketTypeId: { support: typeId(support.id, 'question'), platform: typeId(platform.id, 'task') },
    users: { admin: user('admin@example.com'), agent: user('agent@example.com') },
  };
  const principal: Principal = {
    kind: 'api_key',
    user_id: demo.users.agent.id,
    role: 'agent',
    scopes: ['tickets:read', 'tickets:write', 'tickets:delete'],
  };
  const agent: OutgoingContext = { principal };
  const client = createServiceClient('attachments', server.address, { deadlineMs: 30_000 });
  const tickets = createServiceClient('tickets', ticketServer.address, { deadlineMs: 10_000 });
  const sql = new pg.Pool({ connectionString: server.databaseUrl, max: 3 });
  return {
    lookupServer,
    ticketServer,
    s3,
    server,
    client,
    tickets,
    sql,
    demo,
    agent,
    async createTicket(which = 'support') {
      const created = await tickets.CreateTicket(
        {
          project_id: demo[which].id,
          ticket_type_id: demo.ticketTypeId[which],
          title: 'Screenshot attached',
          custom_fields_json: '',
        },
        agent,
      );
      return created.id;
    },
    async stop() {
      client.close();
      tickets.close();
      await sql.end();
      await server.stop();
      await s3.stop();
      await ticketServer.stop();
      await lookupServer.stop();
    },
  };
}

export interface UploadOptions {
  projectId: number;
  ticketId: number;
  filename?: string;
  declaredType?: string;
  /** Cancel the call after this many bytes were sent (the client went away). */
  cancelAfterBytes?: number;
  /** Wait this long before cancelling (so the call is surely established and its data delivered). */
  cancelDelayMs?: number;
  /** Send a second header after the bytes (a protocol error). */
  secondHeader?: boolean;
}

/** Uploads `bytes` through the client-streaming RPC, in CHUNK_BYTES messages; rejects with the AppError. */
export function upload(
  fixture: Pick<AttachmentFixture, 'client'>,
  context: OutgoingContext,
  bytes: Buffer,
  options: UploadOptions,
): Promise<attachment.Attachment__Output> {
  const { client } = fixture;
  return new Promise((resolve, reject) => {
    const call = client.raw.UploadAttachment(
      client.callMetadata(context),
      client.callOptions(context),
      (error, response) => (error ? reject(fromGrpcError(error)) : resolve(response!)),
    );
    const header = {
      project_id: options.projectId,
      ticket_id: options.ticketId,
      original_filename: options.filename ?? 'file.bin',
      declared_mime_type: options.declaredType ?? '',
    };
    void (async () => {
      call.write({ header });
      for (let offset = 0; offset < bytes.length; offset += CHUNK_BYTES) {
        if (options.cancelAfterBytes !== undefined && offset >= options.cancelAfterBytes) {
          await new Promise((resolve_) => setTimeout(resolve_, options.cancelDelayMs ?? 0));
          call.cancel();
          return;
        }
        if (!call.write({ chunk: bytes.subarray(offset, offset + CHUNK_BYTES) })) {
          await new Promise((resolve_) => call.once('drain', resolve_));
        }
      }
      if (options.secondHeader) call.write({ header });
      call.end();
    })();
  });
}

/** Downloads through the server-streaming RPC: the first message's attachment and the bytes after it. */
export async function download(
  fixture: Pick<AttachmentFixture, 'client'>,
  context: OutgoingContext,
  address: { projectId: number; id: number },
): Promise<{ attachment: attachment.Attachment__Output; bytes: Buffer; messages: number }> {
  let first: attachment.Attachment__Output | undefined;
  const chunks: Buffer[] = [];
  let messages = 0;
  for await (const message of fixture.client.DownloadAttachment(
    { project_id: address.projectId, id: address.id },
    context,
  )) {
    messages += 1;
    if (messages === 1) {
      expect(message.part).to.equal('attachment');
      first = message.attachment!;
    } else {
      expect(message.part).to.equal('chunk');
      expect(message.chunk!.length).to.be.at.most(CHUNK_BYTES);
      chunks.push(message.chunk!);
    }
  }
  if (!first) throw new Error('the download sent no message');
  return { attachment: first, bytes: Buffer.concat(chunks), messages };
}

/** Rows of the attachment table (all, deleted too), oldest first. */
export async function attachmentRows(sql: pg.Pool): Promise<Record<string, unknown>[]> {
  const { rows } = await sql.query<Record<string, unknown>>('SELECT * FROM attachments ORDER BY id');
  return rows;
}

export interface OutboxEvent {
  event_type: string;
  payload: {
    type: string;
    project_id?: number;
    source: string;
    actor?: unknown;
    changes?: unknown;
    data: unknown;
  };
}

/** The outbox's events, oldest first. */
export async function outboxEvents(sql: pg.Pool): Promise<OutboxEvent[]> {
  const { rows } = await sql.query<OutboxEvent>('SELECT event_type, payload FROM outbox_events ORDER BY seq');
  return rows;
}

/** A 1x1 PNG. */
export const PNG_BYTES = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a0d6b5e70000000049454e44ae426082',
  'hex',
);

/** The head of a Windows executable (MZ ... PE). */
export function exeBytes(length = 4096): Buffer {
  const bytes = Buffer.alloc(length, 0x90);
  bytes.write('MZ', 0, 'latin1');
  bytes.writeUInt32LE(0x80, 0x3c);
  bytes.write('PE\0\0', 0x80, 'latin1');
  return bytes;
}

/** `length` bytes of a PNG signature followed by pseudo-random binary data (every byte value). */
export function binaryPng(length: number): Buffer {
  const bytes = Buffer.alloc(length);
  let state = 0x12345678;
  for (let i = 0; i < length; i += 1) {
    state = (state * 1103515245 + 12345) >>> 0;
    bytes[i] = state >>> 24;
  }
  PNG_BYTES.copy(bytes, 0, 0, Math.min(PNG_BYTES.length, length));
  return bytes;
}

export interface ServiceOverStore {
  client: ServiceClient<'attachments'>;
  stop(): Promise<void>;
}

/**
 * A second attachment service on the fixture's database, ticket service and spool folder, storing
 * through `objects` (a real store, wrapped by a test to watch or break it).
 */
export async function startServiceOverStore(
  fixture: Pick<AttachmentFixture, 'server' | 'ticketServer'>,
  objects: ObjectStore,
  uploads: Partial<UploadPolicy> = {},
): Promise<ServiceOverStore> {
  const service = await startTestService(attachmentService({ objects }), {
    databaseUrl: fixture.server.databaseUrl,
    config: {
      peers: { tickets: fixture.ticketServer.address },
      uploads: { ...DEFAULT_UPLOAD_POLICY, spoolDir: fixture.server.spoolDir, ...uploads },
      // The fixture's own service sweeps; this one only serves the test's calls.
      sweepIntervalMs: 3_600_000,
    },
  });
  const client = createServiceClient('attachments', service.address, { deadlineMs: 30_000 });
  return {
    client,
    async stop() {
      client.close();
      await service.stop();
    },
  };
}

export interface StallingProxy {
  /** http://127.0.0.1:<port>, to use as a store endpoint. */
  endpoint: string;
  /** Connections open through it now. */
  openConnections(): number;
  /** Stops passing the store's bytes on (connections stay open): the store hangs mid-answer. */
  stall(): void;
  /** Passes the store's bytes on again, those held back first. */
  resume(): void;
  close(): Promise<void>;
}

/** A TCP proxy to `endpoint` (http://host:port) that a test can make stall, as a store that hangs. */
export async function startStallingProxy(endpoint: string): Promise<StallingProxy> {
  const target = new URL(endpoint);
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();
  let stalled = false;
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    const pair = { client, upstream };
    pairs.add(pair);
    for (const socket of [client, upstream]) {
      socket.on('error', () => socket.destroy());
      socket.on('close', () => {
        pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    if (!stalled) upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    openConnections: () => pairs.size,
    stall() {
      stalled = true;
      for (const { client, upstream } of pairs) {
        upstream.unpipe(client);
        upstream.pause();
      }
    },
    resume() {
      stalled = false;
      for (const { client, upstream } of pairs) upstream.pipe(client);
    },
    async close() {
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

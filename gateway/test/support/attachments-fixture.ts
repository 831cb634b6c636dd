/**
 * The world of the attachment route tests: real lookup, ticket and attachment services (fresh
 * databases), an embedded S3 store behind a cuttable proxy, and two test gateways, one with the same
 * 1 MiB maximum as the service and a lenient one (2 MiB) to show the service refusing on its own.
 * Projects alpha and beta; keys: full (tickets:read + write), read-only, and one scoped to beta.
 */
import { expect } from 'chai';
import { createServiceClient } from '@tix/kit';
import { startTestLookupServer } from '@tix/lookup-service/testing';
import { startTestTicketServer } from '@tix/ticket-service/testing';
import {
  probeAttachmentDatabase,
  startTestAttachmentServer,
  startTestS3Server,
  type AttachmentDatabaseProbe,
  type TestS3Server,
} from '@tix/attachment-service/testing';
import { bearer, request, startTestGateway, type JsonResponse, type TestGateway } from './test-gateway.js';
import { apiKeyMaker, createAlphaAndBeta, createDefaultTypes } from './lookup-seed.js';

/** The maximum file size on both sides. */
export const MAX = 1024 * 1024;

/** A 1x1 PNG. */
export const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a0d6b5e70000000049454e44ae426082',
  'hex',
);

/** A 1x1 PNG followed by every byte value, pseudo-randomly, `length` bytes in all. */
export function binaryPng(length: number): Buffer {
  const bytes = Buffer.alloc(length);
  let state = 0x9e3779b9;
  for (let i = 0; i < length; i += 1) {
    state = (state * 1664525 + 1013904223) >>> 0;
    bytes[i] = state >>> 24;
  }
  PNG.copy(bytes, 0, 0, Math.min(PNG.length, length));
  return bytes;
}

/** The head of a Windows executable (MZ ... PE). */
export function exe(): Buffer {
  const bytes = Buffer.alloc(4096, 0x90);
  bytes.write('MZ', 0, 'latin1');
  bytes.writeUInt32LE(0x80, 0x3c);
  bytes.write('PE\0\0', 0x80, 'latin1');
  return bytes;
}

/** A multipart body written by hand (for what FormData cannot express). */
export function rawMultipart(
  parts: { headers: string[]; body: Buffer | string }[],
  boundary = 'tix-boundary-42',
) {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\n${part.headers.join('\r\n')}\r\n\r\n`, 'utf8'));
    chunks.push(Buffer.isBuffer(part.body) ? part.body : Buffer.from(part.body, 'utf8'));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** A form with an ignored text field and `bytes` as the `file` part. */
export function form(bytes: Buffer, filename: string, type = 'application/octet-stream'): FormData {
  const data = new FormData();
  data.append('note', 'ignored text field');
  data.append('file', new Blob([bytes], { type }), filename);
  return data;
}

/** The spec Attachment, as the routes answer it. */
export interface AttachmentJson {
  id: number;
  ticket_id: number;
  original_filename: string;
  mime_type: string;
  size_bytes: number;
  created_at: string;
}

export interface AttachmentRoutesFixture {
  gateway: TestGateway;
  lenientGateway: TestGateway;
  s3: TestS3Server;
  database: AttachmentDatabaseProbe;
  ids: { alpha: number; beta: number; ada: number };
  keys: { full: string; readOnly: string; scopedBeta: string };
  /** A fresh live ticket in `project`. */
  createTicket(project?: 'alpha' | 'beta'): Promise<number>;
  /** POST a body to /v1`path` (FormData, raw bytes or a stream sent chunked). */
  post(
    path: string,
    body: FormData | Buffer | string | ReadableStream,
    options?: { key?: string; contentType?: string; base?: TestGateway },
  ): Promise<JsonResponse>;
  call(method: string, path: string, key?: string): Promise<JsonResponse>;
  /** Uploads to a ticket of alpha; fails the test unless 201; resolves with the attachment. */
  upload(ticketId: number, bytes: Buffer, filename: string, type?: string): Promise<AttachmentJson>;
  /** Rows, outbox events and stored objects, to show that a refusal left nothing. */
  counts(): Promise<{ rows: number; events: number; objects: number }>;
  stop(): Promise<void>;
}

/** Starts the fixture (see the file header); a suite takes it with kit's suiteFixture, which stops it. */
export async function startAttachmentRoutesFixture(label: string): Promise<AttachmentRoutesFixture> {
  const lookup = await startTestLookupServer({ label: `${label}_lookup` });
  const admin = createServiceClient('lookup', lookup.address, { deadlineMs: 10_000 });
  const projects = await createAlphaAndBeta(admin);
  const types = await createDefaultTypes(admin, ['alpha', 'beta']);
  const ada = await admin.CreateUser({ name: 'Ada', email: 'ada@example.com', role: 'agent' });
  const key = apiKeyMaker(admin, 'ada@example.com');
  const keys = {
    full: await key(['tickets:read', 'tickets:write']),
    readOnly: await key(['tickets:read']),
    scopedBeta: await key(['tickets:read', 'tickets:write'], 'beta'),
  };
  admin.close();

  const tickets = await startTestTicketServer({ lookupAddress: lookup.address, label: `${label}_tickets` });
  const ticketClient = createServiceClient('tickets', tickets.address, { deadlineMs: 10_000 });
  const s3 = await startTestS3Server();
  const service = await startTestAttachmentServer({
    ticketsAddress: tickets.address,
    s3,
    uploads: { maxBytes: MAX },
    sweepIntervalMs: 3_600_000,
  });
  const database = probeAttachmentDatabase(service.databaseUrl);
  const services = { lookup: lookup.address, tickets: tickets.address, attachments: service.address };
  const gateway = await startTestGateway({ services, attachments: { maxBytes: MAX } });
  // A gateway with a higher limit than the service: the service's refusal must come through.
  const lenientGateway = await startTestGateway({ services, attachments: { maxBytes: 2 * MAX } });

  const fixture: AttachmentRoutesFixture = {
    gateway,
    lenientGateway,
    s3,
    database,
    ids: { ...projects, ada: ada.id },
    keys,
    async createTicket(project = 'alpha') {
      const created = await ticketClient.CreateTicket(
        {
          project_id: projects[project],
          ticket_type_id: types[project],
          title: 'With files',
          custom_fields_json: '',
        },
        { principal: { kind: 'api_key', user_id: ada.id, role: 'agent', scopes: [] } },
      );
      return created.id;
    },
    post(path, body, options = {}) {
      const headers: Record<string, string> = bearer(options.key ?? keys.full);
      if (options.contentType) headers['Content-Type'] = options.contentType;
      return request(`${(options.base ?? gateway).apiUrl}/v1${path}`, {
        method: 'POST',
        headers,
        body,
        ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
      });
    },
    call(method, path, apiKey = keys.full) {
      return request(`${gateway.apiUrl}/v1${path}`, { method, headers: bearer(apiKey) });
    },
    async upload(ticketId, bytes, filename, mimeType) {
      const response = await fixture.post(
        `/tickets/${ticketId}/attachments?project=alpha`,
        form(bytes, filename, mimeType),
      );
      expect(response.status, JSON.stringify(response.body)).to.equal(201);
      return response.body.data.attachment as AttachmentJson;
    },
    async counts() {
      return {
        rows: (await database.attachments()).length,
        events: (await database.events()).length,
        objects: (await s3.objectKeys()).length,
      };
    },
    async stop() {
      await gateway.close();
      await lenientGateway.close();
      await database.close();
      await service.stop();
      await s3.restore().catch(() => undefined);
      await s3.stop();
      ticketClient.close();
      await tickets.stop();
      await lookup.stop();
    },
  };
  return fixture;
}

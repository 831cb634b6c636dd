/**
 * A real attachment service for tests (this package's, the gateway's): an embedded S3 store
 * (s3rver on a free port, data in a temporary folder, reached through a TCP proxy a test can cut to
 * simulate an outage) and the service on a fresh migrated database. It needs a running ticket
 * service (startTestTicketServer from '@tix/ticket-service/testing').
 *
 *   const s3 = await startTestS3Server();
 *   const attachments = await startTestAttachmentServer({ ticketsAddress: tickets.address, s3 });
 *   ...
 *   await attachments.stop(); await s3.stop();
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import S3rver from 's3rver';
import { createMinioClient, type Logger, type ObjectStoreConfig } from '@tix/kit';
import { startTcpProxy, startTestService } from '@tix/kit/testing';
import { DEFAULT_UPLOAD_POLICY, type UploadPolicy } from './config.js';
import { attachmentService } from './server.js';

export { ATTACHMENTS_MIGRATIONS_DIR } from './server.js';
export { fileTooLargeMessage, SNIFF_BYTES } from './uploads/file-type-rules.js';
export { CHUNK_BYTES } from './attachments/attachment-handlers.js';

export interface TestS3Server {
  /** Connection settings through the cuttable proxy (bucket `tix-attachments`). */
  config: ObjectStoreConfig;
  /** Every object key in `bucket` (default the config's). */
  objectKeys(bucket?: string): Promise<string[]>;
  /** The store stops answering (connections refused) until restore(). */
  cut(): Promise<void>;
  restore(): Promise<void>;
  /** Stops the store and removes its data. */
  stop(): Promise<void>;
}

/** Starts s3rver on 127.0.0.1 (free port, temporary folder) behind a TCP proxy. */
export async function startTestS3Server(options: { bucket?: string } = {}): Promise<TestS3Server> {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'tix-test-s3-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', directory, silent: true });
  const address = (await server.run()) as unknown as { port: number };
  const proxy = await startTcpProxy({ host: '127.0.0.1', port: address.port });
  const config: ObjectStoreConfig = {
    endpoint: `http://127.0.0.1:${proxy.port}`,
    accessKey: 'S3RVER',
    secretKey: 'S3RVER',
    region: 'us-east-1',
    bucket: options.bucket ?? 'tix-attachments',
  };
  // Direct to s3rver, so inspections work while the proxy is cut.
  const inspector = createMinioClient({ ...config, endpoint: `http://127.0.0.1:${address.port}` });
  return {
    config,
    async objectKeys(bucket = config.bucket) {
      if (!(await inspector.bucketExists(bucket))) return [];
      const keys: string[] = [];
      for await (const item of inspector.listObjectsV2(bucket, '', true) as AsyncIterable<{
        name?: string;
      }>) {
        if (item.name) keys.push(item.name);
      }
      return keys.sort();
    },
    cut: () => proxy.cut(),
    restore: () => proxy.restore(),
    async stop() {
      await proxy.close();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

export interface TestAttachmentServerOptions {
  /** "host:port" of the ticket service to use. */
  ticketsAddress: string;
  /** The store (e.g. startTestS3Server()). */
  s3: Pick<TestS3Server, 'config'> | { config: ObjectStoreConfig };
  /** Default: 25 MB, the default allow-list, a temporary spool folder removed by stop(). */
  uploads?: Partial<UploadPolicy>;
  /** Database name label (default "attachments"). */
  label?: string;
  logger?: Logger;
  sweepIntervalMs?: number;
  /** When given, the outbox relay publishes to this broker. */
  amqpUrl?: string;
}

export type TestAttachmentServer = Awaited<ReturnType<typeof startTestAttachmentServer>>;

/**
 * Starts an attachment service on 127.0.0.1 (free port) over a fresh, migrated database; stop()
 * also drops the database and removes its spool folder.
 */
export async function startTestAttachmentServer(options: TestAttachmentServerOptions) {
  const spoolDir = options.uploads?.spoolDir ?? (await mkdtemp(path.join(os.tmpdir(), 'tix-test-spool-')));
  try {
    const service = await startTestService(attachmentService(), {
      label: options.label,
      logger: options.logger,
      amqpUrl: options.amqpUrl,
      config: {
        peers: { tickets: options.ticketsAddress },
        store: options.s3.config,
        storeStartupTimeoutMs: 10_000,
        uploads: { ...DEFAULT_UPLOAD_POLICY, ...options.uploads, spoolDir },
        ...(options.sweepIntervalMs === undefined ? {} : { sweepIntervalMs: options.sweepIntervalMs }),
      },
    });
    return {
      ...service,
      /** The spool folder it receives files into. */
      spoolDir,
      objects: service.parts.objects,
      sweeper: service.parts.workers.sweeper,
      stop: () => service.stop().finally(() => rm(spoolDir, { recursive: true, force: true })),
    };
  } catch (error) {
    await rm(spoolDir, { recursive: true, force: true });
    throw error;
  }
}

/** What a test may want to know about an attachment database. */
export interface AttachmentDatabaseProbe {
  /** Every row of `attachments` (deleted ones too), oldest first. */
  attachments(): Promise<Record<string, unknown>[]>;
  /** Every outbox event (type and payload), oldest first. */
  events(): Promise<
    { event_type: string; payload: { project_id?: number; data: Record<string, unknown> } }[]
  >;
  close(): Promise<void>;
}

/** SQL access to an attachment database for other packages' tests (which need no `pg` of their own). */
export function probeAttachmentDatabase(databaseUrl: string): AttachmentDatabaseProbe {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  return {
    async attachments() {
      return (await pool.query<Record<string, unknown>>('SELECT * FROM attachments ORDER BY id')).rows;
    },
    async events() {
      const { rows } = await pool.query<{
        event_type: string;
        payload: { project_id?: number; data: Record<string, unknown> };
      }>('SELECT event_type, payload FROM outbox_events ORDER BY seq');
      return rows;
    },
    close: () => pool.end(),
  };
}

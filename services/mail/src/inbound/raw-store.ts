/**
 * The raw messages in the object store (MinIO in deployments, s3rver locally and in tests), through
 * the `minio` client as the attachment service does. Keys are content-addressed per mailbox
 * (`<mailbox>/<sha256>.eml`), so storing the same bytes twice is one object.
 */
import { createHash } from 'node:crypto';
import * as Minio from 'minio';
import type { MailStoreConfig } from '../config.js';

export interface RawStore {
  ensureBucket(): Promise<void>;
  /** Stores `raw`; resolves once the store has it. Returns its key. */
  put(mailboxId: number, raw: Buffer): Promise<string>;
  get(key: string): Promise<Buffer>;
}

export function createRawStore(config: MailStoreConfig): RawStore {
  const url = new URL(config.endpoint);
  const client = new Minio.Client({
    endPoint: url.hostname,
    port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
    useSSL: url.protocol === 'https:',
    accessKey: config.accessKey,
    secretKey: config.secretKey,
    region: config.region,
    pathStyle: true,
  });
  const bucket = config.bucket;
  return {
    async ensureBucket() {
      if (!(await client.bucketExists(bucket))) {
        try {
          await client.makeBucket(bucket, config.region);
        } catch (error) {
          if ((error as { code?: string }).code !== 'BucketAlreadyOwnedByYou') throw error;
        }
      }
    },
    async put(mailboxId, raw) {
      const key = `${mailboxId}/${createHash('sha256').update(raw).digest('hex')}.eml`;
      await client.putObject(bucket, key, raw, raw.length, { 'Content-Type': 'message/rfc822' });
      return key;
    },
    async get(key) {
      const stream = await client.getObject(bucket, key);
      const chunks: Buffer[] = [];
      for await (const chunk of stream) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    },
  };
}

/**
 * The only module that talks to the S3-compatible store (MinIO in deployments, s3rver locally and in
 * CI), always through the `minio` client. Every failure to reach or use the store becomes
 * 503 `File storage is unavailable` (the cause is logged by the caller), so callers never see a 500
 * for an outage.
 *
 * Uploads are single PUTs streamed from the spool file with their exact Content-Length and SHA-256,
 * through the client's request primitive (`makeRequestStreamAsync`, which its own putObject uses):
 * the public putObject reads a stream into memory parts (see uploads/spool.ts). The client's retry
 * of failed requests is off, since a consumed stream cannot be sent again; callers decide.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import * as Minio from 'minio';
import { AppError } from '@tix/kit';
import type { ObjectStoreConfig } from '../config.js';

export const STORE_UNAVAILABLE_MESSAGE = 'File storage is unavailable';

/** What the service stores and reads back. */
export interface ObjectStore {
  readonly bucket: string;
  /** Creates the bucket when it is missing (idempotent, safe across replicas). */
  ensureBucket(): Promise<void>;
  /** Stores the file at `key` (replacing nothing: keys are fresh UUIDs). */
  putFile(
    key: string,
    file: { path: string; sizeBytes: number; sha256: string },
    contentType: string,
    signal?: AbortSignal,
  ): Promise<void>;
  /** The object's bytes as a stream; 500 when the object is missing (the metadata says it exists). */
  open(key: string): Promise<Readable>;
  /** Removes the object; removing a missing object succeeds. */
  remove(key: string): Promise<void>;
  /** Whether an object exists at `key`. */
  exists(key: string): Promise<boolean>;
}

/** Small requests (stat, remove, bucket checks) give up after this long. */
const OPERATION_TIMEOUT_MS = 15_000;

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function isMissingObject(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'NoSuchKey' || code === 'NotFound';
}

/** The store failed: 503 for the caller, the cause kept for the log. */
export function storeUnavailable(cause: unknown): AppError {
  return cause instanceof AppError ? cause : AppError.unavailable(STORE_UNAVAILABLE_MESSAGE, cause);
}

async function withTimeout<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} timed out after ${OPERATION_TIMEOUT_MS} ms`)),
      OPERATION_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A minio client for `config.endpoint` (http or https, with its port). */
export function createMinioClient(config: ObjectStoreConfig): Minio.Client {
  const url = new URL(config.endpoint);
  const useSSL = url.protocol === 'https:';
  const agentOptions = { keepAlive: true, maxSockets: 64 };
  return new Minio.Client({
    endPoint: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port === '' ? (useSSL ? 443 : 80) : Number(url.port),
    useSSL,
    accessKey: config.accessKey,
    secretKey: config.secretKey,
    region: config.region,
    pathStyle: true,
    transportAgent: useSSL ? new https.Agent(agentOptions) : new http.Agent(agentOptions),
    retryOptions: { disableRetry: true },
  });
}

/** The store at `config`, in bucket `config.bucket`. */
export function createObjectStore(config: ObjectStoreConfig): ObjectStore {
  const client = createMinioClient(config);
  const bucket = config.bucket;
  // http endpoints sign the payload hash; https ones send UNSIGNED-PAYLOAD (the client's own rule).
  const signsPayload = !config.endpoint.startsWith('https:');

  return {
    bucket,

    async ensureBucket() {
      try {
        if (await withTimeout(client.bucketExists(bucket), 'bucketExists')) return;
        await withTimeout(client.makeBucket(bucket, config.region), 'makeBucket');
      } catch (error) {
        const code = errorCode(error);
        if (code === 'BucketAlreadyOwnedByYou' || code === 'BucketAlreadyExists') return;
        throw storeUnavailable(error);
      }
    },

    async putFile(key, file, contentType, signal) {
      // 16 KiB reads, like the gRPC messages: smaller transient buffers, collected sooner.
      const body = createReadStream(file.path, { highWaterMark: 16 * 1024 });
      const abort = () =>
        body.destroy(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
      signal?.addEventListener('abort', abort, { once: true });
      try {
        signal?.throwIfAborted();
        const response = await client.makeRequestStreamAsync(
          {
            method: 'PUT',
            bucketName: bucket,
            objectName: key,
            headers: { 'content-length': String(file.sizeBytes), 'content-type': contentType },
          },
          body,
          signsPayload ? file.sha256 : '',
          [200],
          config.region,
        );
        response.resume();
      } catch (error) {
        throw storeUnavailable(error);
      } finally {
        signal?.removeEventListener('abort', abort);
        body.destroy();
      }
    },

    async open(key) {
      try {
        return await withTimeout(client.getObject(bucket, key), 'getObject');
      } catch (error) {
        if (isMissingObject(error)) {
          throw AppError.internal(`object ${key} is missing from bucket ${bucket}`, error);
        }
        throw storeUnavailable(error);
      }
    },

    async remove(key) {
      try {
        await withTimeout(client.removeObject(bucket, key), 'removeObject');
      } catch (error) {
        if (isMissingObject(error)) return;
        throw storeUnavailable(error);
      }
    },

    async exists(key) {
      try {
        await withTimeout(client.statObject(bucket, key), 'statObject');
        return true;
      } catch (error) {
        if (isMissingObject(error)) return false;
        throw storeUnavailable(error);
      }
    },
  };
}

/** A fresh storage key: `attachments/<project_id>/<uuid>`; never derived from the filename. */
export function newObjectKey(projectId: number): string {
  return `attachments/${projectId}/${randomUUID()}`;
}

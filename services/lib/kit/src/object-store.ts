/**
 * The one client of the S3-compatible object store (MinIO in deployments, s3rver locally and in
 * CI), always through the `minio` client: the attachment service keeps file bytes in it, the mail
 * service raw messages. Each service picks its bucket (and its keys); the connection settings are
 * the same variables everywhere (OBJECT_STORE_VARIABLES, read by objectStoreConfig). Every failure
 * to reach or use the store becomes 503 `File storage is unavailable` (the cause is logged by the
 * caller), so callers never see a 500 for an outage.
 *
 * File uploads are single PUTs streamed from a spool file with their exact Content-Length and
 * SHA-256, through the client's request primitive (`makeRequestStreamAsync`, which its own putObject
 * uses): the public putObject reads a stream into memory parts (see the attachment service's
 * uploads/spool.ts). The client's retry of failed requests is off, since a consumed stream cannot be
 * sent again; callers decide. Small objects already in memory (a mail message) go as one buffer.
 *
 * Every stream here has its errors handled: the spool file is opened before its stream exists and
 * its read errors are remembered (a failure of our disk is a 500, not the store's 503); an object
 * body is destroyed when its caller goes away, when it arrives after its timeout, and read through
 * objectBytes, which turns a connection dropped mid-body into the same 503.
 */
import { open as openFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { addAbortSignal, type Readable } from 'node:stream';
import * as Minio from 'minio';
import { z } from 'zod';
import { env } from './config.js';
import { AppError } from './errors.js';

export const STORE_UNAVAILABLE_MESSAGE = 'File storage is unavailable';

/** Where and how objects are stored: an S3-compatible endpoint and the service's bucket. */
export interface ObjectStoreConfig {
  /** http(s)://host:port of the store. */
  endpoint: string;
  accessKey: string;
  secretKey: string;
  region: string;
  bucket: string;
}

/** The embedded store's credentials (s3rver's fixed pair), used outside production when unset. */
const LOCAL_STORE_CREDENTIALS = 'S3RVER';

/**
 * The store's variables, for a service's serviceConfig `variables` (with a bucket variable of its
 * own, objectStoreBucket). S3_ACCESS_KEY and S3_SECRET_KEY are required in production
 * (OBJECT_STORE_PRODUCTION_VARIABLES, for the config's `check`).
 */
export const OBJECT_STORE_VARIABLES = {
  S3_ENDPOINT: env.url('http://127.0.0.1:9000').refine((value) => /^https?:\/\//.test(value), {
    message: 'expected an http:// or https:// URL',
  }),
  S3_ACCESS_KEY: z.string().min(1).optional(),
  S3_SECRET_KEY: z.string().min(1).optional(),
  S3_REGION: z.string().min(1).default('us-east-1'),
};

/** The store variables production must set (development falls back to s3rver's credentials). */
export const OBJECT_STORE_PRODUCTION_VARIABLES = ['S3_ACCESS_KEY', 'S3_SECRET_KEY'] as const;

/** A bucket variable (S3 naming rules: 3-63 lower-case letters, digits, dots and hyphens). */
export function objectStoreBucket(defaultBucket: string) {
  return z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'expected an S3 bucket name')
    .default(defaultBucket);
}

/** The store's settings from OBJECT_STORE_VARIABLES' values, in `bucket`. */
export function objectStoreConfig(
  values: z.output<z.ZodObject<typeof OBJECT_STORE_VARIABLES>>,
  bucket: string,
): ObjectStoreConfig {
  return {
    endpoint: values.S3_ENDPOINT,
    accessKey: values.S3_ACCESS_KEY ?? LOCAL_STORE_CREDENTIALS,
    secretKey: values.S3_SECRET_KEY ?? LOCAL_STORE_CREDENTIALS,
    region: values.S3_REGION,
    bucket,
  };
}

/** What a service stores and reads back, in its bucket. */
export interface ObjectStore {
  readonly bucket: string;
  /** Creates the bucket when it is missing (idempotent, safe across replicas). */
  ensureBucket(): Promise<void>;
  /** Stores the file at `key` (the attachment service's keys are fresh UUIDs: it replaces nothing). */
  putFile(
    key: string,
    file: { path: string; sizeBytes: number; sha256: string },
    contentType: string,
    signal?: AbortSignal,
  ): Promise<void>;
  /**
   * The object's bytes as a stream (read it with objectBytes); 500 when the object is missing (the
   * metadata says it exists). Aborting `signal` (the caller went away) destroys the stream.
   */
  open(key: string, signal?: AbortSignal): Promise<Readable>;
  /** Stores `bytes` at `key` (replacing what is there), for objects small enough to hold in memory. */
  putBytes(key: string, bytes: Buffer, contentType: string): Promise<void>;
  /** The object's bytes, whole; 500 when it is missing, 503 when the store fails (open + objectBytes). */
  readBytes(key: string): Promise<Buffer>;
  /** Removes the object; removing a missing object succeeds. */
  remove(key: string): Promise<void>;
  /** Whether an object exists at `key`. */
  exists(key: string): Promise<boolean>;
}

/** Small requests (stat, remove, bucket checks, a download's headers) give up after this long. */
const OPERATION_TIMEOUT_MS = 15_000;

export interface ObjectStoreOptions {
  /** Default OPERATION_TIMEOUT_MS (tests make it short). */
  operationTimeoutMs?: number;
}

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

/**
 * `work`, or a failure after `timeoutMs`. What `work` still delivers after that goes to `disposeLate`:
 * a response nobody reads would hold its connection (and an agent slot) forever.
 */
async function withTimeout<T>(
  work: Promise<T>,
  what: string,
  timeoutMs: number,
  disposeLate?: (late: T) => void,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      reject(new Error(`${what} timed out after ${timeoutMs} ms`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
    if (timedOut && disposeLate) work.then(disposeLate).catch(() => undefined);
  }
}

/**
 * The bytes of a body from ObjectStore.open. A body that fails mid-way (the store dropped the
 * connection) fails with 503 `File storage is unavailable`, as a store that cannot be reached does.
 */
export async function* objectBytes(body: Readable): AsyncGenerator<Buffer> {
  try {
    for await (const data of body as AsyncIterable<Buffer>) yield data;
  } catch (error) {
    throw storeUnavailable(error);
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
export function createObjectStore(config: ObjectStoreConfig, options: ObjectStoreOptions = {}): ObjectStore {
  const client = createMinioClient(config);
  const bucket = config.bucket;
  const timeoutMs = options.operationTimeoutMs ?? OPERATION_TIMEOUT_MS;
  // http endpoints sign the payload hash; https ones send UNSIGNED-PAYLOAD (the client's own rule).
  const signsPayload = !config.endpoint.startsWith('https:');

  const store: ObjectStore = {
    bucket,

    async ensureBucket() {
      try {
        if (await withTimeout(client.bucketExists(bucket), 'bucketExists', timeoutMs)) return;
        await withTimeout(client.makeBucket(bucket, config.region), 'makeBucket', timeoutMs);
      } catch (error) {
        const code = errorCode(error);
        if (code === 'BucketAlreadyOwnedByYou' || code === 'BucketAlreadyExists') return;
        throw storeUnavailable(error);
      }
    },

    async putFile(key, file, contentType, signal) {
      signal?.throwIfAborted();
      // Opened first, so that a spool file that vanished is a plain rejection, blamed on us (a 500
      // logged with its path, which the caller never sees). A stream left to open the file itself
      // reports that failure as an 'error' event, which crashed the process when the stream was
      // destroyed (the caller gone) before anyone listened.
      const handle = await openFile(file.path, 'r').catch((error: unknown) => {
        throw new Error(`spool file ${file.path} cannot be opened`, { cause: error });
      });
      // 16 KiB reads, like the gRPC messages: smaller transient buffers, collected sooner. The
      // stream closes the handle when it ends or is destroyed.
      const body = handle.createReadStream({ highWaterMark: 16 * 1024 });
      // minio pipes the body into the request and reports its errors as the request's; this
      // listener also covers the moments minio is not listening, and tells our disk's failures apart.
      let readError: unknown;
      body.on('error', (error) => (readError ??= error));
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
        // The PUT's answer is drained unread: a connection dropping meanwhile must not go unhandled.
        response.on('error', () => undefined).resume();
      } catch (error) {
        if (readError !== undefined && !signal?.aborted) {
          throw new Error(`spool file ${file.path} could not be read`, { cause: readError });
        }
        throw storeUnavailable(error);
      } finally {
        signal?.removeEventListener('abort', abort);
        body.destroy();
      }
    },

    async open(key, signal) {
      try {
        const body = await withTimeout(client.getObject(bucket, key), 'getObject', timeoutMs, (late) =>
          late.destroy(),
        );
        // Its errors reach the reader through objectBytes; this listener covers the moments nobody
        // reads (before the first read, after the reader left), so they never go unhandled.
        body.on('error', () => undefined);
        // The caller going away destroys the body: a stalled store must not keep it open.
        return signal ? addAbortSignal(signal, body) : body;
      } catch (error) {
        if (isMissingObject(error)) {
          throw AppError.internal(`object ${key} is missing from bucket ${bucket}`, error);
        }
        throw storeUnavailable(error);
      }
    },

    async putBytes(key, bytes, contentType) {
      try {
        await withTimeout(
          client.putObject(bucket, key, bytes, bytes.length, { 'Content-Type': contentType }),
          'putObject',
          timeoutMs,
        );
      } catch (error) {
        throw storeUnavailable(error);
      }
    },

    async readBytes(key) {
      const chunks: Buffer[] = [];
      for await (const chunk of objectBytes(await store.open(key))) chunks.push(chunk);
      return Buffer.concat(chunks);
    },

    async remove(key) {
      try {
        await withTimeout(client.removeObject(bucket, key), 'removeObject', timeoutMs);
      } catch (error) {
        if (isMissingObject(error)) return;
        throw storeUnavailable(error);
      }
    },

    async exists(key) {
      try {
        await withTimeout(client.statObject(bucket, key), 'statObject', timeoutMs);
        return true;
      } catch (error) {
        if (isMissingObject(error)) return false;
        throw storeUnavailable(error);
      }
    },
  };
  return store;
}

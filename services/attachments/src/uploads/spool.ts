/**
 * Receiving a file: its chunks are written, as they arrive, to a private file in the spool folder,
 * while its size, SHA-256, head (for the signature check) and UTF-8-ness are measured. Memory stays
 * at one chunk per upload whatever the file size.
 *
 * Why a spool file and not a stream straight into the store: an S3 PUT needs the exact
 * Content-Length up front, and the minio client turns a stream of unknown length into in-memory
 * parts (the whole file below 64 MiB, ~528 MiB parts otherwise), which would hold every upload in
 * memory. Receiving first also means that a refused file (too large, wrong type) never reaches the
 * store at all, so a refusal cannot leave a partial object behind.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, open, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '@tix/kit';
import { fileRefused, fileTooLargeMessage } from './file-type-rules.js';

/** A received file on disk; remove() deletes it (safe to call twice). */
export interface SpooledFile {
  path: string;
  sizeBytes: number;
  /** Hex SHA-256 of the bytes. */
  sha256: string;
  /** The first `headBytes` bytes (fewer when the file is shorter). */
  head: Buffer;
  /** Valid UTF-8 from start to end, without any NUL byte. */
  isUtf8Text: boolean;
  remove(): Promise<void>;
}

export interface SpoolOptions {
  dir: string;
  maxBytes: number;
  headBytes: number;
  /** Aborted when the caller went away: receiving stops and the file is removed. */
  signal?: AbortSignal;
  /** A sender silent this long is given up on (504), see receiveUntilDone. */
  idleTimeoutMs: number;
}

/** Tracks whether a byte stream stays UTF-8 text without NUL, chunk by chunk. */
class Utf8TextCheck {
  private decoder = new TextDecoder('utf-8', { fatal: true });
  valid = true;

  push(chunk: Buffer): void {
    if (!this.valid) return;
    if (chunk.includes(0)) {
      this.valid = false;
      return;
    }
    try {
      this.decoder.decode(chunk, { stream: true });
    } catch {
      this.valid = false;
    }
  }

  finish(): boolean {
    if (!this.valid) return false;
    try {
      this.decoder.decode();
      return true;
    } catch {
      return false;
    }
  }
}

/** 504 for an upload whose sender stopped sending without finishing or cancelling. */
export function uploadStalled(idleMs: number): AppError {
  return new AppError('timeout', `Upload stalled: no data for ${idleMs} ms`);
}

/**
 * `items` as they arrive, failing with the signal's reason as soon as it aborts, or with
 * uploadStalled when nothing arrives for `idleMs`. Both matter with grpc-js: a client stream whose
 * call is cancelled may end *normally* (Node delivers the data read before the RST_STREAM, then the
 * end) with the cancellation reported a moment later, or, when the client cancelled before its call
 * was established, neither end nor report a cancellation until the deadline. So after the last item
 * this waits one turn of the event loop and checks the signal again before calling it complete.
 */
export async function* receiveUntilDone<T>(
  items: AsyncIterable<T>,
  options: { signal?: AbortSignal; idleMs: number },
): AsyncGenerator<T> {
  const iterator = items[Symbol.asyncIterator]();
  for (;;) {
    const next = await nextWithin(iterator, options);
    if (next.done) break;
    yield next.value;
  }
  await new Promise((resolve) => setImmediate(resolve));
  options.signal?.throwIfAborted();
}

/**
 * The next item of `iterator`, failing with the signal's reason as soon as it aborts, or with
 * uploadStalled when nothing arrives for `idleMs` (see receiveUntilDone). The item still pending
 * then is left to its stream, which the kit destroys when the handler fails.
 */
export async function nextWithin<T>(
  iterator: AsyncIterator<T>,
  options: { signal?: AbortSignal; idleMs: number },
): Promise<IteratorResult<T>> {
  const signal = options.signal;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    const interrupted = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(uploadStalled(options.idleMs)), options.idleMs);
      onAbort = () => reject(abortReason(signal!));
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
    interrupted.catch(() => undefined);
    // race() also handles a late rejection of next(): it can never go unhandled.
    return await Promise.race([iterator.next(), interrupted]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('aborted');
}

/**
 * Writes `chunks` to a new spool file. Throws 422 `File is larger than ...` as soon as the total
 * passes `maxBytes` (the partial spool file is removed), and rethrows any receive or disk error
 * after removing it too.
 */
export async function spoolChunks(
  chunks: AsyncIterable<Buffer>,
  options: SpoolOptions,
): Promise<SpooledFile> {
  await mkdir(options.dir, { recursive: true, mode: 0o700 });
  const filePath = path.join(options.dir, `${randomUUID()}.part`);
  const handle = await open(filePath, 'wx', 0o600);
  const remove = () => rm(filePath, { force: true });
  const hash = createHash('sha256');
  const text = new Utf8TextCheck();
  const head = Buffer.allocUnsafe(options.headBytes);
  let headLength = 0;
  let sizeBytes = 0;
  try {
    const received = receiveUntilDone(chunks, { signal: options.signal, idleMs: options.idleTimeoutMs });
    for await (const chunk of received) {
      sizeBytes += chunk.length;
      if (sizeBytes > options.maxBytes) throw fileRefused(fileTooLargeMessage(options.maxBytes));
      if (headLength < head.length) headLength += chunk.copy(head, headLength);
      hash.update(chunk);
      text.push(chunk);
      let written = 0;
      while (written < chunk.length) {
        const { bytesWritten } = await handle.write(chunk, written, chunk.length - written);
        written += bytesWritten;
      }
    }
    await handle.close();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await remove();
    throw error;
  }
  return {
    path: filePath,
    sizeBytes,
    sha256: hash.digest('hex'),
    head: Buffer.from(head.subarray(0, headLength)),
    isUtf8Text: text.finish(),
    remove,
  };
}

/**
 * Removes spool files older than `olderThanMs` (left behind by a process that was killed while
 * receiving); returns how many. Files of uploads in progress are younger and stay.
 */
export async function removeStaleSpoolFiles(dir: string, olderThanMs: number): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  const cutoff = Date.now() - olderThanMs;
  for (const name of names.filter((entry) => entry.endsWith('.part'))) {
    const filePath = path.join(dir, name);
    const info = await stat(filePath).catch(() => undefined);
    if (info && info.mtimeMs < cutoff) {
      await rm(filePath, { force: true });
      removed += 1;
    }
  }
  return removed;
}

/**
 * Receiving one file from a `multipart/form-data` request without holding it: busboy parses the body
 * as it arrives and each piece of the file goes straight to a sink (the attachment service's gRPC
 * client stream). When the sink cannot take more, the file stream is paused, which pauses busboy and
 * the socket: memory stays at a few chunks per upload whatever the file size.
 *
 * Rules (all answered before or while the bytes flow, never as a 500):
 * - not multipart/form-data -> 422 on `file`; a malformed body -> 400;
 * - exactly one file part, in the named field: none -> 422 `File is required`, a second file or a
 *   file under another name -> 422; text fields are ignored;
 * - more than `maxBytes` -> 422 `File is larger than ...` as soon as the limit is passed (or at once,
 *   from Content-Length), the sink aborted so nothing is stored.
 * On any refusal or failure the sink is aborted (no half-close: the far side records nothing) and
 * the rest of the body is read and discarded, so the client can read the answer.
 */
import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import { AppError } from '@tix/kit';

/** The parts of a file part's headers the sink is told about. */
export interface IncomingFile {
  /** As sent (RFC 2231 / UTF-8 decoded, path stripped by busboy); '' when the part had none. */
  filename: string;
  /** The part's Content-Type as the client claimed it. */
  mimeType: string;
}

/** Where the file's bytes go. */
export interface FileSink<T> {
  /** Takes a chunk; false asks the sender to wait for onceDrain. */
  write(chunk: Buffer): boolean;
  onceDrain(listener: () => void): void;
  /** The file is complete (half-close); the answer comes through `result`. */
  end(): void;
  /** Abandons the transfer: the far side must not record anything. */
  abort(): void;
  /** Settles with the far side's answer; may reject early (e.g. the ticket does not exist). */
  result: Promise<T>;
}

export interface SingleFileOptions<T> {
  /** The form field that carries the file. */
  fieldName: string;
  /** Largest accepted file, in bytes. */
  maxBytes: number;
  /** The message for a file over maxBytes (the same the service gives). */
  tooLargeMessage: string;
  /** Opens the sink for the file part (called at most once). */
  openSink(file: IncomingFile): FileSink<T>;
}

/**
 * Largest piece handed to the sink (one gRPC message each). 16 KiB, the HTTP/2 frame size: the
 * bench (pnpm bench --only uploads) showed 64 KiB pieces costing ~15-20 MB more peak RSS per process
 * at ten parallel 20 MB uploads (more bytes in flight, surviving into the old generation until a
 * full garbage collection).
 */
export const SINK_CHUNK_BYTES = 16 * 1024;
/** What multipart framing and small text fields may add to a file's size in Content-Length. */
export const MULTIPART_OVERHEAD_BYTES = 1024 * 1024;

export const MALFORMED_MULTIPART_MESSAGE = 'Malformed multipart/form-data body';

function fileError(message: string): AppError {
  return AppError.validation({ file: [message] });
}

/** True for multipart/form-data (any parameters). */
export function isMultipartFormData(header: string | undefined): boolean {
  return /^multipart\/form-data\s*(;|$)/i.test(header?.trim() ?? '');
}

/** Receives the single file of `request` into the sink the options open; resolves with its answer. */
export function receiveSingleFile<T>(request: IncomingMessage, options: SingleFileOptions<T>): Promise<T> {
  const { fieldName } = options;
  const onlyOne = `Exactly one file is allowed, in the form field "${fieldName}"`;
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    let sink: FileSink<T> | undefined;
    let parser: busboy.Busboy | undefined;
    let fileEnded = false;
    let bodyParsed = false;

    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      sink?.abort();
      if (parser) {
        request.unpipe(parser);
        parser.removeAllListeners();
        parser.on('error', () => undefined);
      }
      // Read and drop the rest, so the client finishes sending and can read the answer.
      request.resume();
      reject(error instanceof Error ? error : AppError.internal('upload failed', error));
    };

    const maybeComplete = () => {
      if (settled || !bodyParsed) return;
      if (!sink) return fail(fileError(`File is required (multipart/form-data field "${fieldName}")`));
      if (!fileEnded) return;
      settled = true;
      sink.end();
      sink.result.then(resolve, reject);
    };

    if (!isMultipartFormData(request.headers['content-type'])) {
      return fail(fileError(`Send the file as multipart/form-data in the field "${fieldName}"`));
    }
    const declaredLength = Number(request.headers['content-length']);
    if (Number.isFinite(declaredLength) && declaredLength > options.maxBytes + MULTIPART_OVERHEAD_BYTES) {
      return fail(fileError(options.tooLargeMessage));
    }
    try {
      parser = busboy({
        headers: request.headers,
        // Browsers and fetch send UTF-8 filenames as raw bytes; busboy's default would read latin1.
        defParamCharset: 'utf8',
        // One byte more than allowed, so that `limit` means "too large" (busboy also fires it at equality).
        limits: { files: 1, fileSize: options.maxBytes + 1, fields: 50, fieldSize: 64 * 1024, parts: 60 },
      });
    } catch {
      return fail(AppError.badRequest(MALFORMED_MULTIPART_MESSAGE));
    }

    parser.on('file', (name, stream, info) => {
      // busboy emits 'error' on the part's stream when the body ends inside it (a truncated or
      // unterminated form): unheard, that event would end the process. Once the upload has failed
      // for another reason, later errors have nothing left to say.
      stream.on('error', () => fail(AppError.badRequest(MALFORMED_MULTIPART_MESSAGE)));
      if (settled || name !== fieldName || sink) {
        stream.resume();
        fail(fileError(onlyOne));
        return;
      }
      const opened = options.openSink({ filename: info.filename ?? '', mimeType: info.mimeType });
      sink = opened;
      opened.result.catch((error: unknown) => fail(error));
      stream.on('data', (data: Buffer) => {
        if (settled) return;
        let accepted = true;
        for (let offset = 0; offset < data.length; offset += SINK_CHUNK_BYTES) {
          accepted = opened.write(data.subarray(offset, offset + SINK_CHUNK_BYTES)) && accepted;
        }
        if (!accepted) {
          stream.pause();
          opened.onceDrain(() => stream.resume());
        }
      });
      stream.on('limit', () => fail(fileError(options.tooLargeMessage)));
      stream.on('end', () => {
        fileEnded = true;
        maybeComplete();
      });
    });
    parser.on('filesLimit', () => fail(fileError(onlyOne)));
    parser.on('error', () => fail(AppError.badRequest(MALFORMED_MULTIPART_MESSAGE)));
    parser.on('close', () => {
      bodyParsed = true;
      maybeComplete();
    });
    request.on('close', () => {
      if (!request.complete) fail(AppError.badRequest('Request aborted'));
    });
    request.pipe(parser);
  });
}

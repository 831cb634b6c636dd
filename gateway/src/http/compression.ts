/**
 * Compressing JSON answers (docs/decisions.md, "Response compression"): gzip or brotli, as the
 * client's Accept-Encoding prefers, for JSON bodies of at least COMPRESSION_THRESHOLD_BYTES
 * (measured with `pnpm bench --only gateway`, docs/decisions.md). Never compressed: HEAD, 204, 304,
 * bodies below the threshold, anything that is not JSON (the console's assets come precompressed,
 * serve-console.ts), any download (`Content-Disposition`: attachments and the data export go out
 * byte for byte, streamed, never buffered here), and answers marked `Cache-Control: no-transform`.
 *
 * Every JSON answer says `Vary: Accept-Encoding`. A compressed answer is another representation, so
 * its strong ETag gets the coding before the closing quote (`"t42.3"` -> `"t42.3-gzip"`, `-br`);
 * conditional.ts matches either form in If-None-Match and If-Match, and a 304 carries the tag of
 * the form this request would have been sent (sendTagged notes the body's size for that).
 *
 * Streamed answers (sendDataStream) are compressed as they are written, with the same backpressure:
 * `write` returns false while the compressor is full and `drain` follows.
 */
import type { Transform } from 'node:stream';
import {
  brotliCompress,
  constants as zlibConstants,
  createBrotliCompress,
  createGzip,
  gzip,
  type BrotliOptions,
} from 'node:zlib';
import type { RequestHandler, Request, Response } from 'express';

/**
 * Below this many bytes a body goes out as it is. From the gateway bench (docs/decisions.md): under
 * about a kilobyte the saving is less than one TCP segment, while each compressed answer costs a
 * fixed setup on top of its per-byte price.
 */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

/**
 * The content codings the gateway produces, in the order it prefers them when the client ranks them
 * equally: gzip first, since brotli cost the gateway three to four times gzip's CPU on a page of 100
 * tickets in the bench for a body a fifth smaller (docs/decisions.md); br when the client prefers it.
 */
export const CODINGS = ['gzip', 'br'] as const;
export type Coding = (typeof CODINGS)[number];

/** gzip at zlib's default level; brotli at quality 4 (11, its default, costs many times more). */
const GZIP_LEVEL = 6;
const BROTLI_QUALITY = 4;

/** Accept-Encoding's quality values by coding (lowercase; `x-gzip` is gzip, RFC 9110 8.4.1.3). */
function qualities(header: string): Map<string, number> {
  const byCoding = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name = '', ...parameters] = part.split(';').map((item) => item.trim());
    if (name === '') continue;
    let quality = 1;
    for (const parameter of parameters) {
      const match = /^q\s*=\s*(.*)$/i.exec(parameter);
      // A quality that is not a number from 0 to 1 makes the entry unacceptable, never a 4xx.
      if (match) quality = /^(0(\.[0-9]{0,3})?|1(\.0{0,3})?)$/.test(match[1]!) ? Number(match[1]) : 0;
    }
    const coding = name.toLowerCase() === 'x-gzip' ? 'gzip' : name.toLowerCase();
    byCoding.set(coding, Math.max(quality, byCoding.get(coding) ?? 0));
  }
  return byCoding;
}

/**
 * The coding to answer with for `header` (RFC 9110 12.5.3), or null for none: the acceptable coding
 * (q > 0) with the highest quality, gzip before br when they tie, and none when identity ranks above
 * both. Identity not named ranks as `*`, else as the least wanted coding named (as the negotiator
 * package does: `gzip;q=0.5` alone asks for gzip). No Accept-Encoding means no compression (a
 * client that sends none may not decode any).
 */
export function negotiateCoding(header: string | undefined): Coding | null {
  if (header === undefined) return null;
  const byCoding = qualities(header);
  const any = byCoding.get('*');
  const least = byCoding.size > 0 ? Math.min(...byCoding.values()) : 1;
  const qualityOf = (coding: string) => byCoding.get(coding) ?? any ?? (coding === 'identity' ? least : 0);
  let best: Coding | null = null;
  for (const coding of CODINGS) {
    if (qualityOf(coding) > 0 && (best === null || qualityOf(coding) > qualityOf(best))) best = coding;
  }
  return best !== null && qualityOf(best) >= qualityOf('identity') ? best : null;
}

/** The strong tag of the `coding` form of a representation tagged `etag`; a weak tag stays as it is. */
export function encodedEtag(etag: string, coding: Coding): string {
  return etag.startsWith('"') && etag.endsWith('"') ? `${etag.slice(0, -1)}-${coding}"` : etag;
}

/** The size of the body a 304 stands for (sendTagged), so that it can carry the right tag. */
const representationBytes = new WeakMap<Response, number>();

/** Notes that `response` answers 304 for a body of `bytes` (decides the 304's ETag form). */
export function noteRepresentationBytes(response: Response, bytes: number): void {
  representationBytes.set(response, bytes);
}

/** A header's value as one string ('' when absent). */
function headerText(value: number | string | string[] | undefined): string {
  return value === undefined ? '' : [value].flat().join(', ');
}

function isJson(contentType: string): boolean {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}

/** Adds Accept-Encoding to Vary (once). */
function varyOnAcceptEncoding(response: Response): void {
  const names = headerText(response.getHeader('Vary'))
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.some((name) => name === '*' || name.toLowerCase() === 'accept-encoding')) return;
  response.setHeader('Vary', [...names, 'Accept-Encoding'].join(', '));
}

/**
 * What the answer about to be sent becomes: the coding to compress it with, or null. Sets Vary,
 * Content-Encoding and the ETag's form; drops Content-Length when compressing. `bodyBytes` is the
 * body's size when known (Content-Length, or the one chunk given to `end`); unknown means streamed.
 */
function decide(
  request: Request,
  response: Response,
  thresholdBytes: number,
  bodyBytes: number | undefined,
): Coding | null {
  const status = response.statusCode;
  // A 304 has no Content-Type: it stands for the JSON body sendTagged would have sent.
  const notModifiedBytes = status === 304 ? representationBytes.get(response) : undefined;
  if (notModifiedBytes === undefined && !isJson(headerText(response.getHeader('Content-Type')))) return null;
  if (response.getHeader('Content-Encoding') !== undefined) return null;
  // A download leaves as stored (an attachment may be JSON, and may be compressed already).
  if (response.getHeader('Content-Disposition') !== undefined) return null;
  if (/(^|[\s,])no-transform($|[\s,])/i.test(headerText(response.getHeader('Cache-Control')))) return null;
  varyOnAcceptEncoding(response);
  // HEAD describes the uncompressed answer (no body to encode); 204 and 1xx have none either.
  if (request.method === 'HEAD' || status === 204 || status < 200) return null;
  const coding = negotiateCoding(request.headers['accept-encoding']);
  if (coding === null) return null;
  const bytes = notModifiedBytes ?? bodyBytes;
  if (bytes !== undefined && bytes < thresholdBytes) return null;
  const etag = response.getHeader('ETag');
  if (typeof etag === 'string') response.setHeader('ETag', encodedEtag(etag, coding));
  // A 304 carries the tag of the form the client would have got, and no body.
  if (status === 304) return null;
  response.setHeader('Content-Encoding', coding);
  response.removeHeader('Content-Length');
  return coding;
}

function brotliOptions(bodyBytes: number | undefined): BrotliOptions {
  return {
    params: {
      [zlibConstants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
      [zlibConstants.BROTLI_PARAM_MODE]: zlibConstants.BROTLI_MODE_TEXT,
      ...(bodyBytes !== undefined ? { [zlibConstants.BROTLI_PARAM_SIZE_HINT]: bodyBytes } : {}),
    },
  };
}

/** The compressor of `coding` with the gateway's settings, for a streamed answer. */
export function createCompressor(coding: Coding, bodyBytes: number | undefined): Transform {
  if (coding === 'gzip') return createGzip({ level: GZIP_LEVEL });
  return createBrotliCompress(brotliOptions(bodyBytes));
}

/**
 * A whole body compressed in one call (zlib's thread pool, as a stream would), with the same
 * settings: no stream to set up and tear down, which is most of the cost for a body of a few
 * kilobytes (also what the gateway bench times).
 */
export function compressWhole(coding: Coding, body: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, result: Buffer) => (error ? reject(error) : resolve(result));
    if (coding === 'gzip') gzip(body, { level: GZIP_LEVEL }, done);
    else brotliCompress(body, brotliOptions(body.byteLength), done);
  });
}

function bytesOf(chunk: unknown, encoding?: unknown): number | undefined {
  if (typeof chunk === 'string')
    return Buffer.byteLength(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
  if (chunk instanceof Uint8Array) return chunk.byteLength;
  return chunk === undefined || chunk === null ? 0 : undefined;
}

function toBuffer(chunk: unknown, encoding?: unknown): Buffer {
  if (typeof chunk === 'string')
    return Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
  return Buffer.from(chunk as Uint8Array);
}

/**
 * The middleware: wraps writeHead, write and end of each response so that the decision is taken when
 * the headers go out, and the body, when compressed, goes through the compressor. A writer waiting
 * for 'drain' (backpressure.ts) hears it from the socket or from the compressor, whichever was full.
 */
export function compressJson(options: { thresholdBytes?: number } = {}): RequestHandler {
  const thresholdBytes = options.thresholdBytes ?? COMPRESSION_THRESHOLD_BYTES;
  return (request, response, next) => {
    const originalWriteHead = response.writeHead.bind(response) as (...args: unknown[]) => Response;
    const originalWrite = response.write.bind(response) as (...args: unknown[]) => boolean;
    const originalEnd = response.end.bind(response) as (...args: unknown[]) => Response;
    let decided = false;
    let stream: Transform | null = null;

    /** The body's size: Content-Length when set, else what the caller knows (undefined: streamed). */
    const knownBytes = (bodyBytes: number | undefined): number | undefined => {
      const length = response.getHeader('Content-Length');
      return length !== undefined ? Number(length) : bodyBytes;
    };
    /** Decides once, when the headers are about to go out (see decide). */
    const decideOnce = (bodyBytes: number | undefined): Coding | null => {
      if (decided) return null;
      decided = true;
      return decide(request, response, thresholdBytes, bodyBytes);
    };
    /** Set while a whole body is being compressed: a second end() must not end the answer early. */
    let endingWhole = false;

    /** A body written in parts goes through a compressor as it is written. */
    const start = (bodyBytes: number | undefined) => {
      const known = knownBytes(bodyBytes);
      const coding = decideOnce(known);
      if (coding === null) return;
      const compressing = createCompressor(coding, known);
      stream = compressing;
      compressing.on('data', (chunk: Buffer) => {
        if (!originalWrite.call(response, chunk)) compressing.pause();
      });
      compressing.on('end', () => originalEnd.call(response));
      compressing.on('drain', () => response.emit('drain'));
      // Compressing bytes in memory fails only when memory does: the answer is cut short.
      compressing.on('error', (error: Error) => response.destroy(error));
      response.on('drain', () => compressing.resume());
      response.on('close', () => compressing.destroy());
    };

    response.writeHead = function writeHead(this: Response, status: number, ...rest: unknown[]) {
      // Headers given here join the others first, so that the decision sees them.
      const headers = rest.find((item) => typeof item === 'object' && item !== null);
      if (headers && !Array.isArray(headers)) {
        for (const [name, value] of Object.entries(headers)) {
          if (value !== undefined) this.setHeader(name, value as string | number | string[]);
        }
      }
      this.statusCode = status;
      start(undefined);
      const kept = rest.filter((item) => typeof item === 'string' || Array.isArray(item));
      return originalWriteHead.call(this, this.statusCode, ...kept);
    } as Response['writeHead'];

    response.write = function write(this: Response, chunk: unknown, ...rest: unknown[]) {
      if (!this.headersSent) start(undefined);
      if (stream === null) return originalWrite.call(this, chunk, ...rest);
      if (!this.headersSent) originalWriteHead.call(this, this.statusCode);
      const callback = rest.find((item) => typeof item === 'function') as (() => void) | undefined;
      return stream.write(toBuffer(chunk, rest[0]), callback);
    } as Response['write'];

    response.end = function end(this: Response, ...args: unknown[]) {
      const callback = args.find((item) => typeof item === 'function') as (() => void) | undefined;
      const [chunk, encoding] = args.filter((item) => typeof item !== 'function');
      if (!this.headersSent && !decided) {
        // The whole body in one call (sendData, the common case): compressed at once and sent with
        // its length.
        const coding = decideOnce(knownBytes(bytesOf(chunk, encoding)));
        if (coding === null) return originalEnd.call(this, ...args);
        endingWhole = true;
        compressWhole(coding, toBuffer(chunk ?? '', encoding)).then(
          (body) => {
            if (this.destroyed) return;
            this.setHeader('Content-Length', body.byteLength);
            originalEnd.call(this, body, callback);
          },
          (error: Error) => this.destroy(error),
        );
        return this;
      }
      if (endingWhole) return this;
      if (stream === null) return originalEnd.call(this, ...args);
      if (stream.writableEnded) return this;
      if (!this.headersSent) originalWriteHead.call(this, this.statusCode);
      if (callback) this.once('finish', callback);
      if (chunk !== undefined && chunk !== null) stream.end(toBuffer(chunk, encoding));
      else stream.end();
      return this;
    } as Response['end'];
    next();
  };
}

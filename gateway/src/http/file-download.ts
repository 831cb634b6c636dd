/**
 * Sending a stored file as the raw body of a download (the one response that is not the JSON
 * envelope): the headers the spec fixes, then the bytes as they arrive, waiting whenever the client
 * reads slower than they come, so the gateway never holds more than a few chunks.
 */
import type { Response } from 'express';
import { drained } from './backpressure.js';

/** What the response headers are made of. */
export interface DownloadedFile {
  contentType: string;
  filename: string;
  sizeBytes: number;
}

/** RFC 8187 attr-char keeps A-Z a-z 0-9 ! # $ & + - . ^ _ ` | ~; encodeURIComponent leaves ' ( ) * too. */
function encodeRfc8187(value: string): string {
  return encodeURIComponent(value).replace(
    /['()*]/g,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/**
 * `attachment; filename="<ascii fallback>"; filename*=UTF-8''<percent-encoded>` (RFC 6266), both
 * parameters always: the fallback replaces every character outside printable ASCII with `_` and
 * escapes `"` and `\`; `filename*` carries the exact name. (The `content-disposition` package omits
 * `filename*` for ASCII names, which the spec does not allow.)
 */
export function contentDisposition(filename: string): string {
  const fallback = Array.from(filename, (character) => (/^[\x20-\x7e]$/.test(character) ? character : '_'))
    .join('')
    .replace(/["\\]/g, '\\$&');
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeRfc8187(filename)}`;
}

/**
 * Writes the download response: status 200, Content-Type, Content-Disposition, Content-Length,
 * `Cache-Control: private, no-cache`, `X-Content-Type-Options: nosniff`, then `chunks` (none for
 * HEAD). A failure after the headers went out can only cut the body short (the client sees fewer
 * bytes than Content-Length); it is logged and the connection closed. `chunks` is always finished
 * (return()), which cancels the upstream stream when the client left early.
 */
export async function sendFile(
  response: Response,
  file: DownloadedFile,
  chunks: AsyncIterator<Buffer>,
  options: { headOnly: boolean },
): Promise<void> {
  response.statusCode = 200;
  response.setHeader('Content-Type', file.contentType);
  response.setHeader('Content-Disposition', contentDisposition(file.filename));
  response.setHeader('Content-Length', String(file.sizeBytes));
  response.setHeader('Cache-Control', 'private, no-cache');
  response.setHeader('X-Content-Type-Options', 'nosniff');
  try {
    if (options.headOnly) {
      response.end();
      return;
    }
    for (;;) {
      const next = await chunks.next();
      if (next.done) break;
      if (!response.write(next.value)) await drained(response);
      if (response.destroyed) return;
    }
    response.end();
  } catch (error) {
    response.req.log.error({ err: error }, 'download failed after the response started; cutting it short');
    response.destroy();
  } finally {
    await chunks.return?.(undefined);
  }
}

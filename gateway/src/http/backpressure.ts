/** Writing a streamed response no faster than the client reads it. */
import type { Response } from 'express';

/** Characters gathered before one write: small items go out in fewer, larger writes. */
export const STREAM_FLUSH_CHARS = 64 * 1024;

/** Resolves once the response can take more (after `write` returned false), or is gone. */
export function drained(response: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.once('drain', done);
    response.once('close', done);
  });
}

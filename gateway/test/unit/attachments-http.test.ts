/**
 * The attachment routes' HTTP pieces without a network: the Content-Disposition builder, the
 * multipart reader against an in-memory request and sink (limits, refusals, backpressure), which
 * requests are uploads, and the limits configuration.
 */
import { PassThrough } from 'node:stream';
import type { Request } from 'express';
import { expect } from 'chai';
import { AppError, ConfigError } from '@tix/kit';
import { fileTooLargeMessage as serviceTooLargeMessage } from '@tix/attachment-service/testing';
import { contentDisposition } from '../../src/http/file-download.js';
import {
  isMultipartFormData,
  receiveSingleFile,
  SINK_CHUNK_BYTES,
  type FileSink,
  type IncomingFile,
} from '../../src/http/multipart-upload.js';
import { OPERATIONS } from '../../src/routes/index.js';
import { readsOwnBody } from '../../src/routes/mount.js';
import { loadConfig } from '../../src/config.js';
import { fileTooLargeMessage } from '../../src/routes/v1/attachments.schemas.js';

const BOUNDARY = 'unit-boundary';

function multipart(
  parts: { name: string; filename?: string; type?: string; body: Buffer | string }[],
): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const filename = part.filename === undefined ? '' : `; filename="${part.filename}"`;
    const type = part.type ? `\r\nContent-Type: ${part.type}` : '';
    chunks.push(
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part.name}"${filename}${type}\r\n\r\n`,
      ),
    );
    chunks.push(Buffer.isBuffer(part.body) ? part.body : Buffer.from(part.body));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

/** A request stream carrying `body` in `pieceBytes` pieces (one per millisecond when `paced`). */
function requestOf(
  body: Buffer,
  headers: Record<string, string> = {},
  pieceBytes = 100_000,
  paced = false,
): Request {
  const stream = new PassThrough();
  Object.assign(stream, {
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, ...headers },
    complete: false,
  });
  stream.on('end', () => Object.assign(stream, { complete: true }));
  void (async () => {
    await new Promise((resolve) => setImmediate(resolve));
    for (let offset = 0; offset < body.length; offset += pieceBytes) {
      stream.write(body.subarray(offset, offset + pieceBytes));
      if (paced) await new Promise((resolve) => setTimeout(resolve, 1));
    }
    stream.end();
  })();
  return stream as unknown as Request;
}

/** A sink recording what it got; `blockEvery` writes answer false (and drain a tick later). */
function recordingSink(options: { blockEvery?: number; answer?: Promise<string> } = {}) {
  const received: Buffer[] = [];
  const state = { opened: [] as IncomingFile[], ended: false, aborted: false, blocked: 0 };
  let drainListener: (() => void) | undefined;
  const open = (file: IncomingFile): FileSink<string> => {
    state.opened.push(file);
    return {
      write(chunk) {
        received.push(Buffer.from(chunk));
        if (options.blockEvery && received.length % options.blockEvery === 0) {
          state.blocked += 1;
          setTimeout(() => drainListener?.(), 5);
          return false;
        }
        return true;
      },
      onceDrain(listener) {
        drainListener = listener;
      },
      end() {
        state.ended = true;
      },
      abort() {
        state.aborted = true;
      },
      result: options.answer ?? new Promise<string>((resolve) => setTimeout(() => resolve('stored'), 20)),
    };
  };
  return { open, received, state };
}

async function refusal(work: Promise<unknown>): Promise<{ kind: string; message: string; errors?: unknown }> {
  try {
    await work;
  } catch (error) {
    expect(error).to.be.instanceOf(AppError);
    const appError = error as AppError;
    return { kind: appError.kind, message: appError.message, errors: appError.validationErrors };
  }
  throw new Error('expected a refusal');
}

describe('attachments over HTTP (unit)', () => {
  describe('contentDisposition', () => {
    it('always sends both filename and filename*, also for ASCII names', () => {
      expect(contentDisposition('report.pdf')).to.equal(
        `attachment; filename="report.pdf"; filename*=UTF-8''report.pdf`,
      );
    });

    it('replaces non-ASCII in the fallback (one _ per character) and percent-encodes the exact name', () => {
      expect(contentDisposition('Résumé 😀.pdf')).to.equal(
        `attachment; filename="R_sum_ _.pdf"; filename*=UTF-8''R%C3%A9sum%C3%A9%20%F0%9F%98%80.pdf`,
      );
    });

    it("escapes quotes and backslashes in the fallback, and ' ( ) * in filename*", () => {
      const header = contentDisposition(`a "b" \\ it's (1)*.txt`);
      expect(header).to.equal(
        `attachment; filename="a \\"b\\" \\\\ it's (1)*.txt"; filename*=UTF-8''a%20%22b%22%20%5C%20it%27s%20%281%29%2A.txt`,
      );
      expect(header).to.match(/^attachment; filename="[ -~]+"; filename\*=UTF-8''[A-Za-z0-9%!._~-]+$/);
    });

    it('keeps control characters out of the header', () => {
      expect(contentDisposition('a\r\nb')).to.equal(`attachment; filename="a__b"; filename*=UTF-8''a%0D%0Ab`);
    });
  });

  describe('receiveSingleFile', () => {
    const options = (sink: ReturnType<typeof recordingSink>, maxBytes = 1000) => ({
      fieldName: 'file',
      maxBytes,
      tooLargeMessage: fileTooLargeMessage(maxBytes),
      openSink: sink.open,
    });

    it('forwards the one file in pieces of at most 16 KiB, honours backpressure, and ends the sink', async () => {
      const bytes = Buffer.alloc(300_000, 7);
      const sink = recordingSink({ blockEvery: 2 });
      const body = multipart([
        { name: 'comment', body: 'ignored' },
        { name: 'file', filename: 'Zoë.bin', type: 'image/png', body: bytes },
      ]);
      const answer = await receiveSingleFile(requestOf(body), options(sink, 1_000_000));
      expect(answer).to.equal('stored');
      expect(sink.state.opened).to.deep.equal([{ filename: 'Zoë.bin', mimeType: 'image/png' }]);
      expect(Buffer.concat(sink.received).equals(bytes)).to.equal(true);
      expect(Math.max(...sink.received.map((chunk) => chunk.length))).to.be.at.most(SINK_CHUNK_BYTES);
      expect(sink.state.blocked).to.be.greaterThan(0);
      expect(sink.state).to.deep.include({ ended: true, aborted: false });
    });

    it('refuses more than the maximum, aborting the sink; exactly the maximum passes', async () => {
      const over = recordingSink();
      expect(
        await refusal(
          receiveSingleFile(
            requestOf(multipart([{ name: 'file', filename: 'a', body: Buffer.alloc(1001) }])),
            options(over),
          ),
        ),
      ).to.deep.equal({
        kind: 'validation_failed',
        message: 'Validation failed',
        errors: { file: ['File is larger than 1000 bytes'] },
      });
      expect(over.state).to.deep.include({ ended: false, aborted: true });

      const exact = recordingSink();
      await receiveSingleFile(
        requestOf(multipart([{ name: 'file', filename: 'a', body: Buffer.alloc(1000) }])),
        options(exact),
      );
      expect(exact.state.ended).to.equal(true);
    });

    it('refuses from Content-Length alone when it is far beyond the maximum, opening nothing', async () => {
      const sink = recordingSink();
      const body = multipart([{ name: 'file', filename: 'a', body: Buffer.alloc(10) }]);
      const result = await refusal(
        receiveSingleFile(requestOf(body, { 'content-length': String(5 * 1024 * 1024) }), options(sink)),
      );
      expect(result.errors).to.deep.equal({ file: ['File is larger than 1000 bytes'] });
      expect(sink.state.opened).to.deep.equal([]);
    });

    it('refuses no file, two files, a file in another field, non-multipart and malformed bodies', async () => {
      const cases: [Request, unknown][] = [
        [
          requestOf(multipart([{ name: 'file', body: 'text only' }])),
          { file: ['File is required (multipart/form-data field "file")'] },
        ],
        [
          requestOf(
            multipart([
              { name: 'file', filename: 'a', body: 'x' },
              { name: 'file', filename: 'b', body: 'y' },
            ]),
          ),
          { file: ['Exactly one file is allowed, in the form field "file"'] },
        ],
        [
          requestOf(multipart([{ name: 'upload', filename: 'a', body: 'x' }])),
          { file: ['Exactly one file is allowed, in the form field "file"'] },
        ],
        [
          requestOf(Buffer.from('{}'), { 'content-type': 'application/json' }),
          { file: ['Send the file as multipart/form-data in the field "file"'] },
        ],
      ];
      for (const [request, errors] of cases) {
        const sink = recordingSink();
        const result = await refusal(receiveSingleFile(request, options(sink)));
        expect(result.errors).to.deep.equal(errors);
        expect(sink.state.ended).to.equal(false);
      }
      for (const request of [
        requestOf(Buffer.from('no parts here'), { 'content-type': 'multipart/form-data; boundary=zzz' }),
        requestOf(Buffer.from('x'), { 'content-type': 'multipart/form-data' }),
      ]) {
        expect(await refusal(receiveSingleFile(request, options(recordingSink())))).to.deep.include({
          kind: 'bad_request',
          message: 'Malformed multipart/form-data body',
        });
      }
    });

    it('passes on an early refusal of the far side and stops forwarding', async () => {
      const answer = new Promise<string>((_, reject) =>
        setTimeout(() => reject(AppError.notFound('Ticket not found')), 10),
      );
      const sink = recordingSink({ answer });
      const body = multipart([{ name: 'file', filename: 'a', body: Buffer.alloc(500_000) }]);
      const request = requestOf(body, {}, 5_000, true);
      expect(await refusal(receiveSingleFile(request, options(sink, 1_000_000)))).to.deep.include({
        kind: 'not_found',
        message: 'Ticket not found',
      });
      expect(sink.state).to.deep.include({ ended: false, aborted: true });
      // The rest of the body is read and dropped, not forwarded.
      await new Promise((resolve) => (request as unknown as PassThrough).once('end', resolve));
      expect(Buffer.concat(sink.received).length).to.be.lessThan(500_000);
    });
  });

  it('recognises multipart requests and upload routes', () => {
    expect(isMultipartFormData('multipart/form-data; boundary=x')).to.equal(true);
    expect(isMultipartFormData('Multipart/Form-Data')).to.equal(true);
    for (const type of [
      undefined,
      'multipart/mixed; boundary=x',
      'application/json',
      'multipart/form-datax',
    ]) {
      expect(isMultipartFormData(type), String(type)).to.equal(false);
    }
    const isUpload = readsOwnBody(OPERATIONS, 'api');
    const upload = (method: string, path: string) => isUpload({ method, path });
    expect(upload('POST', '/tickets/12/attachments')).to.equal(true);
    expect(upload('POST', '/tickets/abc/attachments/')).to.equal(true);
    expect(upload('GET', '/tickets/12/attachments')).to.equal(false);
    expect(upload('POST', '/tickets/12/comments')).to.equal(false);
    expect(upload('POST', '/tickets/12/attachments/1')).to.equal(false);
  });

  it('reads the limits from the environment, with the service’s wording of the maximum', () => {
    expect(loadConfig({}).attachments).to.deep.equal({ maxBytes: 26_214_400, transferDeadlineMs: 600_000 });
    expect(
      loadConfig({ ATTACHMENT_MAX_BYTES: '1048576', ATTACHMENT_TRANSFER_TIMEOUT_MS: '5000' }).attachments,
    ).to.deep.equal({
      maxBytes: 1_048_576,
      transferDeadlineMs: 5_000,
    });
    expect(() => loadConfig({ ATTACHMENT_MAX_BYTES: 'lots' })).to.throw(ConfigError, /ATTACHMENT_MAX_BYTES/);
    for (const size of [25 * 1024 * 1024, 1024 * 1024, 256 * 1024, 1000, 1536 * 1024]) {
      expect(fileTooLargeMessage(size)).to.equal(serviceTooLargeMessage(size));
    }
    expect(fileTooLargeMessage(25 * 1024 * 1024)).to.equal('File is larger than 25 MB');
  });
});

/**
 * The spool on a real disk: what it measures while receiving (size, hash, head, UTF-8 across chunk
 * boundaries), the size limit stopping early with its file removed, cancellation and stalls, a disk
 * that refuses a write, and the start-up clean-up of files left by a killed process.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { AppError } from '@tix/kit';
import { refusal } from '@tix/kit/testing';
import { removeStaleSpoolFiles, spoolChunks } from '../../src/uploads/spool.js';

async function* from(chunks: Buffer[], options: { thenHang?: boolean } = {}): AsyncGenerator<Buffer> {
  for (const chunk of chunks) yield chunk;
  if (options.thenHang) await new Promise(() => undefined);
}

describe('spool', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'tix-spool-test-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const options = () => ({ dir, maxBytes: 1000, headBytes: 8, idleTimeoutMs: 5_000 });

  it('writes the bytes and measures size, hash and head', async () => {
    const parts = [Buffer.from('hello '), Buffer.from('spooled '), Buffer.from('world')];
    const file = await spoolChunks(from(parts), options());
    const all = Buffer.concat(parts);
    expect(await readFile(file.path)).to.deep.equal(all);
    expect(file).to.deep.include({
      sizeBytes: all.length,
      sha256: createHash('sha256').update(all).digest('hex'),
      isUtf8Text: true,
    });
    expect(file.head.toString()).to.equal('hello sp');
    await file.remove();
    await file.remove();
    expect(await readdir(dir)).to.deep.equal([]);
  });

  it('judges UTF-8 over the whole file, across chunk boundaries', async () => {
    const euro = Buffer.from('€', 'utf8');
    const split = await spoolChunks(from([euro.subarray(0, 1), euro.subarray(1)]), options());
    expect(split.isUtf8Text).to.equal(true);
    const truncated = await spoolChunks(from([Buffer.from('ok'), euro.subarray(0, 2)]), options());
    expect(truncated.isUtf8Text).to.equal(false);
    const withNul = await spoolChunks(from([Buffer.from('a'), Buffer.from([0])]), options());
    expect(withNul.isUtf8Text).to.equal(false);
    const latin1 = await spoolChunks(from([Buffer.from([0x61, 0xe9, 0x62])]), options());
    expect(latin1.isUtf8Text).to.equal(false);
  });

  it('stops at the first byte over the limit and removes the partial file', async () => {
    const error = await refusal(
      spoolChunks(from([Buffer.alloc(600), Buffer.alloc(401), Buffer.alloc(5000)]), options()),
    );
    expect(error.validationErrors).to.deep.equal({ file: ['File is larger than 1000 bytes'] });
    expect(await readdir(dir)).to.deep.equal([]);
    const exact = await spoolChunks(from([Buffer.alloc(600), Buffer.alloc(400)]), options());
    expect(exact.sizeBytes).to.equal(1000);
  });

  it('gives up on a cancelled sender and on a silent one, removing the file', async () => {
    const controller = new AbortController();
    const cancelled = spoolChunks(from([Buffer.from('x')], { thenHang: true }), {
      ...options(),
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(AppError.unavailable('Call cancelled by the caller')), 50);
    expect((await refusal(cancelled)).message).to.equal('Call cancelled by the caller');

    const stalled = await refusal(
      spoolChunks(from([Buffer.from('x')], { thenHang: true }), { ...options(), idleTimeoutMs: 100 }),
    );
    expect({ kind: stalled.kind, message: stalled.message }).to.deep.equal({
      kind: 'timeout',
      message: 'Upload stalled: no data for 100 ms',
    });
    expect(await readdir(dir)).to.deep.equal([]);
  });

  it('fails cleanly when the disk refuses a write, removing the partial file', async () => {
    // A process whose files may not grow past 32 KiB (ulimit -f, 512-byte blocks): its writes fail
    // with EFBIG, as they would with ENOSPC on a full disk. It reports what spoolChunks did.
    const spool = fileURLToPath(new URL('../../src/uploads/spool.ts', import.meta.url));
    const script = `
      import { readdir } from 'node:fs/promises';
      import { spoolChunks } from ${JSON.stringify(spool)};
      async function* chunks() { for (let i = 0; i < 64; i += 1) yield Buffer.alloc(16 * 1024, i); }
      const options = { dir: ${JSON.stringify(dir)}, maxBytes: 10_000_000, headBytes: 8, idleTimeoutMs: 5_000 };
      const outcome = await spoolChunks(chunks(), options).then(
        () => ({ stored: true }),
        (error) => ({ code: error.code }),
      );
      console.log(JSON.stringify({ ...outcome, files: await readdir(options.dir) }));`;
    const { stdout } = await promisify(execFile)(
      'sh',
      [
        '-c',
        'ulimit -f 64 && exec "$0" "$@"',
        process.execPath,
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        script,
      ],
      { cwd: fileURLToPath(new URL('../..', import.meta.url)) },
    );
    expect(JSON.parse(stdout)).to.deep.equal({ code: 'EFBIG', files: [] });
  });

  it('removes spool files older than the cut-off only', async () => {
    await writeFile(path.join(dir, 'old.part'), 'x');
    await writeFile(path.join(dir, 'new.part'), 'x');
    await writeFile(path.join(dir, 'other.txt'), 'x');
    const hourAgo = new Date(Date.now() - 2 * 3_600_000);
    await utimes(path.join(dir, 'old.part'), hourAgo, hourAgo);
    await utimes(path.join(dir, 'other.txt'), hourAgo, hourAgo);
    expect(await removeStaleSpoolFiles(dir, 3_600_000)).to.equal(1);
    expect((await readdir(dir)).sort()).to.deep.equal(['new.part', 'other.txt']);
    expect(await removeStaleSpoolFiles(path.join(dir, 'missing'), 1)).to.equal(0);
  });
});

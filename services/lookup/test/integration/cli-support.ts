/** Running the real `tix` bin in integration tests. */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { suiteFixture } from '@tix/kit/testing';
import { startLookupFixture, type LookupFixture } from './support.js';

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/tix.js');

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real `tix` bin as a child process, as `pnpm tix` does; `input` is written to its stdin. */
export function tix(
  args: string[],
  env: Record<string, string>,
  options: { input?: string } = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    // Without input, stdin is empty (as from /dev/null); a child that exits first may not read it.
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** stdout of a successful --json run: exactly one JSON object. */
export function json(run: Run): Record<string, unknown> {
  expect(run.code, run.stderr).to.equal(0);
  const value: unknown = JSON.parse(run.stdout);
  expect(value).to.be.an('object').and.not.be.an('array');
  return value as Record<string, unknown>;
}

/** A CLI suite's lookup fixture (suiteFixture) with `env`, the environment that points `tix` at it. */
export function cliSuite(): LookupFixture & { env: Record<string, string> } {
  return suiteFixture(async () => {
    const lookup = await startLookupFixture();
    return Object.assign(lookup, { env: { LOOKUP_SERVICE_ADDR: lookup.server.address } });
  });
}

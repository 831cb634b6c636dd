/**
 * The baseline runs in its own Node process, like the gateway: in the bench's process it would share
 * one event loop with autocannon and look slower than it is. This file is both the launcher (used
 * by run.ts) and the child's entry point (`node --import tsx baseline-process.ts`, configured by
 * the BENCH_BASELINE environment variable, printing `listening <url>` once it accepts requests).
 */
import { spawn } from 'node:child_process';
import readline from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startBaselineServer, type BaselineOptions } from './baseline-server.js';

const CONFIG_VARIABLE = 'BENCH_BASELINE';

export interface BaselineProcess {
  url: string;
  pid: number;
  /** SIGTERM, then SIGKILL after 5 s; resolves when the process has exited. */
  stop(): Promise<void>;
}

/** Starts the baseline as a child process and resolves with its URL once it is listening. */
export async function startBaselineProcess(options: BaselineOptions): Promise<BaselineProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], {
    env: { ...process.env, [CONFIG_VARIABLE]: JSON.stringify(options) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const lines = readline.createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      const match = /^listening (\S+)$/.exec(line);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the baseline exited with code ${code} before listening`)));
    child.once('error', reject);
  });
  return {
    url,
    pid: child.pid!,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

async function runChild(): Promise<void> {
  const options = JSON.parse(process.env[CONFIG_VARIABLE] ?? '') as BaselineOptions;
  const server = await startBaselineServer(options);
  process.stdout.write(`listening ${server.url}\n`);
  const shutdown = () => {
    void server.close().finally(() => process.exit(0));
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  runChild().catch((error: unknown) => {
    process.stderr.write(`baseline: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
}

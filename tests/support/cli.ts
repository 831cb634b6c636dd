/** Runs the admin CLI (`pnpm tix ...`) against the fleet under test. */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from '@tix/local/fleet-layout';
import { fleet } from './fleet.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as the one JSON object it must be (throws otherwise). */
  json<T = Record<string, unknown>>(): T;
}

/**
 * Runs the CLI as a user would. `viaPnpm` goes through `pnpm tix` (the documented entry point);
 * otherwise the bin is run with node directly, which is faster.
 */
export function tix(args: string[], options: { viaPnpm?: boolean; input?: string } = {}): Promise<CliResult> {
  const command = options.viaPnpm ? 'pnpm' : process.execPath;
  const argv = options.viaPnpm
    ? ['tix', ...args]
    : [path.join(REPO_ROOT, 'services/lookup/bin/tix.js'), ...args];
  return new Promise((resolve) => {
    const child = execFile(
      command,
      argv,
      { cwd: REPO_ROOT, env: fleet().env, timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({
          code,
          stdout,
          stderr,
          json: <T>() => JSON.parse(stdout) as T,
        });
      },
    );
    // Standard input carries what must not be on the command line (--password-stdin).
    child.stdin?.end(options.input ?? '');
  });
}

/** Runs the CLI and returns its JSON output, failing loudly when it did not succeed. */
export async function tixJson<T = Record<string, unknown>>(
  args: string[],
  options: { input?: string } = {},
): Promise<T> {
  const result = await tix([...args, '--json'], options);
  if (result.code !== 0) throw new Error(`tix ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
  return result.json<T>();
}

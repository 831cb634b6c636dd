/** Entry point of `pnpm tix` (bin/tix.js loads it through tsx). */
import { runCli } from './run-cli.js';

try {
  process.exitCode = await runCli(process.argv.slice(2), {
    env: process.env,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  });
} catch (error) {
  process.stderr.write(
    `tix: unexpected failure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 70; // EX_SOFTWARE
}

/** Entry point of `pnpm tix` (bin/tix.js loads it through tsx). */
import { runCli } from './run-cli.js';

/** Enough for any password line (the service allows 1024 characters); reading stops there. */
const STDIN_LIMIT_CHARACTERS = 64 * 1024;

/** Standard input up to its first line break (or its end, or the limit), then let go of it. */
function readStdinFirstLine(): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const finish = () => {
      process.stdin.off('data', onData).off('end', finish).off('error', reject);
      process.stdin.destroy();
      resolve(text);
    };
    const onData = (chunk: string) => {
      text += chunk;
      if (text.includes('\n') || text.length >= STDIN_LIMIT_CHARACTERS) finish();
    };
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', onData).on('end', finish).on('error', reject);
  });
}

try {
  process.exitCode = await runCli(process.argv.slice(2), {
    env: process.env,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    stdin: readStdinFirstLine,
  });
} catch (error) {
  process.stderr.write(
    `tix: unexpected failure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 70; // EX_SOFTWARE
}

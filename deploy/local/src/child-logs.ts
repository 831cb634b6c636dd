/**
 * Prefixed, readable logs of the fleet's processes in one terminal. Children write pino JSON lines; in a
 * terminal they are shown as `[lookup] 12:00:01 info  gRPC server listening port=50051`, otherwise
 * (CI, files) the JSON line is kept whole behind the prefix.
 */
import readline from 'node:readline';
import type { Readable } from 'node:stream';

const COLORS = [36, 35, 33, 32, 34, 91, 96];
const LEVEL_COLORS: Record<string, number> = {
  fatal: 31,
  error: 31,
  warn: 33,
  info: 32,
  debug: 90,
  trace: 90,
};
const HIDDEN_KEYS = new Set(['level', 'time', 'msg', 'service', 'pid', 'hostname']);

export function prefixLines(
  name: string,
  index: number,
  stream: Readable,
  out: NodeJS.WritableStream,
  pretty: boolean,
): void {
  const color = COLORS[index % COLORS.length] ?? 37;
  const prefix = pretty ? `\x1b[${color}m[${name.padEnd(11)}]\x1b[0m ` : `[${name}] `;
  readline
    .createInterface({ input: stream })
    .on('line', (line) => out.write(`${prefix}${pretty ? humanize(line) : line}\n`));
}

function humanize(line: string): string {
  if (!line.startsWith('{')) return line;
  try {
    const entry = JSON.parse(line) as Record<string, unknown>;
    const level = typeof entry.level === 'string' ? entry.level : 'info';
    const time = typeof entry.time === 'string' ? entry.time.slice(11, 19) : '';
    const extras = Object.entries(entry)
      .filter(([key]) => !HIDDEN_KEYS.has(key))
      .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
      .join(' ');
    return `${time} \x1b[${LEVEL_COLORS[level] ?? 37}m${level.padEnd(5)}\x1b[0m ${typeof entry.msg === 'string' ? entry.msg : ''} \x1b[90m${extras}\x1b[0m`;
  } catch {
    return line;
  }
}

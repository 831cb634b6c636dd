/** What every `pnpm bench` entry reads from its command line the same way. */

/** True when the command line asks for the bench `name` (`--only name` or `--only=name`). */
export function asksFor(argv: string[], name: string): boolean {
  const index = argv.indexOf('--only');
  return argv.includes(`--only=${name}`) || (index !== -1 && argv[index + 1] === name);
}

/** `--name`'s value as a positive integer, `fallback` when absent; throws a usage message otherwise. */
export function positiveInt(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^[0-9]+$/.test(value) || Number(value) < 1) throw new Error(`--${name} must be a positive integer`);
  return Number(value);
}

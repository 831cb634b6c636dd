/** What every `pnpm bench` entry reads from its command line the same way. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { LogLevel } from '@tix/kit';

const RESULTS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results');

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

/** The options one bench takes besides the ones every bench takes (--only, --log-level, --out). */
export interface BenchOptionSpec<Integer extends string, Text extends string, Flag extends string> {
  /** Positive integers and their defaults; `--warmup 0` also turns a warm-up off. */
  integers: Record<Integer, number>;
  /** Free text (comma lists and such), checked by the bench. */
  texts?: readonly Text[];
  flags?: readonly Flag[];
  /** The result file's name in tests/bench/results/ when --out is not given. */
  results: string;
}

export interface BenchCommandLine<Integer extends string, Text extends string, Flag extends string> {
  integer: Record<Integer, number>;
  text: Partial<Record<Text, string>>;
  flag: Record<Flag, boolean>;
  /** --only as given (the bench's name, or run.ts's list of operations). */
  only: string | undefined;
  /** LOG_LEVEL of the fleet the bench starts (default error). */
  logLevel: LogLevel;
  /** Where the result JSON goes, absolute. */
  out: string;
}

/** What every bench's options carry from its command line: the fleet's log level and the result file. */
export type BenchRunOptions = Pick<BenchCommandLine<never, never, never>, 'logLevel' | 'out'>;

/** Reads a bench's command line (strict: an unknown option throws a usage message naming it). */
export function readBenchCommandLine<
  Integer extends string,
  Text extends string = never,
  Flag extends string = never,
>(argv: string[], spec: BenchOptionSpec<Integer, Text, Flag>): BenchCommandLine<Integer, Text, Flag> {
  const integerNames = Object.keys(spec.integers) as Integer[];
  const { values } = parseArgs({
    args: argv,
    options: Object.fromEntries([
      ...['only', 'log-level', 'out', ...integerNames, ...(spec.texts ?? [])].map((name) => [
        name,
        { type: 'string' as const },
      ]),
      ...(spec.flags ?? []).map((name) => [name, { type: 'boolean' as const }]),
    ]),
    strict: true,
  });
  const given = values as Record<string, string | boolean | undefined>;
  const textOf = (name: string) => given[name] as string | undefined;
  const integer = Object.fromEntries(
    integerNames.map((name) => [
      name,
      name === 'warmup' && textOf(name) === '0' ? 0 : positiveInt(name, textOf(name), spec.integers[name]),
    ]),
  ) as Record<Integer, number>;
  return {
    integer,
    text: Object.fromEntries((spec.texts ?? []).map((name) => [name, textOf(name)])) as Partial<
      Record<Text, string>
    >,
    flag: Object.fromEntries((spec.flags ?? []).map((name) => [name, given[name] === true])) as Record<
      Flag,
      boolean
    >,
    only: textOf('only'),
    logLevel: (textOf('log-level') ?? 'error') as LogLevel,
    out: path.resolve(textOf('out') ?? path.join(RESULTS_DIR, spec.results)),
  };
}

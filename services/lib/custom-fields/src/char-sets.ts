/**
 * Sets of Unicode code points as sorted, non-overlapping inclusive ranges. The pattern-safety check
 * uses them to ask "can these two parts of a regex start with the same character?".
 */

export type CharSet = ReadonlyArray<readonly [number, number]>;

const MAX_CODE_POINT = 0x10ffff;

export const EMPTY_SET: CharSet = [];
export const ANY_CHAR: CharSet = [[0, MAX_CODE_POINT]];
export const DIGIT_CHARS: CharSet = [[0x30, 0x39]];
/** `\w` with the `u` flag and without `i` is ASCII-only. */
export const WORD_CHARS: CharSet = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];
/** `\s`: ECMAScript WhiteSpace plus LineTerminator. */
export const SPACE_CHARS: CharSet = unionOf([
  [
    [0x09, 0x0d],
    [0x20, 0x20],
    [0xa0, 0xa0],
    [0x1680, 0x1680],
    [0x2000, 0x200a],
    [0x2028, 0x2029],
    [0x202f, 0x202f],
    [0x205f, 0x205f],
    [0x3000, 0x3000],
    [0xfeff, 0xfeff],
  ],
]);
/** `.` without the `s` flag: anything but a line terminator. */
export const DOT_CHARS: CharSet = complementOf(
  unionOf([
    [
      [0x0a, 0x0a],
      [0x0d, 0x0d],
      [0x2028, 0x2029],
    ],
  ]),
);

/** A set holding exactly the one code point. */
export function singleChar(codePoint: number): CharSet {
  return [[codePoint, codePoint]];
}

/** The union of the given sets, sorted and merged. */
export function unionOf(sets: readonly CharSet[]): CharSet {
  const ranges = sets.flat().toSorted((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const [low, high] of ranges) {
    const last = merged.at(-1);
    if (last && low <= last[1] + 1) last[1] = Math.max(last[1], high);
    else merged.push([low, high]);
  }
  return merged;
}

/** Every code point not in `set`. */
export function complementOf(set: CharSet): CharSet {
  const result: Array<[number, number]> = [];
  let next = 0;
  for (const [low, high] of unionOf([set])) {
    if (low > next) result.push([next, low - 1]);
    next = high + 1;
  }
  if (next <= MAX_CODE_POINT) result.push([next, MAX_CODE_POINT]);
  return result;
}

/** True when some code point is in both sets. */
export function setsIntersect(a: CharSet, b: CharSet): boolean {
  return a.some(([aLow, aHigh]) => b.some(([bLow, bHigh]) => aLow <= bHigh && bLow <= aHigh));
}

const BLOCK_SIZE = 256;
const propertyCache = new Map<string, CharSet>();
const PROPERTY_CACHE_SIZE = 200;

/**
 * The code points of a Unicode property escape (`L`, `Script=Greek`, ...), as the engine itself sees
 * them. Computed once per property by asking the engine block by block (~20 ms), then cached.
 * `property` must already be known valid (the pattern compiled).
 */
export function propertyChars(property: string): CharSet {
  const cached = propertyCache.get(property);
  if (cached) return cached;
  const one = new RegExp(`^\\p{${property}}$`, 'u');
  const allIn = new RegExp(`^\\p{${property}}+$`, 'u');
  const allOut = new RegExp(`^\\P{${property}}+$`, 'u');
  const ranges: Array<[number, number]> = [];
  const codes: number[] = [];
  for (let start = 0; start <= MAX_CODE_POINT; start += BLOCK_SIZE) {
    codes.length = 0;
    for (let i = 0; i < BLOCK_SIZE; i++) codes.push(start + i);
    // Aligned blocks never mix high and low surrogates, so no two code points here fuse into a pair.
    const block = String.fromCodePoint(...codes);
    if (allOut.test(block)) continue;
    if (allIn.test(block)) ranges.push([start, start + BLOCK_SIZE - 1]);
    else for (const code of codes) if (one.test(String.fromCodePoint(code))) ranges.push([code, code]);
  }
  const set = unionOf([ranges]);
  if (propertyCache.size >= PROPERTY_CACHE_SIZE) propertyCache.clear();
  propertyCache.set(property, set);
  return set;
}

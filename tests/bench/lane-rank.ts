/**
 * Lane ranks in the format of the `fractional-indexing` package (default alphabets, which the ticket
 * service uses): an integer part whose head letter encodes its length (`a` = 1 digit, `b` = 2, ...,
 * `A`..`Z` for the negative side) followed by base-62 digits, optionally a fraction. Keys compare as
 * plain byte strings. The tests package does not depend on fractional-indexing, so the two operations
 * the bench needs are written here, following the package's own algorithm.
 */

const DIGITS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Heads of the integer part, in order: A (longest negative) .. Z, a .. z (longest positive). */
const HEADS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const HALF = HEADS.length / 2;

function integerLength(head: string): number {
  const index = HEADS.indexOf(head);
  if (index === -1) throw new Error(`invalid lane rank head: ${head}`);
  return index < HALF ? HALF - index + 1 : index - HALF + 2;
}

/**
 * The `index`-th (0-based) of `count` increasing integer keys, using decimal digits only so that the
 * order is the same under any collation. All keys share one head, so they sort by their digits.
 */
export function seededLaneRank(index: number, count: number): string {
  const width = Math.max(String(Math.max(count - 1, 0)).length, 1);
  const head = HEADS[HALF + width - 1];
  if (!head) throw new Error(`too many tickets for one lane: ${count}`);
  return head + String(index).padStart(width, '0');
}

/** SQL expression of seededLaneRank for a 0-based `indexSql` (so seeding stays one INSERT ... SELECT). */
export function seededLaneRankSql(indexSql: string, count: number): string {
  const width = Math.max(String(Math.max(count - 1, 0)).length, 1);
  const head = HEADS[HALF + width - 1];
  if (!head) throw new Error(`too many tickets for one lane: ${count}`);
  return `'${head}' || lpad((${indexSql})::text, ${width}, '0')`;
}

/**
 * The key fractional-indexing's `generateKeyBetween(key, null)` returns: the integer part of `key`
 * plus one (its fraction dropped). Null `key` (empty lane) gives the package's first key, `a0`.
 */
export function laneRankAfter(key: string | null): string {
  if (key === null) return 'a0';
  const head = key[0]!;
  const integer = key.slice(0, integerLength(head));
  const digits = integer.slice(1).split('');
  for (let i = digits.length - 1; i >= 0; i -= 1) {
    const next = DIGITS.indexOf(digits[i]!) + 1;
    if (next < DIGITS.length) {
      digits[i] = DIGITS[next]!;
      return head + digits.join('');
    }
    digits[i] = DIGITS[0]!;
  }
  // Carried out of every digit: the next head, one digit longer (or shorter on the negative side).
  const nextHead = HEADS[HEADS.indexOf(head) + 1];
  if (!nextHead) throw new Error(`no lane rank after ${key}`);
  const length = integerLength(nextHead) - 1;
  return nextHead + DIGITS[0]!.repeat(length);
}

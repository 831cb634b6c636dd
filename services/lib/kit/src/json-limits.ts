/**
 * Bounds on JSON text, checked before it is parsed. JSON.parse itself copes with very deep input, but
 * every recursive step after it (schema validation, canonical fingerprints, serialisers, protobuf
 * encoders) would overflow the stack on a body nested thousands deep: a hostile client's 500, or
 * worse. So depth is refused where the text arrives (the gateway's body parser, and the services'
 * JSON fields, which only the gateway sends), and nothing downstream needs its own guard.
 */

/**
 * Deepest nesting of objects and arrays a request may have. Tix's deepest legitimate body (a ticket
 * type's field_schema: array > field > constraints > options) is 4 levels; 32 leaves room for
 * custom-field values without letting recursion anywhere near the stack's limit.
 */
export const MAX_JSON_DEPTH = 32;

export const jsonTooDeepMessage = (limit = MAX_JSON_DEPTH) =>
  `JSON nested deeper than ${limit} levels (objects and arrays)`;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/**
 * True when `json` (UTF-8 bytes or a string) opens more than `limit` objects/arrays inside each other.
 * One pass, no allocation; brackets inside strings do not count, and strings are skipped with the
 * native indexOf, so the scan costs a fraction of JSON.parse. Malformed text is not judged here (the
 * parser refuses it); only its depth is. In UTF-8 every byte of a multi-byte character is >= 0x80,
 * so looking at bytes is exact.
 */
export function jsonNestingExceeds(json: Uint8Array | string, limit = MAX_JSON_DEPTH): boolean {
  const codeAt: (index: number) => number =
    typeof json === 'string' ? (index) => json.charCodeAt(index) : (index) => json[index]!;
  const nextQuote: (from: number) => number =
    typeof json === 'string' ? (from) => json.indexOf('"', from) : (from) => json.indexOf(QUOTE, from);
  let depth = 0;
  for (let index = 0; index < json.length; index += 1) {
    const code = codeAt(index);
    if (code === QUOTE) {
      index = closingQuote(index + 1, codeAt, nextQuote);
      if (index === -1) return false;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth += 1;
      if (depth > limit) return true;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth -= 1;
    }
  }
  return false;
}

/** Where the string opened before `from` ends (-1: unterminated): the first quote not escaped. */
function closingQuote(
  from: number,
  codeAt: (index: number) => number,
  nextQuote: (from: number) => number,
): number {
  for (let start = from; ;) {
    const quote = nextQuote(start);
    if (quote === -1) return -1;
    let backslashes = 0;
    for (let before = quote - 1; before >= from && codeAt(before) === BACKSLASH; before -= 1)
      backslashes += 1;
    if (backslashes % 2 === 0) return quote;
    start = quote + 1;
  }
}

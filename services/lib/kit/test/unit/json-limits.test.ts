import { expect } from 'chai';
import { jsonNestingExceeds, MAX_JSON_DEPTH } from '../../src/json-limits.js';

const nested = (depth: number) => `${'{"a":['.repeat(depth / 2)}1${']}'.repeat(depth / 2)}`;

describe('jsonNestingExceeds', () => {
  it('counts objects and arrays inside each other, in strings and in UTF-8 bytes alike', () => {
    for (const text of [nested(MAX_JSON_DEPTH), '{}', '[]', '1', '"x"', '{"a":[1,{"b":[]}]}']) {
      expect(jsonNestingExceeds(text), text).to.equal(false);
      expect(jsonNestingExceeds(Buffer.from(text)), text).to.equal(false);
    }
    for (const text of [nested(MAX_JSON_DEPTH + 2), nested(10_000), '['.repeat(100_000)]) {
      expect(jsonNestingExceeds(text)).to.equal(true);
      expect(jsonNestingExceeds(Buffer.from(text))).to.equal(true);
    }
    expect(jsonNestingExceeds('[[[1]]]', 2)).to.equal(true);
    expect(jsonNestingExceeds('[[1],[1],[1]]', 2)).to.equal(false);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({ a: `${'['.repeat(1000)}"\\${'{'.repeat(1000)}`, b: ['é', '😀[['] });
    expect(jsonNestingExceeds(text, 2)).to.equal(false);
    expect(jsonNestingExceeds(Buffer.from(text), 2)).to.equal(false);
    // A string ending in an escaped backslash closes at its quote; what follows counts again.
    const afterBackslash = JSON.stringify(['x\\', [[1]]]);
    expect(jsonNestingExceeds(afterBackslash, 2)).to.equal(true);
    expect(jsonNestingExceeds(Buffer.from(afterBackslash), 2)).to.equal(true);
    // Unterminated text is the parser's to refuse, not deep.
    expect(jsonNestingExceeds('["abc', 2)).to.equal(false);
  });
});

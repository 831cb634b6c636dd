import { expect } from 'chai';
import { patternProblem } from '../../src/index.js';
import { compileFieldPattern } from '../../src/pattern-safety.js';

const NESTED =
  'pattern is unsafe: nested quantifiers or overlapping alternatives inside a repeated group can cause catastrophic backtracking';
const BUDGET =
  'pattern is unsafe: more than one ambiguous quantifier or alternative can cause catastrophic backtracking';

describe('pattern safety', () => {
  describe('accepts everyday patterns', () => {
    const safe = [
      '[A-Z]{2,5}-\\d+',
      '\\d+(,\\d+)*',
      '(\\d{1,3}\\.){3}\\d{1,3}',
      '(\\d+-)+\\d+',
      '[^,]*(,[^,]*)*',
      '^v\\d+(\\.\\d+){2}$',
      '(\\d{3}-)?\\d{3}-\\d{4}',
      '\\+?[0-9 ()-]{7,20}',
      '[a-z0-9._%+-]+@[a-z0-9.-]+\\.[a-z]{2,}',
      '(https?|ftp)://\\S+',
      '(?:[A-Z][a-z]+ ?)+',
      '\\s*\\S+\\s*',
      '.*@.*',
      '(foo|foobar)',
      '(?=.*\\d)(?=.*[a-z]).{8,}',
      '(?<=\\d+,)x|y',
      '(\\p{L}+ )*\\p{L}+',
      '(\\p{Lu}\\p{Ll}*)+',
      '[\\u{1F600}-\\u{1F64F}]+',
      '\\uD83D\\uDE00+',
      '(?<year>\\d{4})-(?<month>\\d{2})',
      '(?:a|b)*c',
      'a*a*b',
      '(?:(?=a+)a)*',
      '\\bword\\b',
      'a{1000}',
    ];
    for (const pattern of safe) {
      it(pattern, () => {
        expect(patternProblem(pattern)).to.equal(null);
      });
    }
  });

  describe('refuses nested quantifiers and overlapping alternatives under repetition', () => {
    const nested = [
      '(a+)+',
      '(a*)*',
      '(a|a)*',
      '(a|aa)+b',
      '(ab|a)+',
      '(\\w|\\d)+',
      '(\\w+\\s?)+',
      '(.*,)+',
      '(?:.*a){5}',
      '(a?){20}',
      '(x+x+)+y',
      '(?:a|)*',
      '([a-z]+)*$',
      '(\\p{L}+\\p{Lu})+',
      '((ab)*)+',
      '(?:(?=.*a)b)*',
    ];
    for (const pattern of nested) {
      it(pattern, () => {
        expect(patternProblem(pattern)).to.equal(NESTED);
      });
    }
  });

  describe('refuses more than one ambiguous spot outside repetition (polynomial blow-up)', () => {
    const polynomial = [
      '.*a.*a.*',
      'a*a*a*b',
      '\\d+\\d+\\d+x',
      'a?'.repeat(25) + 'a'.repeat(25),
      '(a|ab)(c|cd)(e|ef)',
    ];
    for (const pattern of polynomial) {
      it(pattern.slice(0, 40), () => {
        expect(patternProblem(pattern)).to.equal(BUDGET);
      });
    }
  });

  describe('models character sets, so a separator the repeated part cannot match keeps it safe', () => {
    const cases: Array<[string, boolean]> = [
      ['([a-z]+-)+', true],
      ['([^-]+-)+', true],
      ['([\\d-]+-)+', false],
      ['([a\\-z]+-)+', false],
      ['([\\x2d]+-)+', false],
      ['([\\u002D]+-)+', false],
      ['([\\u{2D}]+-)+', false],
      ['([^\\D]+x)+', true],
      ['([^\\D]+5)+', false],
      ['(\\S+\\s)+', true],
      ['(\\w+\\W)+', true],
      ['(.+\\n)+', true],
      ['(.+\\u2028)+', true],
      ['(.+\\t)+', false],
      ['([\\b]+x)+', true],
      ['(\\cJ+x)+', true],
      ['(\\cJ+\\n)+', false],
      ['(\\P{L}+\\p{L})+', true],
      ['([^\\p{L}]+\\p{L})+', true],
      ['([\\p{L}\\d]+-)+', true],
      ['([\\p{L}-]+-)+', false],
      ['(😀+x)+', true],
      ['([😀-😂]+😁)+', false],
    ];
    for (const [pattern, safe] of cases) {
      it(`${pattern} is ${safe ? 'accepted' : 'refused'}`, () => {
        expect(patternProblem(pattern)).to.equal(safe ? null : NESTED);
      });
    }
  });

  describe('other refusals', () => {
    // Node 22+ (V8 12.5) compiles modifier groups such as (?i:a), which Node 20 rejects: refused on
    // both, as invalid on 20 and as syntax the parser does not support on the images' Node 24.
    const knowsModifiers = (() => {
      try {
        return new RegExp('(?i:a)', 'u').test('A');
      } catch {
        return false;
      }
    })();
    const cases: Array<[string, string]> = [
      ['', 'pattern must not be empty'],
      ['x'.repeat(501), 'pattern must be at most 500 characters'],
      ['(', 'pattern is not a valid regular expression'],
      ['\\q', 'pattern is not a valid regular expression'],
      ['a{,5}', 'pattern is not a valid regular expression'],
      [
        '(?i:a)',
        knowsModifiers
          ? 'pattern uses unsupported regular expression syntax'
          : 'pattern is not a valid regular expression',
      ],
      ['(a)\\1', 'pattern must not use backreferences'],
      ['(?<x>a)\\k<x>', 'pattern must not use backreferences'],
      ['a{1001}', 'pattern repetition counts must be at most 1000'],
      ['a{1,5000}', 'pattern repetition counts must be at most 1000'],
      [
        [
          'Greek',
          'Latin',
          'Cyrillic',
          'Han',
          'Arabic',
          'Hebrew',
          'Thai',
          'Armenian',
          'Georgian',
          'Hangul',
          'Khmer',
        ]
          .map((script) => `\\p{Script=${script}}`)
          .join(''),
        'pattern may use at most 10 different \\p{...} properties',
      ],
    ];
    for (const [pattern, message] of cases) {
      it(`${pattern.slice(0, 40)} -> ${message}`, () => {
        expect(patternProblem(pattern)).to.equal(message);
      });
    }

    it('accepts exactly 500 characters', () => {
      expect(patternProblem('x'.repeat(500))).to.equal(null);
    });
  });

  describe('compiled patterns', () => {
    it('match the whole value even when the source carries its own anchors', () => {
      const regex = compileFieldPattern('^ab$');
      expect(regex.test('ab')).to.equal(true);
      expect(regex.test('abab')).to.equal(false);
    });

    it('finish on a hostile input for the one ambiguity allowed', () => {
      expect(patternProblem('.*a.*')).to.equal(null);
      expect(compileFieldPattern('.*a.*').test('a'.repeat(999) + '\n')).to.equal(false);
    });

    it('are cached per source', () => {
      expect(compileFieldPattern('[0-9]+')).to.equal(compileFieldPattern('[0-9]+'));
    });
  });
});

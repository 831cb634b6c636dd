/**
 * A small parser for JavaScript regular expressions in `u` mode, just detailed enough for the
 * pattern-safety rules: structure (sequence, alternation, groups, repetition) and the characters each
 * atom can match. It runs only on sources that `new RegExp(source, 'u')` already accepted, so it leans
 * on that for syntax errors; constructs it does not model make it throw `UnsupportedPatternError`.
 */
import {
  type CharSet,
  complementOf,
  DIGIT_CHARS,
  DOT_CHARS,
  propertyChars,
  singleChar,
  SPACE_CHARS,
  unionOf,
  WORD_CHARS,
} from './char-sets.js';

export type RegexNode =
  | { kind: 'char'; set: CharSet }
  | { kind: 'assertion' }
  | { kind: 'lookaround'; body: RegexNode; behind: boolean }
  | { kind: 'group'; body: RegexNode }
  | { kind: 'alternation'; options: RegexNode[] }
  | { kind: 'sequence'; items: RegexNode[] }
  | { kind: 'repeat'; body: RegexNode; min: number; max: number }
  | { kind: 'backreference' };

export class UnsupportedPatternError extends Error {}

/** Parses a `u`-mode regex source into a tree; throws UnsupportedPatternError for unmodelled syntax. */
export function parseRegex(source: string): RegexNode {
  const parser = new RegexParser(source);
  const tree = parser.alternation();
  if (!parser.atEnd()) throw new UnsupportedPatternError('unexpected character');
  return tree;
}

/** An escape resolves to a set of characters, an assertion (`\b`) or a backreference. */
type Escape = { set: CharSet } | { assertion: true } | { backreference: true };

const CLASS_ESCAPES: Record<string, CharSet> = {
  d: DIGIT_CHARS,
  D: complementOf(DIGIT_CHARS),
  w: WORD_CHARS,
  W: complementOf(WORD_CHARS),
  s: SPACE_CHARS,
  S: complementOf(SPACE_CHARS),
};
const CONTROL_ESCAPES: Record<string, number> = { n: 0x0a, r: 0x0d, t: 0x09, v: 0x0b, f: 0x0c };

class RegexParser {
  private readonly chars: string[];
  private position = 0;

  constructor(source: string) {
    this.chars = Array.from(source);
  }

  atEnd(): boolean {
    return this.position >= this.chars.length;
  }

  alternation(): RegexNode {
    const options = [this.sequence()];
    while (this.peek() === '|') {
      this.position++;
      options.push(this.sequence());
    }
    return options.length === 1 ? options[0]! : { kind: 'alternation', options };
  }

  private sequence(): RegexNode {
    const items: RegexNode[] = [];
    while (!this.atEnd() && this.peek() !== '|' && this.peek() !== ')') {
      const atom = this.atom();
      items.push(this.quantified(atom));
    }
    return items.length === 1 ? items[0]! : { kind: 'sequence', items };
  }

  private quantified(atom: RegexNode): RegexNode {
    let bounds: [number, number] | null = null;
    const next = this.peek();
    if (next === '*') bounds = [0, Infinity];
    else if (next === '+') bounds = [1, Infinity];
    else if (next === '?') bounds = [0, 1];
    if (bounds) this.position++;
    else if (next === '{') bounds = this.braces();
    if (!bounds) return atom;
    if (this.peek() === '?') this.position++; // laziness changes the order of attempts, not their number
    return { kind: 'repeat', body: atom, min: bounds[0], max: bounds[1] };
  }

  private braces(): [number, number] {
    const close = this.chars.indexOf('}', this.position);
    const text = this.chars.slice(this.position + 1, close).join('');
    const match = /^(\d+)(,(\d*))?$/.exec(text);
    if (close < 0 || !match) throw new UnsupportedPatternError('bad quantifier');
    this.position = close + 1;
    const min = Number(match[1]);
    const max = match[2] === undefined ? min : match[3] === '' ? Infinity : Number(match[3]);
    return [min, max];
  }

  private atom(): RegexNode {
    const char = this.take();
    switch (char) {
      case '(':
        return this.group();
      case '[':
        return { kind: 'char', set: this.characterClass() };
      case '.':
        return { kind: 'char', set: DOT_CHARS };
      case '^':
      case '$':
        return { kind: 'assertion' };
      case '\\': {
        const escape = this.escape(false);
        if ('assertion' in escape) return { kind: 'assertion' };
        if ('backreference' in escape) return { kind: 'backreference' };
        return { kind: 'char', set: escape.set };
      }
      default:
        return { kind: 'char', set: singleChar(char.codePointAt(0)!) };
    }
  }

  private group(): RegexNode {
    let lookaround: 'ahead' | 'behind' | null = null;
    if (this.peek() === '?') {
      this.position++;
      const marker = this.take();
      if (marker === '=' || marker === '!') lookaround = 'ahead';
      else if (marker === '<' && (this.peek() === '=' || this.peek() === '!')) {
        this.position++;
        lookaround = 'behind';
      } else if (marker === '<') {
        const close = this.chars.indexOf('>', this.position);
        if (close < 0) throw new UnsupportedPatternError('bad group name');
        this.position = close + 1;
      } else if (marker !== ':') throw new UnsupportedPatternError('unsupported group');
    }
    const body = this.alternation();
    if (this.take() !== ')') throw new UnsupportedPatternError('unclosed group');
    return lookaround
      ? { kind: 'lookaround', body, behind: lookaround === 'behind' }
      : { kind: 'group', body };
  }

  private characterClass(): CharSet {
    const negated = this.peek() === '^';
    if (negated) this.position++;
    const members: CharSet[] = [];
    while (this.peek() !== ']') {
      if (this.atEnd()) throw new UnsupportedPatternError('unclosed class');
      const low = this.classAtom();
      if (this.peek() === '-' && this.chars[this.position + 1] !== ']' && low.single !== null) {
        this.position++;
        const high = this.classAtom();
        if (high.single === null) throw new UnsupportedPatternError('bad class range');
        members.push([[low.single, high.single]]);
        continue;
      }
      members.push(low.set);
    }
    this.position++;
    const set = unionOf(members);
    return negated ? complementOf(set) : set;
  }

  /** One class member; `single` is its code point when it can be a range bound (not `\d`, `\p{..}`). */
  private classAtom(): { set: CharSet; single: number | null } {
    const char = this.take();
    if (char !== '\\') return { set: singleChar(char.codePointAt(0)!), single: char.codePointAt(0)! };
    const next = this.peek();
    const escape = this.escape(true);
    if (!('set' in escape)) throw new UnsupportedPatternError('bad class escape');
    const isClassEscape = next in CLASS_ESCAPES || next === 'p' || next === 'P';
    return { set: escape.set, single: isClassEscape ? null : escape.set[0]![0] };
  }

  /** Reads the escape after a backslash. */
  private escape(inClass: boolean): Escape {
    const char = this.take();
    const classSet = CLASS_ESCAPES[char];
    if (classSet) return { set: classSet };
    const control = CONTROL_ESCAPES[char];
    if (control !== undefined) return { set: singleChar(control) };
    if (char === 'b') return inClass ? { set: singleChar(0x08) } : { assertion: true };
    if (char === 'B') return { assertion: true };
    if (char === 'p' || char === 'P') {
      if (this.take() !== '{') throw new UnsupportedPatternError('bad property escape');
      const close = this.chars.indexOf('}', this.position);
      if (close < 0) throw new UnsupportedPatternError('bad property escape');
      const property = propertyChars(this.chars.slice(this.position, close).join(''));
      this.position = close + 1;
      return { set: char === 'p' ? property : complementOf(property) };
    }
    if (char === 'k') {
      this.skipPast('>');
      return { backreference: true };
    }
    if (/^[1-9]$/.test(char)) {
      while (/^\d$/.test(this.peek())) this.position++;
      return { backreference: true };
    }
    if (char === '0') return { set: singleChar(0) };
    if (char === 'c') return { set: singleChar(this.take().codePointAt(0)! % 32) };
    if (char === 'x') return { set: singleChar(this.hex(2)) };
    if (char === 'u') return { set: singleChar(this.unicodeEscape()) };
    return { set: singleChar(char.codePointAt(0)!) };
  }

  private unicodeEscape(): number {
    if (this.peek() === '{') {
      const close = this.chars.indexOf('}', this.position);
      const value = parseInt(this.chars.slice(this.position + 1, close).join(''), 16);
      this.position = close + 1;
      return value;
    }
    const unit = this.hex(4);
    // In `u` mode, an escaped surrogate pair denotes one code point.
    if (
      unit >= 0xd800 &&
      unit <= 0xdbff &&
      this.chars[this.position] === '\\' &&
      this.chars[this.position + 1] === 'u'
    ) {
      const saved = this.position;
      this.position += 2;
      const low = /^[0-9a-fA-F]{4}$/.test(this.chars.slice(this.position, this.position + 4).join(''))
        ? this.hex(4)
        : -1;
      if (low >= 0xdc00 && low <= 0xdfff) return (unit - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
      this.position = saved;
    }
    return unit;
  }

  private hex(digits: number): number {
    const text = this.chars.slice(this.position, this.position + digits).join('');
    if (!new RegExp(`^[0-9a-fA-F]{${digits}}$`).test(text)) {
      throw new UnsupportedPatternError('bad hex escape');
    }
    this.position += digits;
    return parseInt(text, 16);
  }

  private skipPast(terminator: string): void {
    const index = this.chars.indexOf(terminator, this.position);
    if (index < 0) throw new UnsupportedPatternError('unterminated escape');
    this.position = index + 1;
  }

  private peek(): string {
    return this.chars[this.position] ?? '';
  }

  private take(): string {
    if (this.atEnd()) throw new UnsupportedPatternError('unexpected end');
    return this.chars[this.position++]!;
  }
}

/**
 * The rules a text field's `pattern` must pass before it may run on user input, and the compiled,
 * anchored form used to check values.
 *
 * Backtracking blows up where the matcher has a choice it cannot settle by looking at the next
 * character. The static check finds those "ambiguous" spots:
 * - a quantifier of variable count (`*`, `+`, `?`, `{n,m}` with n < m) whose body can match empty or
 *   can begin with a character that may also come right after it (`\d+\d`, `.*a`, `(a?)`);
 * - an alternation whose options can begin with the same character or match empty (`a|ab`, `\w|\d`).
 * Rules, from "can cause exponential time" to "can cause polynomial time":
 * 1. no ambiguous spot inside a part that repeats (`*`, `+`, `{n,m}` with m > 1): this refuses nested
 *    quantifiers such as `(a+)+`, `(a*)*`, `(\w+\s?)+`, `(.*,)+` and overlapping alternatives such as
 *    `(a|a)*`, `(ab|a)+`, while `(\d+-)+`, `(,\d+)*` or `(\d{1,3}\.){3}` stay allowed;
 * 2. at most one ambiguous spot in the rest of the pattern (`.*@.*` is fine, `.*a.*a.*` is not),
 *    counted separately inside each lookaround, since lookarounds never backtrack into the outside.
 * Backreferences are refused (they make matching NP-hard), repetition counts and the number of
 * distinct `\p{...}` properties are capped, and values
 * are capped in length (LIMITS.maxTextLength), so the one allowed ambiguity costs at most quadratic
 * time on a short string. The check is conservative: it may refuse a pattern that is in fact safe.
 */
import { type CharSet, EMPTY_SET, ANY_CHAR, setsIntersect, unionOf } from './char-sets.js';
import { parseRegex, type RegexNode, UnsupportedPatternError } from './regex-syntax.js';
import { LIMITS } from './types.js';

/** Returns why `source` may not be used as a `pattern` constraint, or null when it is acceptable. */
export function patternProblem(source: string): string | null {
  if (source.length === 0) return 'pattern must not be empty';
  if (source.length > LIMITS.maxPatternLength) {
    return `pattern must be at most ${LIMITS.maxPatternLength} characters`;
  }
  try {
    new RegExp(source, 'u');
  } catch {
    return 'pattern is not a valid regular expression';
  }
  const properties = new Set(Array.from(source.matchAll(/\\[pP]\{([^}]*)\}/gu), (match) => match[1]));
  if (properties.size > MAX_PROPERTY_ESCAPES) {
    return `pattern may use at most ${MAX_PROPERTY_ESCAPES} different \\p{...} properties`;
  }
  let tree: RegexNode;
  try {
    tree = parseRegex(source);
  } catch (error) {
    if (error instanceof UnsupportedPatternError) return 'pattern uses unsupported regular expression syntax';
    throw error;
  }
  // Values are matched against `^(?:source)$`, so the end of input is all that follows the pattern.
  return scopeProblem(tree, false);
}

/** Each new property costs a scan of Unicode (see propertyChars), so one pattern may name only a few. */
const MAX_PROPERTY_ESCAPES = 10;

const compiled = new Map<string, RegExp>();
const COMPILED_CACHE_SIZE = 500;

/**
 * The regex that checks a whole value against `source` (already accepted by patternProblem): the
 * source wrapped as `^(?:source)$` with the `u` flag, so the pattern must match the entire value.
 */
export function compileFieldPattern(source: string): RegExp {
  let regex = compiled.get(source);
  if (!regex) {
    if (compiled.size >= COMPILED_CACHE_SIZE) compiled.clear();
    regex = new RegExp(`^(?:${source})$`, 'u');
    compiled.set(source, regex);
  }
  return regex;
}

const NESTED_MESSAGE =
  'pattern is unsafe: nested quantifiers or overlapping alternatives inside a repeated group can cause catastrophic backtracking';
const BUDGET_MESSAGE =
  'pattern is unsafe: more than one ambiguous quantifier or alternative can cause catastrophic backtracking';

/** What one scope (the pattern, or one lookaround body) has found so far. */
interface Scope {
  ambiguousOutsideRepetition: number;
  problem: string | null;
}

/** Checks a scope whose end is followed by nothing the scope must leave room for. */
function scopeProblem(node: RegexNode, insideRepetition: boolean): string | null {
  const scope: Scope = { ambiguousOutsideRepetition: 0, problem: null };
  visit(node, EMPTY_SET, insideRepetition, scope);
  if (scope.problem) return scope.problem;
  return scope.ambiguousOutsideRepetition > 1 ? BUDGET_MESSAGE : null;
}

/** Walks `node`, knowing the characters that can come right after it (`follow`). */
function visit(node: RegexNode, follow: CharSet, insideRepetition: boolean, scope: Scope): void {
  if (scope.problem) return;
  switch (node.kind) {
    case 'char':
    case 'assertion':
      return;
    case 'backreference':
      scope.problem = 'pattern must not use backreferences';
      return;
    case 'group':
      return visit(node.body, follow, insideRepetition, scope);
    case 'lookaround': {
      // Lookbehinds match right to left, so their sequences are analysed reversed.
      const body = node.behind ? reversed(node.body) : node.body;
      scope.problem = scopeProblem(body, insideRepetition);
      return;
    }
    case 'sequence': {
      let after = follow;
      for (const item of node.items.toReversed()) {
        visit(item, after, insideRepetition, scope);
        after = canMatchEmpty(item) ? unionOf([firstChars(item), after]) : firstChars(item);
      }
      return;
    }
    case 'alternation': {
      const starts = node.options.map((option) =>
        canMatchEmpty(option) ? unionOf([firstChars(option), follow]) : firstChars(option),
      );
      const overlapping = starts.some((set, i) =>
        starts.slice(i + 1).some((other) => setsIntersect(set, other)),
      );
      if (overlapping) noteAmbiguity(insideRepetition, scope);
      for (const option of node.options) visit(option, follow, insideRepetition, scope);
      return;
    }
    case 'repeat': {
      if (
        node.min > LIMITS.maxPatternRepeat ||
        (node.max !== Infinity && node.max > LIMITS.maxPatternRepeat)
      ) {
        scope.problem = `pattern repetition counts must be at most ${LIMITS.maxPatternRepeat}`;
        return;
      }
      const bodyStart = firstChars(node.body);
      if (node.max > node.min && (canMatchEmpty(node.body) || setsIntersect(bodyStart, follow))) {
        noteAmbiguity(insideRepetition, scope);
      }
      const repeats = node.max > 1;
      visit(node.body, repeats ? unionOf([bodyStart, follow]) : follow, insideRepetition || repeats, scope);
      return;
    }
  }
}

function noteAmbiguity(insideRepetition: boolean, scope: Scope): void {
  if (insideRepetition) scope.problem ??= NESTED_MESSAGE;
  else scope.ambiguousOutsideRepetition++;
}

/** The same node for text read right to left; nested lookarounds keep their own direction. */
function reversed(node: RegexNode): RegexNode {
  switch (node.kind) {
    case 'group':
      return { kind: 'group', body: reversed(node.body) };
    case 'sequence':
      return { kind: 'sequence', items: node.items.map(reversed).toReversed() };
    case 'alternation':
      return { kind: 'alternation', options: node.options.map(reversed) };
    case 'repeat':
      return { ...node, body: reversed(node.body) };
    default:
      return node;
  }
}

function canMatchEmpty(node: RegexNode): boolean {
  switch (node.kind) {
    case 'char':
      return false;
    case 'group':
      return canMatchEmpty(node.body);
    case 'sequence':
      return node.items.every(canMatchEmpty);
    case 'alternation':
      return node.options.some(canMatchEmpty);
    case 'repeat':
      return node.min === 0 || canMatchEmpty(node.body);
    default:
      return true; // assertions, lookarounds and backreferences can consume nothing
  }
}

/** Characters a non-empty match of `node` can begin with (over-approximated where unknown). */
function firstChars(node: RegexNode): CharSet {
  switch (node.kind) {
    case 'char':
      return node.set;
    case 'group':
      return firstChars(node.body);
    case 'alternation':
      return unionOf(node.options.map(firstChars));
    case 'sequence': {
      const sets: CharSet[] = [];
      for (const item of node.items) {
        sets.push(firstChars(item));
        if (!canMatchEmpty(item)) break;
      }
      return unionOf(sets);
    }
    case 'repeat':
      return node.max === 0 ? EMPTY_SET : firstChars(node.body);
    case 'backreference':
      return ANY_CHAR;
    default:
      return EMPTY_SET;
  }
}

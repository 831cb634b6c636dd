/**
 * A deterministic synthetic corpus of support tickets whose answers are known: the category, the
 * priority, the tags, who resolved it and the public reply that did. It feeds the assistant's quality
 * tests (recall of same-category sources, priority precision, no leaked internal notes, redaction),
 * `pnpm tix seed --demo` (resolved history for the demo board) and `pnpm tix ai eval` checks.
 *
 *   import { syntheticTickets, syntheticTicketEvents } from '@tix/support-corpus';
 *   const tickets = syntheticTickets({ count: 400, seed: 14 });
 *
 * The same seed always gives the same corpus: a small seeded PRNG (mulberry32), never Math.random.
 * The texts come from categories.ts; about 1 ticket in 20 has another priority than its category's
 * (labels are never perfectly clean), and some tickets carry an internal note with a unique
 * SECRET-<n> marker that no suggestion may ever quote.
 */
import type { TicketPriority } from '@tix/protos';
import {
  CATEGORIES,
  DESCRIPTION_ENDINGS,
  INTERNAL_NOTES,
  SHARED_SLOTS,
  VAGUE_TITLES,
  type Category,
} from './categories.js';

/** Share of tickets whose priority is not their category's. */
export const PRIORITY_NOISE = 0.05;
/** Share of tickets with a second tag, with a customer follow-up, with an internal note. */
const SECOND_TAG = 0.4;
/** Share of titles that say nothing about the problem, of descriptions with a common ending. */
const VAGUE_TITLE = 0.1;
const ENDING = 0.5;
const FOLLOW_UP = 0.3;
const INTERNAL_NOTE = 0.25;
/** Share of replies with a `{pii}` place that name personal data there. */
const PERSONAL_DATA = 0.6;

/** Marks the internal note of the ticket at `index`; it must never appear in any suggestion. */
export const secretMarker = (index: number) => `SECRET-${index + 1}`;
export const SECRET_PATTERN = /SECRET-\d+/;

export interface SyntheticTicket {
  /** Position in the corpus, from 0. */
  index: number;
  /** The category's slug, also its tag. */
  category: string;
  title: string;
  description: string;
  priority: TicketPriority;
  /** The category tag, sometimes followed by a second tag of the category's own. */
  tags: string[];
  /** Which of the RESOLVER_COUNT agents resolves it. */
  resolverIndex: number;
  /** The agent's public resolving reply, greeting line first. */
  reply: string;
  /** The personal data the reply names (e-mail addresses, phone and order numbers): redaction removes each. */
  replyPersonalData: string[];
  /** The customer's public follow-up, when there is one. */
  customerComment?: string;
  /** An agent's internal note with a secret marker, written before or after the reply. */
  internalNote?: { content: string; secret: string; afterReply: boolean };
}

/** mulberry32: a tiny, well-spread 32-bit PRNG; the same seed gives the same sequence everywhere. */
export function seededRandom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return {
    next,
    chance: (probability: number) => next() < probability,
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
    int: (from: number, to: number) => from + Math.floor(next() * (to - from + 1)),
    digits: (count: number) => Array.from({ length: count }, () => Math.floor(next() * 10)).join(''),
  };
}

type Random = ReturnType<typeof seededRandom>;

/**
 * The values of one ticket's placeholders: each chosen once, on first use, so the description and
 * the reply agree (the same customer, device, identity provider).
 */
function slotsOf(category: Category, rng: Random) {
  const chosen = new Map<string, string>();
  const derived: Record<string, () => string> = {
    email: () => `${value('first')}.${value('last')}@${value('company')}.example`.toLowerCase(),
    phone: () => `+1 415 555 ${rng.digits(4)}`,
    order: () => `4${rng.digits(7)}`,
  };
  const value = (name: string): string => {
    let found = chosen.get(name);
    if (found === undefined) {
      const options = category.slots[name] ?? (SHARED_SLOTS as Record<string, readonly string[]>)[name];
      if (options === undefined && derived[name] === undefined)
        throw new Error(`category ${category.slug}: unknown placeholder {${name}}`);
      found = options === undefined ? derived[name]!() : rng.pick(options);
      chosen.set(name, found);
    }
    return found;
  };
  const fill = (template: string) => template.replace(/\{(\w+)\}/g, (_, name: string) => value(name));
  return { fill, chosen };
}

function syntheticTicket(index: number, rng: Random): SyntheticTicket {
  const category = rng.pick(CATEGORIES);
  const { fill, chosen } = slotsOf(category, rng);
  const title = fill(rng.pick(rng.chance(VAGUE_TITLE) ? VAGUE_TITLES : category.titles));
  let description = fill(rng.pick(category.descriptions));
  if (rng.chance(ENDING)) description += fill(rng.pick(DESCRIPTION_ENDINGS));

  const priority = rng.chance(PRIORITY_NOISE)
    ? rng.pick(
        (['low', 'medium', 'high', 'critical'] as const).filter((other) => other !== category.priority),
      )
    : category.priority;
  const tags = [category.slug];
  if (rng.chance(SECOND_TAG)) tags.push(rng.pick(category.extraTags));
  // The first resolver takes about three tickets in four when a category has two.
  const resolverIndex =
    category.resolvers.length > 1 && rng.chance(0.25) ? category.resolvers[1]! : category.resolvers[0]!;

  const template = rng.pick(category.replies);
  const named = template.includes('{pii}') && category.pii.length > 0 && rng.chance(PERSONAL_DATA);
  const pii = named ? fill(rng.pick(category.pii)) : '';
  const reply = fill(template.replace('{pii}', pii));
  const replyPersonalData = ['email', 'phone', 'order']
    .map((name) => chosen.get(name))
    .filter((value): value is string => value !== undefined && pii.includes(value));

  const ticket: SyntheticTicket = {
    index,
    category: category.slug,
    title,
    description,
    priority,
    tags,
    resolverIndex,
    reply,
    replyPersonalData,
  };
  if (rng.chance(FOLLOW_UP)) ticket.customerComment = rng.pick(category.followUps);
  if (rng.chance(INTERNAL_NOTE)) {
    const secret = secretMarker(index);
    ticket.internalNote = {
      content: rng.pick(INTERNAL_NOTES).replace('{secret}', secret),
      secret,
      afterReply: rng.chance(0.5),
    };
  }
  return ticket;
}

/** `count` synthetic tickets; the same `seed` gives the same tickets. */
export function syntheticTickets(options: { count: number; seed: number }): SyntheticTicket[] {
  const rng = seededRandom(options.seed);
  return Array.from({ length: options.count }, (_, index) => syntheticTicket(index, rng));
}

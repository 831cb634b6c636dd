/**
 * The support desk of `pnpm bench --only assist`: the tickets of @tix/support-corpus (eight problems,
 * paraphrased, with their replies, follow-ups and internal notes) given the words a real desk wraps
 * around them: products and versions, error codes, customers and their companies, and the odd words
 * of each customer's situation. The corpus alone has a few hundred distinct words, so every word is
 * common and a full-text index has no rare words to be quick about; a real desk has tens of
 * thousands, most of them rare.
 *
 * The added words are made-up but pronounceable (`brantel`, `quorvix`): what matters to retrieval
 * and search is how often each occurs, not what it means. Each list is drawn Zipf-distributed (the
 * n-th word about 1/n as often as the first), so a few products, codes and words are everywhere and
 * most occur in a handful of tickets. The same seed always gives the same desk.
 */
import { seededRandom, syntheticTickets, type SyntheticTicket } from '@tix/support-corpus';

/** Sizes of the made-up lists (distinct entries). */
export const VOCABULARY = { words: 8_000, products: 150, errorCodes: 3_000, companies: 2_000 } as const;
const FIRST_NAMES = 300;
const LAST_NAMES = 500;

type Random = ReturnType<typeof seededRandom>;

const ONSETS = ['b', 'br', 'c', 'cl', 'd', 'dr', 'f', 'fr', 'g', 'gl', 'h', 'j', 'k', 'l', 'm', 'n', 'p'];
const MORE_ONSETS = ['pl', 'qu', 'r', 's', 'sk', 'st', 't', 'tr', 'v', 'w', 'z'];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'ai', 'ea', 'ou', 'y'];
const CODAS = ['', '', 'n', 'r', 'l', 's', 'x', 'm', 'nd', 'rt', 'st', 'k'];

/** `count` distinct made-up words of two or three syllables. */
function madeUpWords(rng: Random, count: number, taken: Set<string>): string[] {
  const onsets = [...ONSETS, ...MORE_ONSETS];
  const words: string[] = [];
  while (words.length < count) {
    const syllables = rng.chance(0.6) ? 2 : 3;
    let word = '';
    for (let i = 0; i < syllables; i += 1) word += rng.pick(onsets) + rng.pick(VOWELS) + rng.pick(CODAS);
    if (word.length < 5 || word.length > 10 || taken.has(word)) continue;
    taken.add(word);
    words.push(word);
  }
  return words;
}

const capitalized = (word: string) => word[0]!.toUpperCase() + word.slice(1);

/** Draws from a list, the n-th entry with weight 1/n^exponent (a long tail). */
function zipf<T>(items: readonly T[], exponent: number) {
  const cumulative: number[] = [];
  let total = 0;
  for (let rank = 1; rank <= items.length; rank += 1) {
    total += 1 / rank ** exponent;
    cumulative.push(total);
  }
  return (rng: Random): T => {
    const target = rng.next() * total;
    let low = 0;
    let high = cumulative.length - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (cumulative[middle]! < target) low = middle + 1;
      else high = middle;
    }
    return items[low]!;
  };
}

/** One ticket of the desk: the corpus ticket with the desk's words in its texts. */
export interface DeskTicket extends SyntheticTicket {
  product: string;
  customer: string;
  company: string;
}

export interface Desk {
  /** `count` tickets; the same seed gives the same tickets (independent of the vocabulary's seed). */
  tickets(options: { count: number; seed: number }): DeskTicket[];
  /** Search terms that match a large share of the desk (the problems' own words). */
  commonTerms: readonly string[];
  /** Search terms that match a handful of tickets (tail words, error codes, companies). */
  rareTerms: readonly string[];
}

/** Words every desk ticket about a problem uses: searching them matches thousands of tickets. */
const COMMON_TERMS = [
  'password reset',
  'refund',
  'charged twice',
  'CSV export',
  'accents',
  'single sign-on',
  'SAML certificate',
  'dashboard slow',
  'notification email',
  'webhook',
  'mobile app',
  'invoice',
  'please',
];

/** The desk made from `seed`: its made-up lists, and tickets on demand. */
export function createDesk(seed: number): Desk {
  const rng = seededRandom(seed);
  const taken = new Set<string>();
  const words = madeUpWords(rng, VOCABULARY.words, taken);
  const products = madeUpWords(rng, VOCABULARY.products, taken).map(
    (name, i) => `${capitalized(name)} ${['Ledger', 'Sync', 'Portal', 'Vault', 'Studio', 'Hub'][i % 6]}`,
  );
  const companies = madeUpWords(rng, VOCABULARY.companies, taken).map(
    (name, i) => `${capitalized(name)} ${['Ltd', 'GmbH', 'Inc', 'AB', 'SARL'][i % 5]}`,
  );
  const firstNames = madeUpWords(rng, FIRST_NAMES, taken).map(capitalized);
  const lastNames = madeUpWords(rng, LAST_NAMES, taken).map(capitalized);
  const codes = new Set<string>();
  while (codes.size < VOCABULARY.errorCodes) codes.add(`E${rng.int(10_000, 99_999)}`);
  const errorCodes = [...codes];

  const word = zipf(words, 1);
  const product = zipf(products, 1);
  const company = zipf(companies, 0.9);
  const errorCode = zipf(errorCodes, 1);

  function enrich(ticket: SyntheticTicket, rng: Random): DeskTicket {
    const where = product(rng);
    const version = `${rng.int(2, 9)}.${rng.int(0, 20)}`;
    const customer = `${rng.pick(firstNames)} ${rng.pick(lastNames)}`;
    const at = company(rng);
    const w = () => word(rng);
    const context = [
      `We use ${where} ${version} at ${at}.`,
      ...(rng.chance(0.3) ? [`The log shows error ${errorCode(rng)} next to the ${w()} ${w()} entry.`] : []),
      rng.pick([
        `It happens when ${customer} opens the ${w()} ${w()} page.`,
        `Affected are the ${w()} and ${w()} workspaces.`,
        `We noticed it while preparing the ${w()} ${w()} for ${w()}.`,
      ]),
      `Reported by ${customer}, ${at}.`,
    ];
    const title = rng.chance(0.35) ? `${ticket.title} in ${where}` : ticket.title;
    const reply = rng.chance(0.4)
      ? `${ticket.reply}\n\nThis applies to ${where} ${version} too; see the ${w()} ${w()} guide.`
      : ticket.reply;
    return {
      ...ticket,
      title,
      description: `${ticket.description} ${context.join(' ')}`,
      reply,
      ...(ticket.customerComment === undefined
        ? {}
        : { customerComment: `${ticket.customerComment} Our reference is ${errorCode(rng)}.` }),
      product: where,
      customer,
      company: at,
    };
  }

  const tail = (items: readonly string[], from: number, count: number) =>
    items.slice(Math.floor(items.length * from), Math.floor(items.length * from) + count);
  return {
    tickets({ count, seed: ticketSeed }) {
      const ticketRng = seededRandom(ticketSeed ^ 0x5eed);
      return syntheticTickets({ count, seed: ticketSeed }).map((ticket) => enrich(ticket, ticketRng));
    },
    commonTerms: COMMON_TERMS,
    // From the middle and the end of each list: each occurs in a few to a few dozen tickets.
    rareTerms: [
      ...tail(words, 0.3, 20),
      ...tail(words, 0.9, 20),
      ...tail(errorCodes, 0.1, 10),
      ...tail(companies, 0.5, 10).map((name) => name.split(' ')[0]!),
    ],
  };
}

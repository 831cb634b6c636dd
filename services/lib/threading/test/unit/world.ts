/** The Tix state the corpus is decided against (see test/corpus/cases.json). */
import type { ThreadFacts, TicketFacts } from '../../src/index.js';

export const SECRET = 'corpus-secret';
const NOW = new Date('2026-06-15T12:00:00Z');
const DAY = 86_400_000;

const ticket = (id: number, over: Partial<TicketFacts>): TicketFacts => ({
  id,
  status: 'open',
  closedAt: null,
  mergedInto: null,
  requesterEmails: [],
  ccEmails: [],
  ...over,
});

export const TICKETS = new Map<number, TicketFacts>([
  [1, ticket(1, { requesterEmails: ['alice@example.com'], ccEmails: ['bob@example.com'] })],
  [
    2,
    ticket(2, {
      status: 'closed',
      closedAt: new Date(NOW.getTime() - 3 * DAY),
      requesterEmails: ['carol@example.org'],
    }),
  ],
  [
    3,
    ticket(3, {
      status: 'closed',
      closedAt: new Date(NOW.getTime() - 60 * DAY),
      requesterEmails: ['dave@example.net'],
    }),
  ],
  [4, ticket(4, { mergedInto: 5, requesterEmails: ['erin@example.com'] })],
  [5, ticket(5, { requesterEmails: ['erin@example.com'] })],
  [6, ticket(6, { mergedInto: 7, requesterEmails: ['zed@example.com'] })],
  [7, ticket(7, { mergedInto: 6, requesterEmails: ['zed@example.com'] })],
  [8, ticket(8, { requesterEmails: ['frank@example.com'] })],
  [9, ticket(9, { requesterEmails: ['grace@example.com'] })],
  [10, ticket(10, { mergedInto: 4, requesterEmails: ['erin@example.com'] })],
]);

const MESSAGE_IDS = new Map<string, number>([
  ['<a1@mail.example.com>', 1],
  ['<tix.1.10.aaaa@tix.localhost>', 1],
  ['<c1@example.org>', 2],
  ['<tix.2.20.bbbb@tix.localhost>', 2],
  ['<d1@example.net>', 3],
  ['<tix.3.30.cccc@tix.localhost>', 3],
  ['<e1@example.com>', 4],
  ['<tix.5.50.dddd@tix.localhost>', 5],
  ['<cyc@example.com>', 6],
  ['<tix.8.80.eeee@tix.localhost>', 8],
  ['<m10@example.com>', 10],
]);
const OWN = new Set([
  '<tix.1.10.aaaa@tix.localhost>',
  '<tix.1.11.ffff@tix.localhost>',
  '<tix.8.80.eeee@tix.localhost>',
]);

export function world(): ThreadFacts {
  return {
    now: NOW,
    tokenSecret: SECRET,
    mailboxAddresses: ['support@tix.localhost'],
    ticketsByMessageId: (ids) =>
      new Map(ids.filter((i) => MESSAGE_IDS.has(i)).map((i) => [i, MESSAGE_IDS.get(i)!])),
    isOwnMessageId: (id) => OWN.has(id),
    ticketByNumber: (prefix, n) => (prefix === 'SUP' && TICKETS.has(n) ? n : null),
    ticket: (id) => TICKETS.get(id) ?? null,
    isStaff: (email) => email === 'agent@acme.test',
    settings: { reopenWindowDays: 14, acceptListMail: false },
  };
}

/**
 * The assistant's quality on the synthetic corpus (src/demo), with a real lookup, ticket and ai
 * service and events applied as the consumer would: 400 resolved tickets and 40 open ones in one
 * project (the open ones created in the ticket service, where the assistant reads them).
 * - recall@3: a resolved ticket of the same category among the three nearest, for at least 90 %;
 * - priority: precision at least 0.9 at the default threshold (0.8) with coverage at least 0.4, and
 *   a curve whose coverage never grows with the threshold;
 * - no suggestion or answer ever quotes an internal note (every note carries a SECRET-<n> marker);
 * - suggestions list their sources, and redact the personal data their source's reply named.
 */
import { expect } from 'chai';
import { createServiceClient, type OutgoingContext, type ServiceClient } from '@tix/kit';
import { SUGGESTION_TONES, type ai } from '@tix/protos';
import { startTestLookupServer, type TestLookupServer } from '@tix/lookup-service/testing';
import { startTestTicketServer, type TestTicketServer } from '@tix/ticket-service/testing';
import {
  RESOLVER_COUNT,
  SECRET_PATTERN,
  syntheticTicketEvents,
  syntheticTickets,
  type SyntheticTicket,
} from '@tix/support-corpus';
import { startTestAiServer, type TestAiServer } from '../../src/testing.js';

const RESOLVED = 400;
const OPEN = 40;
/** Ticket ids start here, so they never look like list positions. */
const FIRST_TICKET_ID = 1_001;
const CREATED_FROM = Date.parse('2026-01-05T08:00:00.000Z');

describe('assistant quality on the synthetic corpus', function () {
  this.timeout(600_000);
  let lookup: TestLookupServer;
  let lookupClient: ServiceClient<'lookup'>;
  let ticketServer: TestTicketServer;
  let assistant: TestAiServer;
  let client: ServiceClient<'ai'>;
  let projectId: number;
  let evaluation: ai.Evaluation__Output;
  const tickets = syntheticTickets({ count: RESOLVED + OPEN, seed: 14 });
  const open = tickets.slice(RESOLVED);
  /** The open tickets' ids in the ticket service; the resolved ones live in the corpus only. */
  const openIds = new Map<SyntheticTicket, number>();
  const ticketIdOf = (ticket: SyntheticTicket) => openIds.get(ticket) ?? FIRST_TICKET_ID + ticket.index;
  const byTicketId = new Map<number, SyntheticTicket>();

  before(async () => {
    lookup = await startTestLookupServer();
    lookupClient = createServiceClient('lookup', lookup.address, { deadlineMs: 10_000 });
    const project = await lookupClient.CreateProject({
      name: 'Quality',
      slug: 'quality',
      prefix: 'Q',
      description: 'The synthetic corpus',
      statuses: [
        { slug: 'open', label: 'Open', is_closed: false },
        { slug: 'in_progress', label: 'In progress', is_closed: false },
        { slug: 'closed', label: 'Closed', is_closed: true },
      ],
    });
    projectId = project.id;
    const type = await lookupClient.CreateTicketType({
      project_id: projectId,
      name: 'Question',
      slug: 'question',
      description: '',
      is_default: true,
      field_schema_json: '[]',
    });
    const user = (name: string, role: string) =>
      lookupClient.CreateUser({ name, email: `${name.toLowerCase()}@example.com`, role });
    const resolverIds: number[] = [];
    for (let index = 0; index < RESOLVER_COUNT; index += 1)
      resolverIds.push((await user(`Agent${index}`, 'agent')).id);
    const reporterIds = [(await user('Reporter', 'agent')).id, (await user('Intake', 'agent')).id];

    ticketServer = await startTestTicketServer({ lookupAddress: lookup.address, label: 'ai_quality' });
    const ticketClient = createServiceClient('tickets', ticketServer.address, { deadlineMs: 10_000 });
    const reporterOf = (ticket: SyntheticTicket) => reporterIds[ticket.index % reporterIds.length]!;
    for (const ticket of open) {
      const as: OutgoingContext = {
        principal: { kind: 'api_key', user_id: reporterOf(ticket), role: 'agent', scopes: ['tickets:write'] },
      };
      const created = await ticketClient.CreateTicket(
        {
          project_id: projectId,
          ticket_type_id: type.id,
          title: ticket.title,
          description: ticket.description,
          custom_fields_json: '',
        },
        as,
      );
      openIds.set(ticket, created.id);
    }
    ticketClient.close();
    for (const ticket of tickets) byTicketId.set(ticketIdOf(ticket), ticket);

    assistant = await startTestAiServer({
      lookupAddress: lookup.address,
      ticketsAddress: ticketServer.address,
    });
    client = createServiceClient('ai', assistant.address, { deadlineMs: 300_000 });
    for (const ticket of tickets) {
      const events = syntheticTicketEvents(ticket, {
        projectId,
        ticketTypeId: type.id,
        prefix: 'Q',
        ticketId: ticketIdOf(ticket),
        reporterId: reporterOf(ticket),
        resolverIds,
        createdAt: new Date(CREATED_FROM + ticket.index * 3_600_000),
        openStatus: 'open',
        closedStatus: 'closed',
        resolved: ticket.index < RESOLVED,
      });
      for (const event of events) await assistant.apply(event);
    }
    evaluation = await client.Evaluate({ project_id: projectId, k: 3 });
  });
  after(async () => {
    client?.close();
    lookupClient?.close();
    await assistant?.stop();
    await ticketServer?.stop();
    await lookup?.stop();
  });

  const shown = () => JSON.stringify(evaluation, null, 1);

  it('backtests every resolved ticket, and finds one of the same category among the 3 nearest for 90 %', () => {
    expect(evaluation.resolved_tickets).to.equal(RESOLVED);
    expect(evaluation.k).to.equal(3);
    expect(evaluation.recall_at_k, shown()).to.be.at.least(0.9);
  });

  it('predicts priority with precision 0.9 or more at the default threshold (0.8), for 40 % or more', () => {
    expect(evaluation.default_threshold).to.equal(0.8);
    const point = evaluation.priority_curve.find((entry) => entry.threshold === 0.8);
    expect(point, shown()).not.to.equal(undefined);
    expect(point!.precision, shown()).to.be.at.least(0.9);
    expect(point!.coverage, shown()).to.be.at.least(0.4);
  });

  it('has a priority curve from 0.5 to 0.99 whose coverage never grows with the threshold', () => {
    const thresholds = evaluation.priority_curve.map((point) => point.threshold);
    expect(thresholds[0]).to.equal(0.5);
    expect(thresholds.at(-1)).to.equal(0.99);
    for (let index = 1; index < thresholds.length; index += 1) {
      const [before, after] = [evaluation.priority_curve[index - 1]!, evaluation.priority_curve[index]!];
      expect(after.threshold, shown()).to.be.greaterThan(before.threshold);
      expect(after.coverage, shown()).to.be.at.most(before.coverage);
    }
  });

  describe('suggestions for the open tickets', () => {
    const suggestions = new Map<SyntheticTicket, ai.Suggestion__Output>();

    before(async () => {
      for (const ticket of open) {
        for (const tone of SUGGESTION_TONES) {
          const result = await client.SuggestReply({
            project_id: projectId,
            ticket_id: ticketIdOf(ticket),
            tone,
            max_sources: 3,
          });
          if (result.suggestion && tone === 'neutral') suggestions.set(ticket, result.suggestion);
          const text = `${result.suggestion?.content ?? ''}\n${result.suggestion?.content_html ?? ''}`;
          expect(text, `${ticket.title} (${tone})`).not.to.match(SECRET_PATTERN);
        }
      }
    });

    it('are offered for most open tickets in every tone, never quoting an internal note', async () => {
      // The corpus does hold notes to leak: on resolved tickets (before and after the reply) and open ones.
      const { rows } = await assistant.pool.query<{ notes: number }>(
        `SELECT count(*)::int AS notes FROM ai_comments WHERE is_internal AND content ~ 'SECRET-[0-9]+'`,
      );
      expect(rows[0]!.notes).to.equal(tickets.filter((ticket) => ticket.internalNote).length);
      expect(suggestions.size).to.be.at.least(OPEN * 0.8);
      // Asked in the notes' own words, the answers quote no note either.
      for (const question of ['temporary admin password', 'fraud review', 'internal trace id root cause']) {
        const answer = await client.AnswerQuestion({ project_ids: [projectId], question, max_sources: 5 });
        expect(answer.answer ?? '', question).not.to.match(SECRET_PATTERN);
      }
    });

    it('list their sources, the best one resolved in the same category for 90 %', () => {
      let sameCategory = 0;
      for (const [ticket, suggestion] of suggestions) {
        expect(suggestion.sources.length, ticket.title).to.be.within(1, 3);
        for (const source of suggestion.sources) {
          expect(byTicketId.has(source.ticket_id), ticket.title).to.equal(true);
          expect(source.ticket_id).to.be.below(FIRST_TICKET_ID + RESOLVED);
          expect(source.ticket_number).to.equal(`Q-${source.ticket_id}`);
          expect(source.comment_id, ticket.title).to.be.a('number');
          expect(source.similarity).to.be.within(0, 1);
        }
        if (byTicketId.get(suggestion.sources[0]!.ticket_id)!.category === ticket.category) sameCategory += 1;
      }
      expect(sameCategory / suggestions.size).to.be.at.least(0.9);
    });

    it('redact the personal data of the reply they reuse, and count it', () => {
      let redacted = 0;
      for (const [ticket, suggestion] of suggestions) {
        const source = byTicketId.get(suggestion.sources[0]!.ticket_id)!;
        for (const value of source.replyPersonalData)
          expect(suggestion.content, ticket.title).not.to.include(value);
        if (source.replyPersonalData.length === 0) continue;
        expect(suggestion.redactions, `${ticket.title}: ${suggestion.content}`).to.be.at.least(
          source.replyPersonalData.length,
        );
        expect(suggestion.content).to.include('[redacted]');
        redacted += 1;
      }
      // The corpus names personal data in about a third of the replies: some suggestions show it.
      expect(redacted).to.be.greaterThan(0);
    });
  });
});
